#!/usr/bin/env bash
# tools/deps.sh GROUP... -- make sure the Debian packages of these groups are installed.
#
# Groups: build (compiler, binutils, make, nasm, GRUB and the ISO tools), newlib
# (its source and what building it needs), musl (musl-gcc), run (QEMU; mke2fs for
# make run's disk image), test
# (host unit tests: Check, pkg-config, e2fsprogs for the ext2 images; gdb tests;
# python3), bench (plots, Linux
# initramfs), pictures (Graphviz: pg-draw -o FILE.png, the gdb-draw test). The
# Makefile runs this through one stamp per group (build/.deps/GROUP,
# tools/deps.mk) before anything compiles.
#
# All present: exit 0 silently. Missing and root: apt-get update, then one
# apt-get install of all of them. Missing and not root: print the exact
# apt-get line and exit 1.
set -eu

pkgs_build="gcc libc6-dev binutils make nasm grub-pc-bin grub-common xorriso mtools"
pkgs_newlib="newlib-source texinfo bzip2 xz-utils"
pkgs_musl="musl musl-tools"
pkgs_run="qemu-system-x86 e2fsprogs util-linux"
pkgs_test="check pkg-config gdb python3 e2fsprogs util-linux"
pkgs_bench="gnuplot-nox cpio gzip python3"
pkgs_pictures="graphviz"

want=""
for g in "$@"; do
	v="pkgs_$g"
	[ -n "${!v+set}" ] || { echo "deps: unknown group '$g'" >&2; exit 2; }
	want="$want ${!v}"
done
want=$(printf '%s\n' $want | sort -u)
[ -n "$want" ] || exit 0

# One dpkg-query for all: the names of those installed ("ii").
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $want 2>/dev/null |
	awk '$1 == "ii" { print $2 }' || true)
missing=$(printf '%s\n' $want | grep -vxF -e "$installed" -e '' | tr '\n' ' ' || true)
missing=${missing% }
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: $missing" >&2
	echo "deps: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing $missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh system (a debootstrap chroot, a container) has no package lists at
# all: then a failed update is fatal; with old lists, try them.
if ! apt-get update -qq >&2; then
	ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 ||
		{ echo "deps: apt-get update failed and there are no package lists" >&2; exit 1; }
	echo "deps: apt-get update failed; trying the old package lists" >&2
fi
# Lock::Timeout: wait for another apt/dpkg instead of failing at once.
apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends $missing >&2
