#!/bin/busybox sh
# /init of the bench-linux initramfs: mount the basics, run the suite on the
# serial console, power off (tools/bench/linux.sh packs this file).
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
exec </dev/console >/dev/console 2>&1
cd /bench
. ./bench.conf
# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
/bench/suite --forkrss "$FORKRSS_MIB" $BENCH_ARGS
poweroff -f
