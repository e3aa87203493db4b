#!/usr/bin/env bash
# tools/mkinitrd.sh OUT.tar [DIR...] -- pack the initial root file system.
# Each DIR is a root tree (e.g. build/rootfs containing bin/, etc/); later
# DIRs override earlier ones. The kernel reads the ustar archive read-only.
set -eu
out=$1; shift
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/dev" "$stage/etc" "$stage/tmp"
for d in "$@"; do
	[ -d "$d" ] && cp -a "$d"/. "$stage"/
done
mkdir -p "$(dirname "$out")"
tar --format=ustar --owner=0 --group=0 --numeric-owner --sort=name \
	-cf "$out.tmp" -C "$stage" .
mv "$out.tmp" "$out"
