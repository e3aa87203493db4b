#!/usr/bin/env bash
# tools/bench/smoke.sh [BUILD] -- the quick smoke of every benchmark program that
# `make test` runs (tests/scripts.txt): build the benchmarks twice, as static
# musl binaries (what bench-linux boots) and against Pagoda's newlib (what
# Pagoda runs; those binaries run on Linux too), run the guest's driver (suite)
# of each on this host with --quick through the same runner, tables and plots as
# bench-linux, and check that every program printed well-formed BENCH lines.
# It times nothing and asserts no speed.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-${BUILD:-build}}
tools/deps.sh musl
make -s --no-print-directory B="$build" bench-musl bench-pagoda
out=$build/bench/smoke
rm -rf "$out"
python3 tools/bench/bench.py run --out "$out" \
	--system "musl|$build/bench/musl/suite --quick --forkrss '0 1'" \
	--system "newlib|$build/bench/pagoda/suite --quick --forkrss '0 1'"
for lib in musl newlib; do
	python3 tools/bench/bench.py check --suite "$out/logs/$lib-r1.log"
done
