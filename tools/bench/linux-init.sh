#!/bin/busybox sh
# /init of the bench-linux initramfs: mount the basics, run the suite on the
# serial console, power off (tools/bench/linux.sh packs this file). lat_proc's
# sh runs /bin/busybox, as on Pagoda (tools/bench/pagoda.sh).
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
exec </dev/console >/dev/console 2>&1
cd /bench
. ./bench.conf
# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
/bench/suite --forkrss "$FORKRSS_MIB" --env BENCH_SH=/bin/busybox $BENCH_ARGS
poweroff -f
