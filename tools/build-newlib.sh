#!/usr/bin/env bash
# tools/build-newlib.sh OUTDIR -- build newlib for Pagoda with the host gcc.
#
# Debian's newlib-source ships the tarball under /usr/src/newlib/. We build it
# for the bare target x86_64-pagoda-elf without a cross compiler: OUTDIR/bin
# holds tiny x86_64-pagoda-elf-* wrapper scripts that run the host gcc and
# binutils with freestanding flags (no host headers, no PIE, no stack
# protector -- Pagoda sets up no TLS canary). newlib is configured without its
# own system calls: Pagoda's glue in libc/ supplies _read, _write, _sbrk, ...
#
# Result: OUTDIR/x86_64-pagoda-elf/{include,lib/libc.a,lib/libm.a}, and the
# stamp OUTDIR/.done. The Makefile runs this only when the stamp is missing.
set -eu
out=$(realpath -m "${1:-build/newlib}")
target=x86_64-pagoda-elf
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n1 || true)
[ -n "$tarball" ] || { echo "build-newlib: no tarball in /usr/src/newlib (tools/deps.sh newlib)" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out/bin" "$out/src" "$out/obj"
gccinc=$(gcc -print-file-name=include)

# wrap NAME COMMAND...: OUTDIR/bin/$target-NAME runs COMMAND with its arguments.
wrap() {
	local name=$1; shift
	printf '#!/bin/sh\nexec %s "$@"\n' "$*" > "$out/bin/$target-$name"
	chmod +x "$out/bin/$target-$name"
}
cflags="-nostdinc -isystem $gccinc -fno-pie -fno-pic -fno-stack-protector -fcf-protection=none -mcmodel=small"
wrap gcc gcc "$cflags"
wrap cc gcc "$cflags"
for tool in ar as ld nm ranlib objcopy objdump readelf strip; do
	wrap "$tool" "$tool"
done
export PATH="$out/bin:$PATH"

echo "build-newlib: unpacking $(basename "$tarball")" >&2
tar -xf "$tarball" -C "$out/src" --strip-components=1

cd "$out/obj"
echo "build-newlib: configuring for $target" >&2
"$out/src/configure" --target="$target" --prefix="$out" \
	--disable-multilib --disable-nls --disable-libgloss \
	--disable-newlib-supplied-syscalls --enable-newlib-reent-small \
	--disable-newlib-multithread --enable-newlib-io-long-long \
	--enable-newlib-io-c99-formats --disable-newlib-fvwrite-in-streamio \
	CFLAGS_FOR_TARGET="-O2" > "$out/configure.log" 2>&1 ||
	{ tail -n 30 "$out/configure.log" >&2; exit 1; }
echo "build-newlib: compiling (log: $out/make.log)" >&2
{ make -j"${JOBS:-2}" all-target-newlib && make install-target-newlib; } > "$out/make.log" 2>&1 ||
	{ tail -n 40 "$out/make.log" >&2; exit 1; }
rm -rf "$out/obj" "$out/src"
touch "$out/.done"
echo "build-newlib: done: $out/$target" >&2
