#!/usr/bin/env bash
# tools/check-ksyms.sh NM FIRST.elf FINAL.elf -- fail if any function moved
# between the two link passes (the backtrace symbols would then be wrong).
set -eu
a=$("$1" -n "$2" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' | md5sum)
b=$("$1" -n "$3" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' | md5sum)
if [ "$a" != "$b" ]; then
	echo "check-ksyms: function addresses differ between link passes" >&2
	exit 1
fi
