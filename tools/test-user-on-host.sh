#!/usr/bin/env bash
# tools/test-user-on-host.sh [BUILD] -- prove Pagoda's user space correct on
# this Linux host, independently of the kernel: Pagoda speaks the Linux
# x86-64 system call ABI, so the static programs in BUILD/rootfs/bin run here
# unchanged (Pagoda-only calls answer ENOSYS, which they must handle).
#
# Checks: the utilities' output and exit statuses, a scripted shell session
# (prompt, pipes, ;, &&, ||, &, $?, sh -c, exit), and init's command mode.
# (usertests and usertests-musl are their own lines in tests/scripts.txt.)
# Prints one line per failed check and exits 1 if any failed.
set -u
build=${1:-${BUILD:-build}}
bin=$(cd "$build/rootfs/bin" && pwd)
fails=0 checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT-STATUS WANT-OUTPUT COMMAND...: run COMMAND (stdin from
# /dev/null unless redirected by the caller) and compare status and output.
expect() {
	local name=$1 want_status=$2 want_out=$3; shift 3
	local out status
	out=$("$@" 2>&1); status=$?
	checks=$((checks + 1))
	if [ "$status" != "$want_status" ] || [ "$out" != "$want_out" ]; then
		echo "FAIL $name: status $status (want $want_status), output:"
		printf '%s\n' "$out" | sed 's/^/    | /'
		echo "  wanted:"
		printf '%s\n' "$want_out" | sed 's/^/    | /'
		fails=$((fails + 1))
	fi
}

# --- layout of every Pagoda program (libc/user.ld) ------------------------
# Two PT_LOADs: R+X text at 0x400000, RW data at the next 2 MiB boundary.
layout() {
	readelf -lW "$1" | python3 -c '
import sys
loads = [l.split() for l in sys.stdin if l.split()[:1] == ["LOAD"]]
if len(loads) != 2:
    sys.exit("PT_LOADs: %d" % len(loads))
text, data = [(int(f[2], 16), int(f[5], 16), "".join(f[6:-1])) for f in loads]
want = (text[0] + text[1] + 0x1fffff) // 0x200000 * 0x200000
if text[0] != 0x400000 or text[2] != "RE":
    sys.exit("text at %#x %s" % (text[0], text[2]))
if data[0] != want or data[2] != "RW":
    sys.exit("data at %#x %s, want %#x RW" % (data[0], data[2], want))
print("ok")'
}
for p in "$bin"/*; do
	case $p in *-musl | *-dyn | *-dyn-nopie | *-nointerp) continue ;; esac   # musl-gcc's layouts
	expect "layout-$(basename "$p")" 0 ok layout "$p"
done

# --- utilities -----------------------------------------------------------
expect hello     0 "hello"             "$bin/hello"
expect echo      0 "a b  c"            "$bin/echo" a b " c"
expect echo-n    0 "xy"                "$bin/echo" -n xy
expect true      0 ""                  "$bin/true"
expect false     1 ""                  "$bin/false"
printf 'one\ntwo\n' > "$tmp/f"
expect cat       0 "$(printf 'one\ntwo\none\ntwo')" "$bin/cat" "$tmp/f" "$tmp/f"
expect cat-stdin 0 "piped"             sh -c "echo piped | '$bin/cat'"
expect cat-miss  1 "cat: $tmp/nope: No such file or directory" "$bin/cat" "$tmp/nope"
mkdir -p "$tmp/d/sub" && : > "$tmp/d/b" && : > "$tmp/d/a"
expect ls        0 "$(printf 'a\nb\nsub')" "$bin/ls" "$tmp/d"
expect ls-bin    0 "$(ls "$bin")"      "$bin/ls" "$bin"
expect ls-miss   1 "ls: $tmp/nope: No such file or directory" "$bin/ls" "$tmp/nope"
expect sleep     0 ""                  "$bin/sleep" 0.1
expect sleep-bad 2 "usage: sleep SECONDS" "$bin/sleep" x
expect kill-bad  1 "kill: 999999999: No such process" "$bin/kill" 999999999
# ps and meminfo read /proc, Linux's as well as Pagoda's. ps lists itself
# with its parent (the shell running it) and "-" in the Pagoda-only PT and
# SHPT columns; meminfo starts with /proc/meminfo and adds vmstat counters.
ps_self() {
	local me=$BASHPID
	"$bin/ps" | awk -v pp="$me" '$2 == pp && $NF == "ps" && $8 == "-" && $9 == "-" { n++ }
		NR == 1 && $1 == "PID" && $9 == "SHPT" { h++ } END { print n + 0, h + 0 }'
}
meminfo_lines() {
	"$bin/meminfo" | awk 'NR == 1 && $1 == "MemTotal:" && $3 == "kB" { m++ }
		$1 == "pgfault" && $2 > 0 { f++ } END { print m + 0, f + 0 }'
}
vmstat_lines() {
	"$bin/vmstat" 1 2 | awk 'NR == 1 && $1 == "free" && $4 == "si/s" && $10 == "fsteal/s" &&
		$11 == "refault/s" { h++ } NR > 1 && NF == 12 && $1 > 0 { n++ }
		END { print h + 0, n + 0 }'
}
expect ps        0 "1 1"               ps_self
expect meminfo   0 "1 1"               meminfo_lines
expect vmstat    0 "1 2"               vmstat_lines
expect vmstat-bad 2 "usage: vmstat [DELAY [COUNT]]" "$bin/vmstat" 0
expect memtouch-bad 2 "usage: memtouch [-s SWAPDEV] MIB [ROUNDS]" "$bin/memtouch" x
memtouch_ok() { "$bin/memtouch" 8 2 | grep -c " 0 bytes wrong"; }
expect memtouch  0 "2"                 memtouch_ok
expect ptdraw    1 "ptdraw: pid 1: Function not implemented" "$bin/ptdraw" 1
expect ptdraw-bad 1 "usage: ptdraw [-r LO-HI] [-d DEPTH] [-t TITLE] [PID...] > pt.dot" "$bin/ptdraw" -d 9 1

# --- sh -c ----------------------------------------------------------------
shc() { env -i PATH="$bin" "$bin/sh" -c "$@"; }
expect sh-seq     0 "$(printf 'a\nb')"   shc 'echo a; echo b'
expect sh-status  0 "$(printf '1\n0')"   shc 'false; echo $?; true; echo $?'
expect sh-andor   0 "$(printf 'y\nz')"   shc 'false && echo x; true && echo y; false || echo z; true || echo w'
expect sh-pipe    0 "a b c"              shc 'echo a b c | cat | cat'
expect sh-pipest  1 ""                   shc 'echo x | false'
expect sh-quotes  0 "1 \$? two  words"   shc 'false; echo "$?" '"'"'$?'"'"' "two  words"'
expect sh-redir   0 "$(printf 'x\ny')"   shc "echo x > $tmp/r; echo y >> $tmp/r; cat < $tmp/r"
expect sh-exit    7 "before"             shc 'echo before; exit 7; echo after'
expect sh-notfound 127 "sh: nosuch: not found" shc 'nosuch'
expect sh-signal  0 "137"                shc "sh -c 'kill -9 \$\$'; echo \$?" 
expect sh-bg      0 "$(printf 'fg\nbg')" shc 'sleep 0.2 && echo bg & echo fg; sleep 0.5'
expect sh-syntax  2 "sh: syntax error near ';'" shc '; echo x'
expect sh-nested  0 "inner 4"            shc 'sh -c "exit 4"; echo inner $?'

# --- an interactive session: prompts, and the shell's own line editing ----
# On a terminal that echoes (Pagoda's console, a Linux tty in canonical mode:
# ECHO in its termios) the shell leaves echo and backspace to the terminal;
# tests/qemu/shell_session.py checks that path. On a pipe with -i nothing
# echoes, so the shell edits: echo, backspace (\177), prompt.
session_in=$(printf 'echo hellx\177o\necho a b | cat\nfalse; echo $?\nfalse && echo no || echo or-ok\nnosuch\necho $?\nexit 3\n')
session_out=$(printf '$ echo hellx\b \bo\nhello\n$ echo a b | cat\na b\n$ false; echo $?\n1\n$ false && echo no || echo or-ok\nor-ok\n$ nosuch\n$ echo $?\n127\n$ exit 3')
expect sh-session 3 "$session_out" sh -c "printf '%s\n' '$session_in' | env -i PATH='$bin' '$bin/sh' -i 2>/dev/null"

# --- init in command mode (what `make run CMD=...` does) -------------------
printf 'echo from init | cat; exit 5\n' > "$tmp/init.cmd"
expect init-cmd   5 "from init"          "$bin/init" "$tmp/init.cmd"

# --- make run CMD=... / EXTRA=...: the initrd overlay (user/user.mk) ---------
ov=$tmp/overlay
mkdir -p "$tmp/extra" && cp "$bin/hello" "$tmp/extra/myprog"
overlay() { make -s --no-print-directory OVERLAY="$ov" "$@" "$ov/.stamp" && cat "$ov/tree/etc/init.cmd" && ls "$ov/tree/bin"; }
expect overlay-cmd 0 "$(printf '%s\nmyprog' "echo \"\$?\" 'it''s' | cat")" \
	overlay CMD="echo \"\$?\" 'it''s' | cat" EXTRA="$tmp/extra"
expect overlay-none 1 "cat: $ov/tree/etc/init.cmd: No such file or directory" overlay

echo "$checks checks, $fails failed"
[ "$fails" = 0 ]
