#!/usr/bin/env bash
# tools/qemu.sh [QEMU ARGS...] -- run qemu-system-x86_64 the way Pagoda expects:
# TCG (no KVM) with one host thread per guest CPU (thread=multi), CPUS guest
# CPUs (default 2; `make run CPUS=4`), a CPU with NX/1 GiB pages/SMEP/SMAP,
# the isa-debug-exit device for test results. Exit status: 0 after a
# power-off, 33 = tests passed, 35 = tests failed, 37 = kernel panic (see
# kernel/ktest.h).
set -u
qemu=${QEMU:-qemu-system-x86_64}
cpus=${CPUS:-2}
exec "$qemu" -accel tcg,thread=multi -cpu max -smp "$cpus" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-boot d "$@"
