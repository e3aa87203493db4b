/* kernel/forkbench/bootmode.h -- kernel-run benchmarks chosen by bench= (today:
 * bench=fork, the fork benchmark of kernel/forkbench/measure.h). */
#ifndef KERNEL_BENCH_BOOTMODE_H
#define KERNEL_BENCH_BOOTMODE_H

/* Run the benchmark named by bench=, print its BENCH lines (suite
 * protocol, tools/bench/bench.py) and table on the console, and exit QEMU:
 * pass when every run's check held, fail otherwise or for a bad option.
 * Options: bench_sizes=MiB,... (default 1,4,16,64,256,1024), bench_runs=N
 * (default 5, 3 from 512 MiB), bench_strategies=copy,cow,share,sharepd (default
 * all). */
__attribute__((noreturn)) void bench_run_selected(void);

#endif
