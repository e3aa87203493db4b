#!/usr/bin/env bash
# tools/bench/pagoda.sh -- the Pagoda side of the side-by-side benchmarks.
#
#   pagoda.sh prepare BUILD BINDIR      an initrd: Pagoda's root tree (BUILD/rootfs)
#                                       plus the benchmarks of BINDIR in /bin and an
#                                       /etc/init.cmd that runs /bin/suite (init runs
#                                       it, then the kernel powers off)
#   pagoda.sh boot BUILD MEM "CMDLINE"  boot BUILD/kernel.elf with that initrd and the
#                                       kernel command line CMDLINE (the configuration,
#                                       e.g. "ptshare=fork"), the way bench-linux boots
#                                       Linux (tools/qemu.sh: TCG, -cpu max, -m MEM);
#                                       the serial console goes to stdout
#
# The suite's options come from the environment at prepare time: BENCH_ARGS
# (common options) and FORKRSS_MIB (forkrss sizes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..

# prepare BUILD BINDIR: stage the benchmarks and pack the initrd.
prepare() {
	local build=$1 bindir=$2 top=$1/bench/pagoda-boot sizes
	rm -rf "$top/tree" && mkdir -p "$top/tree/bin" "$top/tree/etc"
	for f in "$bindir"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$top/tree/bin/"
	done
	sizes=$(echo "${FORKRSS_MIB:-0 16 64 256 1024}" | tr ' ' ',')
	echo "/bin/suite --dir /bin --forkrss $sizes ${BENCH_ARGS:-}" > "$top/tree/etc/init.cmd"
	"$root/tools/mkinitrd.sh" "$top/initrd.tar" "$build/rootfs" "$top/tree"
}

# boot BUILD MEM CMDLINE: one run of the suite on Pagoda.
boot() {
	local top=$1/bench/pagoda-boot iso
	iso=$top/$(echo "cfg-$3" | tr -c 'A-Za-z0-9=.-' '_').iso
	"$root/tools/mkiso.sh" "$1/kernel.elf" "$top/initrd.tar" "$3" "$iso"
	exec "$root/tools/qemu.sh" -m "$2" -cdrom "$iso" \
		-display none -serial stdio -monitor none -no-reboot </dev/null
}

case "${1:-}" in
prepare) prepare "$2" "$3" ;;
boot) boot "$2" "$3" "${4:-}" ;;
*) echo "usage: $0 prepare BUILD BINDIR | boot BUILD MEM [CMDLINE]" >&2; exit 2 ;;
esac
