/*
 * user/bench/suite.c -- run every benchmark program once, in order, each in
 * its own child process; the driver for Linux (from the initramfs's /init),
 * Pagoda (from its init) and the host smoke test, so no shell is needed.
 *
 * Prints "BENCHSTART <program>..." first, "BENCHPROG <program>" before each
 * program, passes the programs' own BENCH lines through, "BENCHFAIL <program>
 * exit=N|signal=N|not-started" for a program that did not exit 0, and
 * "BENCHDONE" at the end
 * (tools/bench/bench.py reads these for progress and checks).
 *
 * Usage: suite [--dir DIR] [--only PROG,...] [--forkrss "MIB..."]
 *              [--args PROG="ARGS"]... [--env NAME=VALUE]... [COMMON OPTIONS...]
 * DIR (default: this program's directory) holds the programs; --only runs
 * just those programs, in that order (default: all of them); forkrss gets
 * the sizes (default "0 16 64"; commas work too: 0,16,64); --args gives one
 * program extra arguments (e.g. ebizzy="-m malloc"); --env sets an
 * environment variable for every program (e.g. MALLOC_PURGE=free, a
 * configuration of Pagoda's malloc); every other argument (--quick, --runs N,
 * --ms N) is passed to every program.
 */
#include "bench_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define PATH_LEN 512
#define MAX_ARGS 64

static const char *const programs[] = {
	"lat_syscall", "lat_proc", "lat_pagefault", "forkrss", "madvbench", "ebizzy", "mallocbench",
	"ptshare_stat", "filebench", "replace",
};
#define NPROGRAMS (sizeof programs / sizeof programs[0])

/* Write dir/name into buf (PATH_LEN bytes); exits when it does not fit. */
static void join_path(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_LEN, "%s/%s", dir, name) >= PATH_LEN) {
		fprintf(stderr, "suite: path too long: %s/%s\n", dir, name);
		exit(2);
	}
}

/* Run DIR/name with args then common; returns its wait status, or -1 when it
 * could not be started. */
static int run_program(const char *dir, const char *name, char **args, int nargs,
		       char **common, int ncommon)
{
	char path[PATH_LEN], *argv[MAX_ARGS];
	int argc = 0, i, status;
	pid_t pid;

	join_path(path, dir, name);
	argv[argc++] = path;
	for (i = 0; i < nargs && argc < MAX_ARGS - 1; i++)
		argv[argc++] = args[i];
	for (i = 0; i < ncommon && argc < MAX_ARGS - 1; i++)
		argv[argc++] = common[i];
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execve(path, argv, environ);
		perror(path);
		_exit(127);
	}
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

/* Set the environment variable of a NAME=VALUE argument; exits when it has
 * no '='. */
static void set_env(char *assignment)
{
	char *eq = strchr(assignment, '=');

	if (!eq || eq == assignment) {
		fprintf(stderr, "suite: --env wants NAME=VALUE, got %s\n", assignment);
		exit(2);
	}
	*eq = '\0';
	if (setenv(assignment, eq + 1, 1) != 0) {
		perror("suite: setenv");
		exit(2);
	}
	*eq = '=';
}

/* Split `s` in place at spaces and commas into at most max words; returns
 * the count. */
static int split_words(char *s, char **words, int max)
{
	int n = 0;
	char *w;

	for (w = strtok(s, " ,"); w && n < max; w = strtok(NULL, " ,"))
		words[n++] = w;
	return n;
}

/* The index of program `name` in programs[]; exits when there is none. */
static size_t program_index(const char *name)
{
	size_t p;

	for (p = 0; p < NPROGRAMS; p++)
		if (!strcmp(programs[p], name))
			return p;
	fprintf(stderr, "suite: no benchmark program %s\n", name);
	exit(2);
}

/* Extra arguments of one program (--args), split in place into words. */
struct extra_args {
	char *words[MAX_ARGS];
	int n;
};

/* Store a PROG=ARGS argument's words as the extra arguments of PROG. */
static void set_args(struct extra_args *extra, char *assignment)
{
	char *eq = strchr(assignment, '=');

	if (!eq) {
		fprintf(stderr, "suite: --args wants PROG=ARGS, got %s\n", assignment);
		exit(2);
	}
	*eq = '\0';
	extra = &extra[program_index(assignment)];
	extra->n = split_words(eq + 1, extra->words, MAX_ARGS);
}

/* Append n words to args (at most MAX_ARGS in all); returns the new count. */
static int append_words(char **args, int nargs, char *const *words, int n)
{
	int i;

	for (i = 0; i < n && nargs < MAX_ARGS; i++)
		args[nargs++] = words[i];
	return nargs;
}

/* Parse the suite's own options, then run every program (or those of --only). */
int main(int argc, char **argv)
{
	char dir[PATH_LEN], sizes_buf[PATH_LEN] = "0 16 64", hello[PATH_LEN];
	char *common[MAX_ARGS], *sizes[MAX_ARGS], *hello_arg[1] = { hello }, *only[NPROGRAMS];
	static struct extra_args extra[NPROGRAMS];
	size_t order[NPROGRAMS], norder = NPROGRAMS, p;
	int ncommon = 0, nsizes, i, failed = 0;

	for (p = 0; p < NPROGRAMS; p++)
		order[p] = p;
	bench_path_beside(dir, sizeof dir, argv[0], ".");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			snprintf(dir, sizeof dir, "%s", argv[++i]);
		else if (!strcmp(argv[i], "--forkrss") && i + 1 < argc)
			snprintf(sizes_buf, sizeof sizes_buf, "%s", argv[++i]);
		else if (!strcmp(argv[i], "--env") && i + 1 < argc)
			set_env(argv[++i]);
		else if (!strcmp(argv[i], "--args") && i + 1 < argc)
			set_args(extra, argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			for (norder = (size_t)split_words(argv[++i], only, NPROGRAMS), p = 0; p < norder; p++)
				order[p] = program_index(only[p]);
		else if (ncommon < MAX_ARGS)
			common[ncommon++] = argv[i];
	}
	nsizes = split_words(sizes_buf, sizes, MAX_ARGS);
	join_path(hello, dir, "proc_hello");
	printf("BENCHSTART");
	for (p = 0; p < norder; p++)
		printf(" %s", programs[order[p]]);
	printf("\n");
	for (p = 0; p < norder; p++) {
		const char *name = programs[order[p]];
		char *args[MAX_ARGS];
		int nargs = 0, st;

		printf("BENCHPROG %s\n", name);
		if (!strcmp(name, "lat_proc"))
			nargs = append_words(args, nargs, hello_arg, 1);
		else if (!strcmp(name, "forkrss"))
			nargs = append_words(args, nargs, sizes, nsizes);
		nargs = append_words(args, nargs, extra[order[p]].words, extra[order[p]].n);
		st = run_program(dir, name, args, nargs, common, ncommon);
		if (st == -1)
			printf("BENCHFAIL %s not-started\n", name);
		else if (WIFSIGNALED(st))
			printf("BENCHFAIL %s signal=%d\n", name, WTERMSIG(st));
		else if (WEXITSTATUS(st) != 0)
			printf("BENCHFAIL %s exit=%d\n", name, WEXITSTATUS(st));
		failed |= st != 0;
	}
	printf("BENCHDONE\n");
	return failed;
}
