#!/usr/bin/env bash
# tools/bench/pagoda.sh -- the Pagoda side of the side-by-side benchmarks.
#
#   pagoda.sh prepare BUILD BINDIR [LIBC [BUSYBOX]]
#                                       stage the benchmarks of BINDIR for /bin of an
#                                       initrd next to Pagoda's root tree (BUILD/rootfs),
#                                       as the tree of LIBC (newlib by default; make
#                                       bench-linux stages BUILD/bench/musl as musl and
#                                       BUILD/bench/pagoda as newlib), with the BUSYBOX
#                                       binary (Debian's, as on Linux) as /bin/busybox
#   pagoda.sh boot BUILD MEM "CONFIG" [SUITE ARGS...]
#                                       boot BUILD/kernel.elf once, the way bench-linux
#                                       boots Linux (tools/qemu.sh: TCG, -cpu max, -m MEM),
#                                       with an /etc/init.cmd that runs /bin/suite (init
#                                       runs it, then the kernel powers off), with a
#                                       fresh copy of BENCH_DISK as /dev/vda when set
#                                       (tools/bench/disk.sh); the serial console goes
#                                       to stdout
#   pagoda.sh boot BUILD MEM "CONFIG" --init "COMMAND"
#                                       the same with COMMAND as /etc/init.cmd instead
#
# CONFIG is a list of words: libc=NAME picks the tree staged as NAME (default
# newlib, what make bench stages); NAME=VALUE words in capitals (e.g. MALLOC_PURGE=free) become
# environment variables of the benchmarks (suite --env); every other word (e.g.
# ptshare=fork) goes on the kernel command line. When the tree has busybox, the
# suite runs lat_proc's sh with it (BENCH_SH=/bin/busybox: what Linux's
# initramfs runs). SUITE ARGS are added to the suite's command (e.g. --only
# lat_syscall,lat_proc). The suite's options come from the environment at
# prepare time: BENCH_ARGS (common options) and FORKRSS_MIB (forkrss sizes).
# PAGODA_KERNEL boots another kernel (e.g. the PARAVIRT=0 build in
# build-nopv/). Each distinct boot's initrd and ISO are built once per prepare
# and reused by later rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
# shellcheck source=tools/bench/disk.sh
. "$here/disk.sh"
FILEBENCH_ARGS="--dev /dev/vda --mnt /mnt"   # the benchmark disk (filebench.c)

# prepare BUILD BINDIR [LIBC [BUSYBOX]]: stage the benchmarks as the tree of LIBC
# (BUILD/bench/pagoda-boot/LIBC) and remember the suite's options; the ISOs
# of earlier boots of that tree go.
prepare() {
	local top=$1/bench/pagoda-boot/${3:-newlib} bindir=$2 sizes bb=${4:-}
	local env=""
	rm -rf "$top" && mkdir -p "$top/tree/bin" "$top/tree/etc" "$top/tree/mnt"
	for f in "$bindir"/*; do
		if [ -f "$f" ] && [ -x "$f" ]; then cp "$f" "$top/tree/bin/"; fi
	done
	if [ -n "$bb" ]; then
		cp "$bb" "$top/tree/bin/busybox"
		env=" --env BENCH_SH=/bin/busybox"
	fi
	sizes=$(echo "${FORKRSS_MIB:-0 16 64 256 1024}" | tr ' ' ',')
	echo "/bin/suite --dir /bin --forkrss $sizes$env ${BENCH_ARGS:-}" > "$top/suite.cmd"
}

# boot BUILD MEM CONFIG [--init COMMAND | SUITE ARGS...]: one run of the suite
# (or of COMMAND) on Pagoda in that configuration.
boot() {
	local build=$1 mem=$2 config=$3 top kernel cmd kernel_opts="" env="" w name libc=newlib
	shift 3
	kernel=${PAGODA_KERNEL:-$build/kernel.elf}
	for w in $config; do
		if [[ $w == libc=* ]]; then libc=${w#libc=}
		elif [[ $w =~ ^[A-Z_][A-Z0-9_]*= ]]; then env="$env --env $w"
		else kernel_opts="$kernel_opts $w"; fi
	done
	top=$build/bench/pagoda-boot/$libc
	[ -e "$top/suite.cmd" ] || { echo "pagoda.sh: no $libc tree (pagoda.sh prepare BUILD BINDIR $libc)" >&2; exit 1; }
	cmd="$(cat "$top/suite.cmd")$env"
	if [ "${1:-}" = --init ]; then
		cmd=$2
	elif [ $# -gt 0 ]; then
		cmd="$cmd$(printf ' %q' "$@")"
	fi
	if [ "${1:-}" != --init ] && [ -n "${BENCH_DISK:-}" ]; then
		cmd="$cmd --args 'filebench=$FILEBENCH_ARGS'"   # as linux-init.sh does
	fi
	# keyed by the kernel's contents too: a rebuilt kernel.elf at the same
	# path must not boot the image made from the old one
	name=$top/$(echo "cfg-$config" | tr -c 'A-Za-z0-9=.-' '_')-$(printf '%s\n' "$kernel" \
		"$(md5sum < "$kernel")" "$kernel_opts" "$cmd" | md5sum | cut -c1-8)
	if [ ! -e "$name.iso" ]; then
		rm -rf "$name.tree" && cp -a "$top/tree" "$name.tree"
		echo "$cmd" > "$name.tree/etc/init.cmd"
		"$root/tools/mkinitrd.sh" "$name.tar" "$build/rootfs" "$name.tree"
		"$root/tools/mkiso.sh" "$kernel" "$name.tar" "${kernel_opts# }" "$name.iso"
		rm -rf "$name.tree" "$name.tar"
	fi
	local st=0
	bench_disk_setup
	"$root/tools/qemu.sh" -m "$mem" -cdrom "$name.iso" "${bench_disk_opts[@]}" \
		-display none -serial stdio -monitor none -no-reboot </dev/null || st=$?
	bench_disk_done
	return $st
}

case "${1:-}" in
prepare) prepare "$2" "$3" "${4:-}" "${5:-}" ;;
boot) shift; [ $# -ge 3 ] || set -- "$@" ""; boot "$@" ;;
*) echo "usage: $0 prepare BUILD BINDIR [LIBC [BUSYBOX]] | boot BUILD MEM [CONFIG [SUITE ARGS... | --init CMD]]" >&2
	exit 2 ;;
esac
