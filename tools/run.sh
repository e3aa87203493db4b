#!/usr/bin/env bash
# tools/run.sh ISO MEM [QEMU ARGS...] -- `make run`: boot the ISO with the
# serial console on this terminal (Ctrl-A X quits QEMU) and exit with the
# status of what ran. When init exits (make run CMD=...), the kernel leaves
# QEMU through isa-debug-exit with the command's exit code c, which QEMU
# turns into (c << 1) | 1; a power-off exits QEMU with 0.
set -u
iso=$1 mem=$2
shift 2
"$(dirname "$0")/qemu.sh" -m "$mem" -cdrom "$iso" -nographic "$@"
status=$?
if [ $((status % 2)) = 1 ]; then
	exit $(((status - 1) / 2))
fi
exit $status
