#!/usr/bin/env bash
# tools/bench/linux.sh -- the Linux side of the side-by-side benchmarks.
#
#   linux.sh prepare BUILD BINDIR   fetch Debian's kernel image and busybox-static
#                                   (apt-get download + dpkg-deb -x into BUILD/bench/linux,
#                                   nothing installed on the host) and pack an initramfs
#                                   with busybox, the benchmarks in BINDIR (suite runs
#                                   them) and an init that runs suite and powers off
#   linux.sh busybox BUILD          Debian's busybox-static (the same download) as
#                                   BUILD/busybox/bin/busybox, for Pagoda
#                                   (make run BUSYBOX=1, tests/busybox/compare.sh)
#   linux.sh boot BUILD MEM         boot that kernel in QEMU the way Pagoda boots
#                                   (tools/qemu.sh: TCG, -cpu max, CPUS guest CPUs, -m MEM),
#                                   with a fresh copy of BENCH_DISK as /dev/vda when set
#                                   (tools/bench/disk.sh); the serial console goes to stdout
#
# The suite's options come from the environment at prepare time: BENCH_ARGS
# (common options, e.g. "--runs 5 --ms 100") and FORKRSS_MIB (forkrss sizes).
# LINUX_INITRAMFS names the initramfs file under BUILD/bench/linux that
# prepare writes and boot boots (default initramfs.gz; make bench-ebizzy
# packs its own, ebizzy.gz, so that the two suites' options do not mix).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
initramfs=${LINUX_INITRAMFS:-initramfs.gz}
# shellcheck source=tools/bench/disk.sh
. "$here/disk.sh"

# The modules of Debian's kernel that the disk needs (virtio-blk, and ext4,
# whose driver mounts ext2), in the order their dependencies load: the
# initramfs's /init loads them (insmod, no modprobe without modules.dep).
MODULES="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk
lib/crc16 fs/mbcache fs/jbd2/jbd2 crypto/crc32c_generic fs/ext4/ext4"

# fetch PKG DEST: the .deb of PKG (the candidate version) into directory DEST,
# downloaded once; prints its path.
fetch() {
	local pkg=$1 dest=$2 deb
	mkdir -p "$dest"
	deb=$(ls "$dest"/"$pkg"_*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$deb" ]; then
		echo "bench-linux: apt-get download $pkg" >&2
		(cd "$dest" && { apt-get download "$pkg" >&2 2>/dev/null ||
			{ apt-get update -qq >&2 && apt-get download "$pkg" >&2; }; })
		deb=$(ls "$dest"/"$pkg"_*.deb | head -n1)
	fi
	echo "$deb"
}

# kernel_pkg DEST: the versioned linux-image package that the
# linux-image-amd64 metapackage depends on.
kernel_pkg() {
	local meta
	meta=$(fetch linux-image-amd64 "$1")
	dpkg-deb -f "$meta" Depends | tr ',|' '\n\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1
}

# prepare BUILD BINDIR: unpack the kernel and busybox, build the initramfs.
prepare() {
	local build=$1 bindir=$2 top=$1/bench/linux
	local debs=$top/debs root=$top/root stage=$top/stage pkg
	pkg=$(kernel_pkg "$debs")
	if [ ! -e "$top/vmlinuz" ] || [ ! -d "$top/modules" ]; then
		rm -rf "$root" "$top/modules" && mkdir -p "$root" "$top/modules.tmp"
		dpkg-deb -x "$(fetch "$pkg" "$debs")" "$root"
		cp "$root"/boot/vmlinuz-* "$top/vmlinuz"
		for m in $MODULES; do
			cp "$root"/lib/modules/*/kernel/"$m".ko "$top/modules.tmp/"
		done
		echo "$MODULES" | tr ' ' '\n' | sed 's|.*/||' > "$top/modules.tmp/order"
		mv "$top/modules.tmp" "$top/modules"
		rm -rf "$root"   # the other modules are not needed
	fi
	rm -rf "$stage" && mkdir -p "$stage"/{bin,dev,proc,tmp,mnt,bench}
	cp -r "$top/modules" "$stage/modules"
	dpkg-deb -x "$(fetch busybox-static "$debs")" "$stage/bb"
	mv "$stage/bb/bin/busybox" "$stage/bin/busybox" && rm -rf "$stage/bb"
	cp "$bindir"/* "$stage/bench/" 2>/dev/null || true
	rm -rf "$stage/bench/obj" "$stage/bench/libbench.a"
	printf 'BENCH_ARGS="%s"\nFORKRSS_MIB="%s"\n' "${BENCH_ARGS:-}" \
		"${FORKRSS_MIB:-0 16 64 256 1024}" > "$stage/bench/bench.conf"
	cp "$here/linux-init.sh" "$stage/init"
	chmod +x "$stage/init"
	(cd "$stage" && find . | sort | cpio -o -H newc --quiet --owner=0:0) | gzip -1 > "$top/$initramfs"
	echo "bench-linux: $(basename "$pkg"), initramfs $(du -h "$top/$initramfs" | cut -f1)" >&2
}

# busybox BUILD: BUILD/busybox/bin/busybox from the busybox-static package.
busybox() {
	local out=$1/busybox/bin/busybox
	[ -x "$out" ] && return
	mkdir -p "$1/busybox/deb" "$1/busybox/bin"
	dpkg-deb -x "$(fetch busybox-static "$1/bench/linux/debs")" "$1/busybox/deb"
	mv "$1/busybox/deb/bin/busybox" "$out" && rm -rf "$1/busybox/deb"
}

# boot BUILD MEM: run the suite once under Linux in QEMU.
boot() {
	local top=$1/bench/linux st=0
	bench_disk_setup
	"$here/../qemu.sh" -m "$2" -kernel "$top/vmlinuz" -initrd "$top/$initramfs" \
		-append "console=ttyS0 quiet mitigations=off panic=-1" "${bench_disk_opts[@]}" \
		-display none -serial stdio -monitor none -no-reboot </dev/null || st=$?
	bench_disk_done
	return $st
}

case "${1:-}" in
prepare) prepare "$2" "$3" ;;
boot) boot "$2" "$3" ;;
busybox) busybox "$2" ;;
*) echo "usage: $0 prepare BUILD BINDIR | busybox BUILD | boot BUILD MEM" >&2; exit 2 ;;
esac
