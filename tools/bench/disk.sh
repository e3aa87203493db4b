# tools/bench/disk.sh -- sourced by linux.sh and pagoda.sh: the one scratch
# disk of a benchmark boot, so both kernels get the same device and image.
#
# BENCH_DISK (environment) names a template image (make bench-linux makes an
# empty ext2 one with mke2fs, tools/bench/bench.mk). bench_disk_setup copies
# it to a fresh sparse file for this boot and sets bench_disk_opts to QEMU's
# options for it as the first virtio-blk disk (/dev/vda on both kernels);
# without BENCH_DISK it sets no options. bench_disk_done removes the copy
# (call it when QEMU has ended).
bench_disk_copy=""
bench_disk_opts=()

bench_disk_setup() {
	[ -n "${BENCH_DISK:-}" ] || return 0
	bench_disk_copy=$(mktemp "${BENCH_DISK%/*}/run-XXXXXX.img")
	cp --sparse=always "$BENCH_DISK" "$bench_disk_copy"
	bench_disk_opts=(-drive "file=$bench_disk_copy,if=none,format=raw,id=bench"
		-device virtio-blk-pci,drive=bench)
}

bench_disk_done() {
	[ -z "$bench_disk_copy" ] || rm -f "$bench_disk_copy"
}
