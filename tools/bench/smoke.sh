#!/usr/bin/env bash
# tools/bench/smoke.sh [BUILD] -- the quick smoke of every benchmark program that
# `make test` runs (tests/scripts.txt): build the benchmarks twice, as static
# musl binaries (what bench-linux boots) and against Pagoda's newlib (what
# Pagoda runs; those binaries run on Linux too), run the guest's driver (suite)
# of each on this host with --quick through the same runner, tables and plots as
# bench-linux, and check that every program printed well-formed BENCH lines
# (ptshare_stat included: on this Linux host it may skip only the page-table
# sharing counters, which only Pagoda has; filebench only what needs a disk
# of its own to remount (the cold metrics), which bench-linux gives it). It times nothing and
# asserts no speed.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-${BUILD:-build}}
make -s --no-print-directory B="$build" bench-musl bench-pagoda
out=$build/bench/smoke
rm -rf "$out"
python3 tools/bench/bench.py run --out "$out" \
	--system "musl|$build/bench/musl/suite --quick --forkrss '0 1'" \
	--system "newlib|$build/bench/pagoda/suite --quick --forkrss '0 1'"
for lib in musl newlib; do
	python3 tools/bench/bench.py check --suite "$out/logs/$lib-r1.log" \
		--allow-skip 'ptshare_stat (pt_shared|kib_saved)$|filebench (read_cold_64M|map_cold_64M|rand_read_4k|dev_read_64M)$' \
		--expect ptshare_stat:pt_pages_1sh,ptshare_stat:pt_pages_2sh,ptshare_stat:pss_kib_2sh
done
