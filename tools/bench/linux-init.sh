#!/bin/busybox sh
# /init of the bench-linux initramfs: mount the basics, load the disk's
# modules, run the suite on the serial console (filebench on /dev/vda when
# there is a disk), power off (tools/bench/linux.sh packs this file).
# lat_proc's sh runs /bin/busybox, as on Pagoda (tools/bench/pagoda.sh).
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
exec </dev/console >/dev/console 2>&1
# the disk's drivers (tools/bench/linux.sh lists them), then its /dev node
for m in $(cat /modules/order); do insmod "/modules/$m.ko"; done
if grep -q ' vda$' /proc/partitions; then
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	set -- --args "filebench=--dev /dev/vda --mnt /mnt"   # as tools/bench/pagoda.sh
fi
cd /bench
. ./bench.conf
# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
/bench/suite --forkrss "$FORKRSS_MIB" --env BENCH_SH=/bin/busybox "$@" $BENCH_ARGS
poweroff -f
