#!/bin/busybox sh
# /init of the bench-linux initramfs: mount the basics, run the suite on the
# serial console, power off (tools/bench/linux.sh packs this file).
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
exec </dev/console >/dev/console 2>&1
cd /bench
. ./bench.conf
BENCH_DIR=/bench BENCH_ARGS="$BENCH_ARGS" FORKRSS_MIB="$FORKRSS_MIB" sh ./suite.sh
poweroff -f
