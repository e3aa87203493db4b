# tools/bench/bench.mk -- benchmark builds and runs (included by the top-level Makefile).
#
#   make bench          every Pagoda configuration the seeds' tables need, booted in
#                       QEMU round after round, each running only its programs
#                       (tools/bench/configs.py): ptshare=off/fork/all, PARAVIRT=0 /
#                       pv=indirect / pv=patched, MALLOC_PURGE=free/dontneed/munmap/none,
#                       bench=fork (in-kernel fork benchmark). Prints the tables (seeds
#                       000, 002, 003, 004, purge policies, kfork) and writes results.csv,
#                       table_*.csv, tables.txt, *.png and logs/ to build/bench/all/.
#                       Builds what it needs first (newlib, kernel, PARAVIRT=0 kernel in
#                       build-nopv/, user programs, benchmarks). Knobs:
#                         BENCH_CONFIGS='ptshare pv purge kfork' (groups or names such as
#                                        ptshare=fork MALLOC_PURGE=none bench=fork)
#                         BENCH_ROUNDS=3  BENCH_MEM=2G
#                         BENCH_ARGS='--runs 5 --ms 100' (every program; default: theirs)
#                         BENCH_FORKRSS='0 16 64 256 1024'
#                         BENCH_KFORK='bench_sizes=1,16,64 bench_runs=5' (kernel options
#                                      of the bench=fork boot; default: the kernel's)
#                         BENCH_KFORK_MEM=3G (its memory: 1 GiB copied needs 2 GiB free)
#                       About 6.5 minutes of boots on a quiet 2-core machine, plus the build
#                       (3.5 minutes from a fresh clone, newlib included).
#   make bench-musl     the benchmarks as static musl binaries (build/bench/musl/)
#   make bench-smoke    each benchmark once with --quick on this host; checks the
#                       BENCH line format, times nothing (also run by make test)
#   make bench-linux    Debian's Linux kernel + busybox in QEMU and Pagoda in the same
#                       QEMU setup, alternately, the suite inside each; the SAME static
#                       musl binaries (build/bench/musl) and the same busybox (lat_proc's
#                       sh) on both kernels, and Pagoda's newlib builds as an extra,
#                       labelled column; CSV, tables, ratios, the issue-19 targets and
#                       plots in build/bench/results/; both kernels get a fresh copy of
#                       one empty ext2 image (BENCH_DISK_SIZE=2G) as /dev/vda, where
#                       filebench mounts it and measures file I/O
#                       BENCH_MEM=2G BENCH_ROUNDS=3 BENCH_ARGS='--runs 5 --ms 100'
#                       BENCH_FORKRSS='0 16 64 256 1024' (forkrss MiB; less with less memory)
#                       BENCH_PAGODA_CONFIGS='libc=musl libc=musl,ptshare=all libc=newlib' (each a column; e.g.
#                                        'libc=musl libc=musl,ptshare=off')
#   make bench-phases   Pagoda booted with `phasetime`, user/bench/phases (the musl
#                       build): cycles per phase of faults, fork, exit and wait
#                       (mm/frame/phasetime.h), printed as a table; BENCH_PHASES_ARGS
#                       (default: --runs 5) and the MiB of its fork_big workload
#
# The same sources build for Pagoda with tools/pagoda-cc (BENCH_PAGODA_BINS).

BENCH_SRC   := user/bench
BENCH_PROGS := suite proc_hello lat_syscall lat_proc lat_pagefault forkrss madvbench ebizzy phases \
	mallocbench ptshare_stat filebench replace
BENCH_LIBS  := bench_util bench_rng bench_proc bench_mem bench_trace
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
BENCH_MEM    ?= 2G
BENCH_ROUNDS ?=
BENCH_ALL_ROUNDS := 3
BENCH_LINUX_ROUNDS := 3
BENCH_ARGS   ?=
BENCH_FORKRSS ?= 0 16 64 256 1024
MUSL_CC      ?= musl-gcc

# bench_build TARGET CC LDFLAGS DEPS LIBC GROUPS: rules for
# build/bench/TARGET/PROG, one static library of the shared pieces (plus the
# LIBC sources: Pagoda's system call wrappers, which newlib programs get from
# libpagoda.a), and BENCH_<TARGET>_BINS listing the programs; DEPS are what CC
# needs built first (Pagoda's libc), GROUPS the package groups it needs.
define bench_build
BENCH_$(1)_BINS := $$(BENCH_PROGS:%=$(B)/bench/$(1)/%)

$(B)/bench/$(1)/obj/%.o: $(BENCH_SRC)/%.c $(wildcard $(BENCH_SRC)/*.h libc/include/pagoda/*.h) $(4) \
		| $(call deps,$(6))
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$<)$(2) $(BENCH_CFLAGS) -c $$< -o $$@

$(B)/bench/$(1)/obj/libc-%.o: libc/%.c $(wildcard libc/*.h libc/include/pagoda/*.h) $(4) \
		| $(call deps,$(6))
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$<)$(2) $(BENCH_CFLAGS) -c $$< -o $$@

.PRECIOUS: $(B)/bench/$(1)/obj/%.o

$(B)/bench/$(1)/libbench.a: $(BENCH_LIBS:%=$(B)/bench/$(1)/obj/%.o) $(5:libc/%.c=$(B)/bench/$(1)/obj/libc-%.o) \
		| $(call deps,$(6))
	$$(Q)rm -f $$@ && ar rcs $$@ $$^

$(B)/bench/$(1)/%: $(B)/bench/$(1)/obj/%.o $(B)/bench/$(1)/libbench.a $(4) | $(call deps,$(6))
	$$(call say,LD,$$@)$(2) $(3) -o $$@ $$(filter $(B)/bench/%,$$^)
endef

# musl's own headers win; libc/include only adds pagoda/*.h (as for usertests-musl).
$(eval $(call bench_build,musl,$(MUSL_CC) -idirafter libc/include,-static,,libc/pagoda.c libc/errno_map.c libc/procfs.c,build musl))
$(eval $(call bench_build,pagoda,$(PAGODA_CC),,$(LIBC_DEPS),,build newlib))
BENCH_MUSL_BINS   := $(BENCH_musl_BINS)
BENCH_PAGODA_BINS := $(BENCH_pagoda_BINS)

# Host unit test of the timing library (tests/unit/test_bench.c).
UNIT_SRCS_bench := $(BENCH_SRC)/bench_util.c $(BENCH_SRC)/bench_rng.c

.PHONY: bench-musl bench-pagoda bench-smoke bench-linux
bench-musl: $(BENCH_MUSL_BINS)
	@:

# The same programs against Pagoda's newlib (they run on Linux too).
bench-pagoda: $(BENCH_PAGODA_BINS)
	@:

bench-smoke: | $(call deps,build newlib musl bench)
	tools/bench/smoke.sh $(B)

# The page-replacement simulator (issue 39): OPT, LRU, CLOCK and FIFO over
# the replacement benchmark's traces, on the host (tools/bench/replace_sim.c).
REPLACE_SIM := $(B)/bench/host/replace_sim
$(REPLACE_SIM): tools/bench/replace_sim.c tools/bench/policies.c tools/bench/policies.h \
		$(BENCH_SRC)/bench_trace.c $(BENCH_SRC)/bench_trace.h $(BENCH_SRC)/bench_rng.c | $(call deps,build)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)$(HOSTCC) $(BENCH_CFLAGS) -o $@ tools/bench/replace_sim.c tools/bench/policies.c \
		$(BENCH_SRC)/bench_trace.c $(BENCH_SRC)/bench_rng.c

# make bench-swap: page replacement on Pagoda and Linux against OPT (issue
# 39; tools/bench/swap_bench.py): the static musl `replace` replays six
# page-reference traces over BENCH_SWAP_PAGES pages of anonymous memory with
# BENCH_SWAP_MEM of RAM and a fresh mkswap area of BENCH_SWAP_SIZE as /dev/vda
# on both kernels, booted alternately BENCH_SWAP_ROUNDS times; prints major
# faults, pages read from and written to swap, resident frames, wall time,
# and OPT, LRU and CLOCK simulated at those frames; writes
# build/bench/swap/results/ (results.csv, tables.txt, logs/).
BENCH_SWAP_MEM    ?= 128M
BENCH_SWAP_PAGES  ?= 40960
BENCH_SWAP_SIZE   ?= 512M
BENCH_SWAP_ROUNDS ?= 1
.PHONY: bench-swap
bench-swap: bench-musl $(B)/kernel.elf user $(REPLACE_SIM) | $(call deps,build newlib musl run bench)
	$(PYTHON) tools/bench/swap_bench.py run --build $(B) --out $(B)/bench/swap/results \
		--sim $(REPLACE_SIM) --mem $(BENCH_SWAP_MEM) --pages $(BENCH_SWAP_PAGES) \
		--swap $(BENCH_SWAP_SIZE) --rounds $(BENCH_SWAP_ROUNDS)

# The disk of filebench under make bench-linux: an empty ext2 file system
# as mke2fs makes it, copied afresh for every boot of either kernel
# (tools/bench/disk.sh), where both see it as /dev/vda.
BENCH_DISK_IMG  := $(B)/bench/disk.img
BENCH_DISK_SIZE ?= 2G
$(BENCH_DISK_IMG): | $(call deps,build run)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@.tmp && truncate -s $(BENCH_DISK_SIZE) $@.tmp && \
		mke2fs -q -F -t ext2 -L bench $@.tmp && mv $@.tmp $@

# Linux and Pagoda in QEMU, side by side: each round boots Linux, then Pagoda
# once per configuration in BENCH_PAGODA_CONFIGS (words separated by commas,
# "default" for none: libc=musl|newlib picks the binaries, NAME=VALUE in
# capitals is an environment variable of the benchmarks, anything else a
# kernel option), so machine noise hits all alike. Linux runs the musl
# binaries; libc=musl runs the very same files on Pagoda. Every Pagoda column
# gets a ratio against Linux.
BENCH_PAGODA_CONFIGS ?= libc=musl libc=musl,ptshare=all libc=newlib
bench_pagoda_name = pagoda$(if $(filter default,$(1)),, $(subst $(comma), ,$(1)))
bench_pagoda_cmdline = $(if $(filter default,$(1)),,$(subst $(comma), ,$(1)))
comma := ,
BENCH_SYSTEMS = --system "linux|tools/bench/linux.sh boot $(B) $(BENCH_MEM)" \
	$(foreach c,$(BENCH_PAGODA_CONFIGS),--system "$(call bench_pagoda_name,$(c))|tools/bench/pagoda.sh \
		boot $(B) $(BENCH_MEM) '$(call bench_pagoda_cmdline,$(c))'")

bench-linux: bench-musl bench-pagoda $(B)/kernel.elf user $(BENCH_DISK_IMG) | $(call deps,build newlib musl run bench)
	$(Q)export BENCH_ARGS="$(BENCH_ARGS)" FORKRSS_MIB="$(BENCH_FORKRSS)"; \
		tools/bench/linux.sh prepare $(B) $(B)/bench/musl && \
		tools/bench/linux.sh busybox $(B) && \
		tools/bench/pagoda.sh prepare $(B) $(B)/bench/musl musl $(BUSYBOX_BIN) && \
		tools/bench/pagoda.sh prepare $(B) $(B)/bench/pagoda newlib $(BUSYBOX_BIN)
	BENCH_DISK=$(abspath $(BENCH_DISK_IMG)) $(PYTHON) tools/bench/bench.py run --out $(B)/bench/results \
		--rounds $(or $(BENCH_ROUNDS),$(BENCH_LINUX_ROUNDS)) --ref linux $(BENCH_SYSTEMS)

# Per-phase TSC counters of the kernel (mm/frame/phasetime.h) around user/bench/phases:
# on a kernel built with them (PHASETIME=1, in build-phases/; every other
# kernel compiles them out), with the initrd of $(B).
BENCH_PHASES_ARGS ?= --runs 5
PHASES_B := build-phases
.PHONY: bench-phases phases-kernel
phases-kernel: | $(call deps,build)
	$(Q)$(MAKE) --no-print-directory B=$(PHASES_B) PHASETIME=1 $(PHASES_B)/kernel.elf
bench-phases: bench-musl phases-kernel user | $(call deps,build musl run)
	$(Q)tools/bench/pagoda.sh prepare $(B) $(B)/bench/musl phases
	$(Q)PAGODA_KERNEL=$(PHASES_B)/kernel.elf tools/bench/pagoda.sh boot $(B) $(BENCH_MEM) 'libc=phases phasetime' \
		--init '/bin/phases $(BENCH_PHASES_ARGS)' | tee $(B)/bench/phases.log | \
		sed -n '/^bench  *metric/,$$p'

# make bench: all of Pagoda's configurations (see the top of this file). The
# stamps install the tools before anything is built, so it works from a fresh
# clone.
BENCH_CONFIGS ?= ptshare pv purge kfork
BENCH_KFORK   ?=
BENCH_KFORK_MEM ?= 3G
BENCH_OUT     := $(B)/bench/all
BENCH_NOPV    := build-nopv
.PHONY: bench
bench: | $(call deps,build newlib musl run bench)
	@echo "bench: building newlib (first time: minutes), the kernels, user programs, benchmarks"
	$(Q)$(MAKE) --no-print-directory $(B)/kernel.elf user bench-pagoda
	$(Q)$(MAKE) --no-print-directory B=$(BENCH_NOPV) PARAVIRT=0 $(BENCH_NOPV)/kernel.elf
	$(Q)export BENCH_ARGS="$(BENCH_ARGS)" FORKRSS_MIB="$(BENCH_FORKRSS)"; \
		tools/bench/pagoda.sh prepare $(B) $(B)/bench/pagoda
	$(Q)rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	$(PYTHON) tools/bench/bench.py configs --out $(BENCH_OUT) --build $(B) \
		--nopv-build $(BENCH_NOPV) --configs "$(BENCH_CONFIGS)" --mem $(BENCH_MEM) \
		--rounds $(or $(BENCH_ROUNDS),$(BENCH_ALL_ROUNDS)) --kfork-opts "$(BENCH_KFORK)" \
		--kfork-mem $(BENCH_KFORK_MEM)
	$(Q)$(MAKE) --no-print-directory bench-libshare

# make bench-pv: seed 004 -- lmbench null call, null I/O, fork, exec, sh under
# a PARAVIRT=0 kernel (build-nopv/), pv=indirect and pv=patched, BENCH_PV_ROUNDS
# boots of each (interleaved), BENCH_PV_ARGS for the programs; a fresh
# build/bench/pv/results.csv each time.
BENCH_PV_ARGS   ?= --runs 5 --ms 100
BENCH_PV_ROUNDS ?= 3
BENCH_PV_MEM    ?= 256M
BENCH_PV_BOOT   := tools/bench/pagoda-pv.sh boot
BENCH_PV_INITRD := $(B)/bench/pv/initrd.tar
.PHONY: bench-pv
bench-pv: $(B)/kernel.elf $(B)/initrd.tar $(BENCH_PAGODA_BINS) | $(call deps,build newlib musl run bench)
	$(MAKE) --no-print-directory B=build-nopv PARAVIRT=0 build-nopv/kernel.elf
	tools/bench/pagoda-pv.sh prepare $(B) "$(BENCH_PV_ARGS)"
	rm -f $(B)/bench/pv/results.csv
	$(PYTHON) tools/bench/bench.py run --out $(B)/bench/pv --rounds $(BENCH_PV_ROUNDS) \
		--system "pagoda PARAVIRT=0|$(BENCH_PV_BOOT) build-nopv/kernel.elf $(BENCH_PV_INITRD) '' $(BENCH_PV_MEM)" \
		--system "pagoda pv=indirect|$(BENCH_PV_BOOT) $(B)/kernel.elf $(BENCH_PV_INITRD) pv=indirect $(BENCH_PV_MEM)" \
		--system "pagoda pv=patched|$(BENCH_PV_BOOT) $(B)/kernel.elf $(BENCH_PV_INITRD) pv=patched $(BENCH_PV_MEM)"
