# tools/bench/libshare.mk -- make bench-libshare (included by the top-level
# Makefile): seed 003's table for dynamically linked programs (issue 21).
#
#   make bench-libshare   N different programs running at once (N = 0..32;
#                         sh, cat, sleep, ls, echo, hello, static and dynamic
#                         builds), Pagoda with ptshare=off and ptshare=all and
#                         Debian's Linux kernel in the same QEMU setup
#                         (tools/bench/libshare.sh, user/libshare_stat.c);
#                         prints the table, writes build/bench/libshare/
#                         libshare.csv and libshare.png. Counts, not times:
#                         one boot each, about 4 minutes.
#                         BENCH_LIBSHARE_MEM=512M
BENCH_LIBSHARE_MEM ?= 512M
.PHONY: bench-libshare
bench-libshare: $(B)/kernel.elf user | $(call deps,build newlib musl run bench)
	tools/bench/libshare.sh $(B) $(B)/bench/libshare $(BENCH_LIBSHARE_MEM)
