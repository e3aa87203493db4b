#!/usr/bin/env bash
# tools/fresh-check.sh [--dirty] -- check the README's promise: on a fresh
# Debian 12, `git clone` + `make test` + `make run` need nothing else.
#
# As root: makes a minimal Debian 12 chroot (debootstrap --variant=minbase
# bookworm, plus git and make only) from the Debian mirror this host's apt
# uses, caches it as build/fresh/bookworm-minbase.tar.gz (the next run
# unpacks it in seconds; delete it to start over), clones this repository's
# HEAD commit into it, bind-mounts /proc, /sys, /dev and /dev/pts, and runs
# `make test` and then `make run CMD=true` inside as root, the way a new user
# would. Prints both summaries and exits non-zero if either failed. Logs:
# build/fresh/make-test.log, build/fresh/make-run.log and the test runs' own
# logs in build/fresh/test-logs/. Takes minutes (newlib
# and the whole test run are built from nothing); not part of `make test`.
#
# Only committed work is checked: with uncommitted changes it refuses, unless
# --dirty (then it checks HEAD anyway and says so).
# FRESH_MIRROR overrides the mirror; FRESH_KEEP=1 keeps the chroot for a look.
set -eu
root=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
out=$root/build/fresh
cache=$out/bookworm-minbase.tar.gz
chroot=$out/chroot
t0=$(date +%s)

say() { printf 'fresh-check: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }
elapsed() { echo "$(( $(date +%s) - t0 ))s"; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
	[ "${1:-}" = --dirty ] || die "uncommitted changes: only HEAD would be checked (commit, or pass --dirty)"
	say "warning: uncommitted changes are NOT checked, only HEAD"
fi
head=$(git -C "$root" rev-parse HEAD)

# The first Debian (not -security) URI in this host's apt sources.
mirror=${FRESH_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v '^[[:space:]]*#' |
	grep -oE '(https?://[^ ]*/debian)/?( |$)' | grep -v security | head -n1 | tr -d ' ')}
mirror=${mirror:-http://deb.debian.org/debian}

# kill_inside: end what still runs inside the chroot (after ^C or a kill).
kill_inside() {
	local sig p pids
	for sig in TERM KILL; do
		pids=
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$chroot" ] && pids="$pids ${p#/proc/}"
		done
		[ -n "$pids" ] || return 0
		kill -s $sig $pids 2>/dev/null || true
		sleep 2
	done
}

# Undo every mount and remove the chroot on any exit (errors and ^C included).
mounts=()
cleanup() {
	local i
	[ -d "$chroot" ] && kill_inside
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null || true
	done
	mounts=()
	if [ "${FRESH_KEEP:-0}" = 1 ]; then
		say "kept $chroot (mounts removed)"
	elif [ -d "$chroot" ] && ! grep -q " $chroot/" /proc/mounts; then
		rm -rf "$chroot"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# make_cache: debootstrap into a scratch directory and pack it.
make_cache() {
	command -v debootstrap >/dev/null || die "no debootstrap: apt-get install debootstrap"
	say "debootstrap --variant=minbase --include=git,make bookworm from $mirror"
	rm -rf "$chroot"
	debootstrap --variant=minbase --include=git,make bookworm "$chroot" "$mirror" \
		> "$out/debootstrap.log" 2>&1 || { tail -n 20 "$out/debootstrap.log" >&2; die "debootstrap failed"; }
	rm -rf "$chroot"/var/cache/apt/archives/*.deb
	tar -czf "$cache.tmp" -C "$chroot" . && mv "$cache.tmp" "$cache"
	say "cached $cache ($(du -h "$cache" | cut -f1)) after $(elapsed)"
}

mkdir -p "$out"
if [ -d "$chroot" ]; then
	grep -q " $chroot/" /proc/mounts && die "$chroot still has mounts (another fresh-check running?)"
	rm -rf "$chroot"
fi
if [ -f "$cache" ]; then
	mkdir -p "$chroot" && tar -xzf "$cache" -C "$chroot"
	say "unpacked cached chroot $cache in $(elapsed)"
else
	make_cache
fi
cp -L /etc/resolv.conf "$chroot/etc/resolv.conf"   # apt-get inside needs DNS

for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$chroot/$m"
	mounts+=("$chroot/$m")
done

git clone -q --no-checkout "$root" "$chroot/root/pagoda"
git -C "$chroot/root/pagoda" checkout -q --detach "$head"
say "cloned $(git -C "$root" log -1 --format='%h %s' "$head" | cut -c1-70)"

# inside LOG COMMAND: run COMMAND in the clone inside the chroot, as root with
# a clean environment, output to this terminal and LOG; returns its status.
# In the background, so that a signal to this script runs the traps at once.
inside() {
	local log=$1; shift
	rm -f "$out/status"
	{ chroot "$chroot" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /root/pagoda && $*" < /dev/null 2>&1; echo $? > "$out/status"; } |
		tee "$log" &
	wait $!
	return "$(cat "$out/status" 2>/dev/null || echo 1)"
}

t1=$(date +%s)
test_rc=0
inside "$out/make-test.log" make test || test_rc=$?
t2=$(date +%s)
rm -rf "$out/test-logs" && mkdir -p "$out/test-logs"   # the runs' own logs, kept
cp "$chroot"/root/pagoda/build/test/*.log "$out/test-logs/" 2>/dev/null || true
run_rc=0
inside "$out/make-run.log" make run CMD=true || run_rc=$?
t3=$(date +%s)

echo "fresh-check: Debian 12 minbase chroot, commit ${head:0:12}, $(date -u '+%Y-%m-%d')"
echo "fresh-check: make test: exit $test_rc in $((t2 - t1))s: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/make-test.log" | tail -n1)"
echo "fresh-check: make run CMD=true: exit $run_rc in $((t3 - t2))s: $(tr -d '\r' < "$out/make-run.log" | grep -av '^[[:space:]]*$' | tail -n1)"
if [ "$test_rc" = 0 ] && [ "$run_rc" = 0 ]; then
	echo "fresh-check: PASS in $(elapsed)"
	exit 0
fi
echo "fresh-check: FAIL in $(elapsed) (logs: $out/make-test.log, $out/make-run.log, $out/test-logs/)"
exit 1
