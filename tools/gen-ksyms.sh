#!/usr/bin/env bash
# tools/gen-ksyms.sh NM KERNEL.elf > ksyms.S
# Emit the kernel's text symbols, sorted by address, as an assembly file for
# the .ksyms section (read by lib/ksyms.c). With no ELF ("-") it emits an
# empty table for the first link pass.
set -eu
nm=$1 elf=$2
if [ "$elf" = - ]; then
	syms=""
else
	syms=$("$nm" -n "$elf" | awk '$2 ~ /^[tT]$/ && $3 !~ /^\./ { print $1, $3 }')
fi
count=$(printf '%s' "$syms" | grep -c . || true)
echo '	.section .ksyms, "a"'
echo '	.balign 8'
echo '	.globl ksyms_count, ksyms_addrs, ksyms_name_offsets, ksyms_names'
echo "ksyms_count: .quad $count"
echo 'ksyms_addrs:'
printf '%s\n' "$syms" | awk 'NF { print "	.quad 0x" $1 }'
echo 'ksyms_name_offsets:'
printf '%s\n' "$syms" | awk 'NF { print "	.long " off; off += length($2) + 1 }' off=0
echo 'ksyms_names:'
printf '%s\n' "$syms" | awk 'NF { print "	.asciz \"" $2 "\"" }'
