#!/usr/bin/env bash
# tools/mkdisk.sh OUT.img SIZE ROOTDIR -- make run's root disk: a sparse
# ext2 image of SIZE (e.g. 4G) holding ROOTDIR's tree, as `mke2fs -t ext2 -d`
# writes it, plus the directories the kernel mounts on (dev, proc, tmp, run).
set -eu
out=$1 size=$2 root=$3
stage=$(mktemp -d)
trap 'rm -rf "$stage" "$out.tmp"' EXIT
cp -a "$root"/. "$stage"/
mkdir -p "$stage/dev" "$stage/proc" "$stage/tmp" "$stage/run" "$stage/mnt" "$stage/etc"
rm -f "$out.tmp"
truncate -s "$size" "$out.tmp"
mke2fs -q -F -t ext2 -L pagoda -d "$stage" "$out.tmp"
mv "$out.tmp" "$out"
echo "disk: $out: ext2, $size, made from $root"
