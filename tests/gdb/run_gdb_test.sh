#!/usr/bin/env bash
# tests/gdb/run_gdb_test.sh SCENARIO 'KERNEL CMDLINE' [MEM]
#
# A gdb batch test: build an ISO that boots with CMDLINE, start it in QEMU
# paused (tools/debug.sh --batch), and run tests/gdb/SCENARIO.py inside gdb.
# The scenario prints "ok - ..." / "FAIL - ..." lines; exit 0 iff all passed.
# Listed in tests/scripts.txt; $BUILD is the build directory (default build).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
scenario=$1 cmdline=$2 mem=${3:-128M}
build=${BUILD:-build}
iso=$build/test/gdb-$scenario.iso
mkdir -p "$build/test"
"$root/tools/mkiso.sh" "$build/kernel.elf" "$build/initrd.tar" "$cmdline" "$iso"
exec "$root/tools/debug.sh" --batch "$root/tests/gdb/$scenario.py" --build "$build" \
	--timeout 60 "$iso" "$mem"
