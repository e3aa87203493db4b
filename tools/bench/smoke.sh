#!/usr/bin/env bash
# tools/bench/smoke.sh [BUILD] -- the quick smoke of every benchmark program that
# `make test` runs (tests/scripts.txt): build the benchmarks as static musl
# binaries, run the guest's driver (suite) on this host with --quick through the
# same runner, tables and plots as bench-linux, and check that every program
# printed well-formed BENCH lines. It times nothing and asserts no speed.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-${BUILD:-build}}
tools/deps.sh musl
make -s --no-print-directory B="$build" bench-musl
out=$build/bench/smoke
rm -rf "$out"
python3 tools/bench/bench.py run --out "$out" --system \
	"host|$build/bench/musl/suite --quick --forkrss '0 1'"
python3 tools/bench/bench.py check --suite "$out/logs/host-r1.log"
