#!/usr/bin/env bash
# tools/bench/pagoda-pv.sh -- Pagoda's side of the paravirt benchmark (seed 004).
#
#   pagoda-pv.sh prepare BUILD "ARGS"   an initrd (BUILD/bench/pv/initrd.tar): the
#                                       root tree plus the Pagoda benchmark programs
#                                       in /bin and an /etc/init.cmd that runs
#                                       lat_syscall and lat_proc with ARGS in the
#                                       suite protocol (BENCHSTART/BENCHPROG/BENCHDONE)
#                                       and powers off
#   pagoda-pv.sh boot KERNEL INITRD "CMDLINE" MEM
#                                       boot it (tools/qemu.sh: TCG, CPUS guest CPUs); the
#                                       serial console goes to stdout
#
# tools/bench/bench.py run boots one system per kernel configuration (PARAVIRT=0,
# pv=indirect, pv=patched), round after round; its "paravirt" table prints them
# in the seed's columns.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
programs="lat_syscall lat_proc"

prepare() {
	local build=$1 args=$2 tree="$1/bench/pv/tree" cmd p
	rm -rf "$tree" && mkdir -p "$tree/bin" "$tree/etc"
	cp "$build"/bench/pagoda/* "$tree/bin/" 2>/dev/null || true
	rm -rf "$tree/bin/obj" "$tree/bin/libbench.a"
	cmd="echo BENCHSTART $programs"
	for p in $programs; do
		[ -x "$tree/bin/$p" ] || { echo "pagoda-pv: $build/bench/pagoda/$p missing" >&2; exit 1; }
		cmd="$cmd; echo BENCHPROG $p; /bin/$p $args"
	done
	printf '%s; echo BENCHDONE\n' "$cmd" > "$tree/etc/init.cmd"
	"$root/tools/mkinitrd.sh" "$build/bench/pv/initrd.tar" "$build/rootfs" "$tree"
}

boot() {
	local kernel=$1 initrd=$2 cmdline=$3 mem=$4 iso
	iso=$(mktemp --suffix=.iso)
	trap 'rm -f "$iso"' EXIT
	"$root/tools/mkiso.sh" "$kernel" "$initrd" "$cmdline" "$iso"
	"$root/tools/qemu.sh" -m "$mem" -cdrom "$iso" -nographic -no-reboot </dev/null || true
}

case "${1:-}" in
prepare) shift; prepare "$@" ;;
boot) shift; boot "$@" ;;
*) echo "usage: $0 prepare BUILD ARGS | boot KERNEL INITRD CMDLINE MEM" >&2; exit 2 ;;
esac
