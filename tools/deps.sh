#!/usr/bin/env bash
# tools/deps.sh GROUP... -- make sure the Debian packages a make target needs are present.
# Groups: build (kernel + ISO), run (QEMU), test (unit tests, gdb), newlib, musl, bench,
# pictures (Graphviz: pg-draw -o FILE.png, make pictures).
# Installs with apt-get when running as root; otherwise prints the exact command and fails.
set -eu

pkgs_build="nasm grub-pc-bin grub-common xorriso mtools gcc make binutils"
pkgs_run="qemu-system-x86"
pkgs_test="check pkg-config gdb python3 qemu-system-x86"
pkgs_newlib="newlib-source texinfo bzip2 xz-utils"
pkgs_musl="musl-tools"
pkgs_bench="gnuplot-nox cpio gzip python3"
pkgs_pictures="graphviz"

want=""
for g in "$@"; do
	v="pkgs_$g"
	want="$want ${!v}"
done

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
apt-get install -y -qq --no-install-recommends $missing >&2
