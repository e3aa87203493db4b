/*
 * user/bench/bench_proc.h -- process operations shared by lat_proc,
 * forkrss and suite: fork+exit+wait, fork+execve+wait, paths of programs.
 */
#ifndef BENCH_PROC_H
#define BENCH_PROC_H

#include <stddef.h>

/* Fork a child that exits at once with _exit(0); wait for it. Dies unless the
 * child exited with status 0. `unused` gives it the bench_op_fn signature. */
void bench_fork_exit_wait(void *unused);

/* Fork a child whose standard output is /dev/null and that runs
 * execve(path, argv, environ); wait for it. Dies unless it exited with status 0. */
void bench_spawn_wait(const char *path, char *const argv[]);

/* Write into buf (len bytes) the path of `name` in the directory of the
 * program path `prog` (argv[0]); "./name" when prog has no directory. */
void bench_path_beside(char *buf, size_t len, const char *prog, const char *name);

#endif
