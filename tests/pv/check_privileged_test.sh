#!/usr/bin/env bash
# tests/pv/check_privileged_test.sh -- tools/check-privileged.sh accepts the
# kernel's objects and rejects an object with cli / mov to CR3 / invlpg.
set -eu
build=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'void f(void) { __asm__ volatile("cli; mov %%rax, %%cr3; invlpg (%%rax)"); }\n' > "$tmp/bad.c"
gcc -c "$tmp/bad.c" -o "$tmp/bad.o"
if tools/check-privileged.sh objdump "$tmp/bad.o" > "$tmp/out"; then
	echo "a cli/mov-to-CR3/invlpg object was accepted"; exit 1
fi
for insn in cli '%cr3' invlpg; do
	grep -q -- "$insn" "$tmp/out" || { echo "report misses $insn:"; cat "$tmp/out"; exit 1; }
done
objs=$(find "$build/k" -name '*.o' ! -name 'ksyms*')
[ -n "$objs" ] || { echo "no kernel objects in $build/k"; exit 1; }
tools/check-privileged.sh objdump $objs
echo "check-privileged: rejects the bad object, accepts $(echo "$objs" | wc -w) kernel objects"
