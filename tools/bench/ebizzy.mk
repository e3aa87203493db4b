# tools/bench/ebizzy.mk -- make bench-ebizzy (included by the top-level
# Makefile): seed 002's ebizzy table with threads on several CPUs (issue 17).
#
#   make bench-ebizzy     the static musl ebizzy (2 threads per CPU, 10 chunks of
#                         512 KiB) on Pagoda (smp_sched=1) and on Debian's Linux in
#                         the same QEMU setup, -smp 1, 2 and 4, kernels alternating,
#                         BENCH_EBIZZY_ROUNDS rounds of BENCH_EBIZZY_SECONDS per mode
#                         (tools/bench/ebizzy_smp.py); prints one seed-shaped table per
#                         CPU count and the scaling table, writes build/bench/ebizzy/
#                         (results.csv, tables.txt, table_*.csv, ebizzy_scaling.png,
#                         logs/). About 7 minutes a round on a quiet 2-core machine.
#                         BENCH_EBIZZY_CPUS='1 2 4' BENCH_EBIZZY_ROUNDS=3
#                         BENCH_EBIZZY_SECONDS=3 BENCH_EBIZZY_MEM=512M
BENCH_EBIZZY_CPUS    ?= 1 2 4
BENCH_EBIZZY_ROUNDS  ?= 3
BENCH_EBIZZY_SECONDS ?= 3
BENCH_EBIZZY_MEM     ?= 512M
.PHONY: bench-ebizzy
bench-ebizzy: bench-musl $(B)/kernel.elf user | $(call deps,build newlib musl run bench)
	$(PYTHON) tools/bench/ebizzy_smp.py run --build $(B) --out $(B)/bench/ebizzy \
		--cpus "$(BENCH_EBIZZY_CPUS)" --rounds $(BENCH_EBIZZY_ROUNDS) \
		--seconds $(BENCH_EBIZZY_SECONDS) --mem $(BENCH_EBIZZY_MEM)
