#!/usr/bin/env bash
# tests/pv/nopv_test.sh -- build a PARAVIRT=0 kernel (wrappers are the native
# instructions, no pv_ops calls) in build-nopv/ and run the in-kernel and
# user test suites on it with the main build's initrd.
set -eu
build=${BUILD:-build}
nopv=${NOPV_BUILD:-build-nopv}
make -s --no-print-directory B="$nopv" PARAVIRT=0 "$nopv/kernel.elf"
if objdump -d "$nopv/kernel.elf" | grep -q 'call.*\*.*<pv_ops'; then
	echo "PARAVIRT=0 kernel still calls through pv_ops"; exit 1
fi
python3 tests/run_tests.py --build "$build" --kernel "$nopv/kernel.elf" --tag nopv \
	--only boot,mm,user
