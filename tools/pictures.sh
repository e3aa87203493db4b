#!/usr/bin/env bash
# tools/pictures.sh BUILD -- `make pictures`: boot the pictures scenario
# (init=/bin/ptpictures, user/ptpictures.c) in a small QEMU with an empty
# ext2 disk (the page-cache pictures' file lives there) and a swap area
# made by mkswap (the swap pictures'), keep its
# console in BUILD/pictures/serial.log, and turn the graphs it prints into
# BUILD/pictures/NN-NAME.{dot,png}, copied to docs/pictures/ (tools/pictures.py).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
out=$build/pictures
mkdir -p "$out"
rm -f "$out"/*.dot "$out"/*.png
rm -f "$out/disk.img" "$out/swap.img"
truncate -s 16M "$out/disk.img" "$out/swap.img"
mke2fs -q -F -t ext2 "$out/disk.img"
"$(command -v mkswap || echo /sbin/mkswap)" -q "$out/swap.img" >/dev/null
"$root/tools/mkiso.sh" "$build/kernel.elf" "$build/initrd.tar" 'init=/bin/ptpictures' "$out/pictures.iso"
# init's exit ends the run: QEMU exits with (status << 1) | 1, so 1 = status 0.
status=0
timeout 300 "$root/tools/qemu.sh" -m 64M -cdrom "$out/pictures.iso" -display none -monitor none \
	-drive "file=$out/disk.img,if=none,format=raw,id=vda" -device virtio-blk-pci,drive=vda,disable-legacy=on \
	-drive "file=$out/swap.img,if=none,format=raw,id=vdb" -device virtio-blk-pci,drive=vdb \
	-serial "file:$out/serial.log" </dev/null || status=$?
[ "$status" = 1 ] || { echo "pictures: QEMU exited with $status (log $out/serial.log)" >&2; exit 1; }
python3 "$root/tools/pictures.py" "$out/serial.log" "$out" --docs "$root/docs/pictures"
