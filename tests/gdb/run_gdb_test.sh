#!/usr/bin/env bash
# tests/gdb/run_gdb_test.sh [--name NAME] [--console] [--disk SIZE] SCENARIO 'KERNEL CMDLINE' [MEM]
#
# A gdb batch test: build an ISO that boots with CMDLINE, start it in QEMU
# paused (tools/debug.sh --batch), and run tests/gdb/SCENARIO.py inside gdb.
# The scenario prints "ok - ..." / "FAIL - ..." lines; exit 0 iff all passed.
# Listed in tests/scripts.txt; $BUILD is the build directory (default build).
# NAME (default gdb-SCENARIO; give one when a scenario runs under several
# command lines) names the ISO and logs: $BUILD/test/NAME.iso,
# NAME-serial.log (the kernel's console) and NAME-qemu.log. --disk SIZE
# attaches a fresh disk of SIZE (e.g. 16M, tests/qemu/disks.py's sector
# pattern) as vda: $BUILD/test/NAME-vda.img.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
name= console= disk=
if [ "${1:-}" = --name ]; then
	name=$2
	shift 2
fi
if [ "${1:-}" = --console ]; then   # the console on a socket, as make debug has it
	console=--console
	shift
fi
if [ "${1:-}" = --disk ]; then
	disk=$2
	shift 2
fi
scenario=$1 cmdline=$2 mem=${3:-128M}
# The scenarios follow one process through fork and faults, stopped at
# breakpoints: with processes on every CPU the other ones would run on
# meanwhile (a child breaking its COW before the parent is looked at). So
# processes stay on the boot CPU unless the scenario says otherwise.
case " $cmdline " in *" smp_sched="*) ;; *) cmdline="${cmdline:+$cmdline }smp_sched=0" ;; esac
name=${name:-gdb-$scenario}
build=${BUILD:-build}
iso=$build/test/$name.iso
mkdir -p "$build/test"
"$root/tools/mkiso.sh" "$build/kernel.elf" "$build/initrd.tar" "$cmdline" "$iso"
disk_args=()
if [ -n "$disk" ]; then   # the test runner's sector-pattern image (tests/qemu/disks.py)
	python3 -c "import sys; sys.path.insert(0, '$root/tests/qemu'); import disks
disks.prepare('$build', '$name', 'vda:$disk')" >/dev/null
	disk_args=(--disk "$build/test/$name-vda.img")   # (disks.image_path)
fi
exec "$root/tools/debug.sh" --batch "$root/tests/gdb/$scenario.py" $console --name "$name" \
	--build "$build" --timeout 60 "${disk_args[@]}" "$iso" "$mem"
