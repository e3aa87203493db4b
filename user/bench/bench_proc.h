/*
 * user/bench/bench_proc.h -- process operations shared by lat_proc and
 * forkrss: fork+exit+wait and fork+execve+wait.
 */
#ifndef BENCH_PROC_H
#define BENCH_PROC_H

/* Fork a child that exits at once with _exit(0); wait for it. Dies unless the
 * child exited with status 0. `unused` gives it the bench_op_fn signature. */
void bench_fork_exit_wait(void *unused);

/* Fork a child whose standard output is /dev/null and that runs
 * execv(path, argv); wait for it. Dies unless it exited with status 0. */
void bench_spawn_wait(const char *path, char *const argv[]);

#endif
