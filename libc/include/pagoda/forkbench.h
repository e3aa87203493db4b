/* pagoda/forkbench.h -- the in-kernel fork benchmark (issue 8).
 *
 * long pagoda_forkbench(const struct pagoda_forkbench_req *req,
 *                       struct pagoda_forkbench_result *res)
 *   System call 1004 (SYS_pagoda_forkbench). For each size in req, the
 *   kernel builds an address space with that many MiB of anonymous memory,
 *   every page written, then for each strategy asked for duplicates it
 *   (what fork does to memory) and tears the copy down (what the child's
 *   exit does), req->runs times, timing both with the TSC. It checks every
 *   run (the copy reads what the parent wrote, frames distinct or shared as
 *   the strategy says, the free-frame count back afterwards) and fills *res.
 *   It runs inside the call: about 100 s for 1..1024 MiB under QEMU TCG,
 *   during which no other process runs.
 *   The same code runs at boot with the kernel option bench=fork
 *   (kernel/forkbench/bootmode.c); /bin/kforkbench is its user front end.
 *
 *   Returns 0 (some cells may still be PAGODA_FB_SKIPPED: not enough free
 *   memory for that size and strategy), or -1 with errno EINVAL (nsizes 0 or
 *   above PAGODA_FB_MAX_SIZES, a size 0 or above PAGODA_FB_MAX_MIB, runs
 *   above PAGODA_FB_MAX_RUNS, unknown strategy bits, reserved fields not 0),
 *   EFAULT (bad req or res), ENOMEM (not one cell fitted in free memory),
 *   ENOSYS (not Pagoda).
 *
 * Strategies (bit 1 << PAGODA_FB_* in req->strategies; 0 means all):
 *   copy   eager copy: new frames, contents copied, no copy-on-write
 *   cow    classic copy-on-write: page tables copied (ptshare=off's fork)
 *   share  page-table pages shared (ptshare=fork/all's fork)
 *   sharepd  page-directory pages shared where a 1 GiB allows (ptshare=pd's fork)
 *
 * Text form (kernel/forkbench/format.c, shared by the kernel and kforkbench),
 * the suite protocol of tools/bench/bench.py, times in microseconds:
 *   BENCH kfork <strategy>_<N>M us median=.. min=.. max=.. runs=..   fork+exit
 *   BENCH kfork_fork ...   BENCH kfork_exit ...   (each half alone)
 *   BENCH kfork_tsc <strategy>_<N>M cycles ...    (fork+exit in TSC cycles)
 *   BENCHSKIP kfork <strategy>_<N>M: <why>        BENCHFAIL kfork ...: <why>
 */
#ifndef PAGODA_FORKBENCH_H
#define PAGODA_FORKBENCH_H

#include <stdint.h>

/* Strategy numbers: the same as the kernel's enum fork_strategy. */
#define PAGODA_FB_COPY 0
#define PAGODA_FB_COW 1
#define PAGODA_FB_SHARE 2
#define PAGODA_FB_SHAREPD 3
#define PAGODA_FB_NSTRATEGIES 4

#define PAGODA_FB_ALL ((1u << PAGODA_FB_NSTRATEGIES) - 1)
#define PAGODA_FB_MAX_SIZES 12
#define PAGODA_FB_MAX_MIB (64u * 1024)   /* 64 GiB */
#define PAGODA_FB_MAX_RUNS 64

/* pagoda_forkbench_cell.status */
#define PAGODA_FB_OK      0   /* measured, every run checked             */
#define PAGODA_FB_SKIPPED 1   /* not enough free memory (note says why)   */
#define PAGODA_FB_FAILED  2   /* a run's check or allocation failed (note) */
#define PAGODA_FB_UNASKED 3   /* strategy not in req->strategies          */

struct pagoda_forkbench_req {
	uint32_t nsizes;                       /* 1..PAGODA_FB_MAX_SIZES        */
	uint32_t runs;                         /* per cell; 0: 5, 3 from 512 MiB */
	uint32_t strategies;                   /* 1 << PAGODA_FB_*; 0 = all     */
	uint32_t reserved;                     /* 0                             */
	uint32_t size_mib[PAGODA_FB_MAX_SIZES];
};

/* One measured quantity over the runs of a cell. */
struct pagoda_forkbench_stat {
	uint64_t median, min, max;
};

/* One size and strategy. Times in nanoseconds, cycles of the TSC. */
struct pagoda_forkbench_cell {
	int32_t status;                        /* PAGODA_FB_*                   */
	uint32_t runs;                         /* runs measured                 */
	struct pagoda_forkbench_stat fork_ns;  /* duplicate the address space   */
	struct pagoda_forkbench_stat exit_ns;  /* tear the copy down            */
	struct pagoda_forkbench_stat total_ns; /* both, per run                 */
	struct pagoda_forkbench_stat total_cycles;
	char note[64];                         /* skip/failure reason, or ""    */
};

struct pagoda_forkbench_result {
	uint32_t nsizes;                       /* = req->nsizes                 */
	uint32_t reserved;
	uint64_t tsc_khz;                      /* TSC frequency                 */
	uint32_t size_mib[PAGODA_FB_MAX_SIZES];
	struct pagoda_forkbench_cell cell[PAGODA_FB_MAX_SIZES][PAGODA_FB_NSTRATEGIES];
};

/* ---- text form (kernel/forkbench/format.c) ---- */

/* printf-like output: printk in the kernel, printf in user space. */
typedef int (*pagoda_fb_print_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse "1,16,64" (MiB) into req->size_mib/nsizes. 0, or -1 for an empty
 * list, a non-number, a size out of 1..PAGODA_FB_MAX_MIB or too many. */
int pagoda_fb_parse_sizes(const char *list, struct pagoda_forkbench_req *req);

/* Parse "copy,share" into a strategy mask; 0 for an unknown name. */
uint32_t pagoda_fb_parse_strategies(const char *list);

/* The suite lines: BENCHSTART kfork, BENCHPROG kfork (start), then per
 * size and strategy the BENCH lines or a BENCHSKIP/BENCHFAIL line (size),
 * then BENCHDONE (done). print_bench prints all three parts. */
void pagoda_fb_print_start(pagoda_fb_print_fn out);
void pagoda_fb_print_size(const struct pagoda_forkbench_result *res, uint32_t i,
			  pagoda_fb_print_fn out);
void pagoda_fb_print_done(pagoda_fb_print_fn out);
void pagoda_fb_print_bench(const struct pagoda_forkbench_result *res, pagoda_fb_print_fn out);

/* The readable table: sizes as rows, strategies as columns: median
 * fork+exit time in microseconds and TSC Mcycles, then fork and exit alone. */
void pagoda_fb_print_table(const struct pagoda_forkbench_result *res, pagoda_fb_print_fn out);

/* Did every asked cell pass (no PAGODA_FB_FAILED)? */
int pagoda_fb_all_ok(const struct pagoda_forkbench_result *res);

#endif
