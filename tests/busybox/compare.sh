#!/usr/bin/env bash
# tests/busybox/compare.sh [BUILD] -- Debian's busybox-static, unmodified, runs
# the fixed script tests/busybox/script.sh on Pagoda (QEMU, the script as
# init's command) and on this Linux host (the same binary, the host's kernel);
# the two outputs must be the same, with the lines that start with "MASK"
# compared only up to their second word (pids, kernel names). Prints the
# difference and exits 1 when they are not.
set -euo pipefail
build=${1:-${BUILD:-build}}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$build/test/busybox
mkdir -p "$out/overlay/bin" "$out/overlay/etc"
"$root/tools/bench/linux.sh" busybox "$build" >/dev/null
bb=$(cd "$build/busybox/bin" && pwd)/busybox
cp "$bb" "$out/overlay/bin/busybox"
cp "$here/script.sh" "$out/overlay/etc/bbtest.sh"
echo 'busybox sh /etc/bbtest.sh' > "$out/overlay/etc/init.cmd"

# Pagoda: the script's output between init's start and its exit
"$root/tools/mkinitrd.sh" "$out/initrd.tar" "$build/rootfs" "$out/overlay"
"$root/tools/mkiso.sh" "$build/kernel.elf" "$out/initrd.tar" "" "$out/pagoda.iso" >/dev/null
timeout 120 "$root/tools/qemu.sh" -m 256M -cdrom "$out/pagoda.iso" -display none \
	-serial stdio -monitor none </dev/null > "$out/pagoda.log" 2>&1 || true
tr -d '\r' < "$out/pagoda.log" | sed -n '/^pagoda: started/,/^init exited/p' | sed '1d;$d' > "$out/pagoda.out"

# Linux: the same binary and script on the host
(cd / && env -i PATH=/nonexistent "$bb" sh "$here/script.sh") > "$out/linux.out" 2>&1 || true

mask() { sed 's/^\(MASK [^ ]*\) .*/\1/' "$1"; }
if ! diff <(mask "$out/linux.out") <(mask "$out/pagoda.out") > "$out/diff"; then
	echo "busybox: Pagoda's output differs from Linux's (< Linux, > Pagoda):"
	cat "$out/diff"
	exit 1
fi
[ -s "$out/pagoda.out" ] || { echo "busybox: no output from Pagoda"; exit 1; }
echo "busybox: $(wc -l < "$out/pagoda.out") lines, the same on Pagoda and Linux"
