#!/usr/bin/env bash
# tools/bench/libshare.sh BUILD OUT [MEM] -- seed 003's table for dynamically
# linked programs (issue 21, docs/shared-libraries.md): N different programs
# running at once, N = 0 1 2 4 8 16 32 (user/libshare_stat.c), static and
# dynamic builds of the same tools, on Pagoda with ptshare=off and
# ptshare=all and on Debian's Linux kernel in the same QEMU setup (the kernel
# tools/bench/linux.sh prepare fetches). Writes OUT/pagoda-MODE.log,
# OUT/linux.log, and prints the table (tools/bench/libshare_table.py, which
# also writes OUT/libshare.csv and OUT/libshare.png).
#
# The programs cycle through six tools, each built twice from the same
# source: statically against newlib (bin/sh, bin/cat, ... as Pagoda ships
# them) and dynamically with tools/pagoda-cc-dyn (bin/sh-dyn, ...: PIE,
# musl's libc.so as their loader). The very same binaries run on both kernels;
# Linux's initramfs carries them with /lib/ld-musl-x86_64.so.1 and busybox
# (for its /init only).
set -euo pipefail
build=$1 out=$2 mem=${3:-512M}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$build/rootfs/bin
tools_static="/bin/sh /bin/cat /bin/sleep,1000 /bin/ls,/ /bin/echo,hi /bin/hello"
tools_dynamic="/bin/sh-dyn /bin/cat-dyn /bin/sleep-dyn,1000 /bin/ls-dyn,/ /bin/echo-dyn,hi /bin/hello-dyn"
cmd="libshare_stat static $tools_static; libshare_stat dynamic $tools_dynamic"
mkdir -p "$out"

# Pagoda: the initrd of make run with /etc/init.cmd = the two runs.
pagoda() {
	local mode=$1 stage=$out/pagoda-overlay
	rm -rf "$stage" && mkdir -p "$stage/etc"
	printf '%s\n' "$cmd" > "$stage/etc/init.cmd"
	"$root/tools/mkinitrd.sh" "$out/initrd.tar" "$build/rootfs" "$stage"
	"$root/tools/mkiso.sh" "$build/kernel.elf" "$out/initrd.tar" "ptshare=$mode" "$out/pagoda.iso"
	"$root/tools/qemu.sh" -m "$mem" -cdrom "$out/pagoda.iso" -display none -serial stdio \
		-monitor none </dev/null > "$out/pagoda-$mode.log" 2>&1 || true
}

# Linux: Debian's kernel, an initramfs with the same binaries.
linux() {
	local top=$build/bench/linux stage=$out/linux-root
	mkdir -p "$out/empty"
	"$here/linux.sh" prepare "$build" "$out/empty" >/dev/null
	rm -rf "$stage" && mkdir -p "$stage"/{bin,lib,dev,proc,tmp}
	dpkg-deb -x "$(ls "$top"/debs/busybox-static_*.deb | head -n1)" "$stage/bb"
	mv "$stage/bb/bin/busybox" "$stage/busybox" && rm -rf "$stage/bb"
	for t in sh cat sleep ls echo hello; do
		cp "$bin/$t" "$bin/$t-dyn" "$stage/bin/"
	done
	cp "$bin/libshare_stat" "$stage/bin/"
	cp "$build/rootfs/lib/ld-musl-x86_64.so.1" "$stage/lib/"
	cat > "$stage/init" <<EOF
#!/busybox sh
/busybox mount -t devtmpfs dev /dev
/busybox mount -t proc proc /proc
exec </dev/console >/dev/console 2>&1
/bin/$(echo "$cmd" | sed 's|; |; /bin/|')
/busybox poweroff -f
EOF
	chmod +x "$stage/init"
	(cd "$stage" && find . | sort | cpio -o -H newc --quiet --owner=0:0) | gzip -1 > "$out/linux-initramfs.gz"
	"$root/tools/qemu.sh" -m "$mem" -kernel "$top/vmlinuz" -initrd "$out/linux-initramfs.gz" \
		-append "console=ttyS0 quiet mitigations=off panic=-1" \
		-display none -serial stdio -monitor none -no-reboot </dev/null > "$out/linux.log" 2>&1 || true
}

pagoda off
pagoda all
linux
python3 "$here/libshare_table.py" "$out"
