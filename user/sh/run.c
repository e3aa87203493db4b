/* user/sh/run.c -- run a lexed command line: lists, && and ||, pipelines,
 * redirections, background jobs, builtins and program lookup. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sh.h"

#define ARGS_MAX 64

int sh_last_status;
int sh_interactive;
static int children_sigint_default;	/* restore SIG_DFL in foreground children */

void sh_sigint_setup(void)
{
	void (*old)(int) = signal(SIGINT, SIG_IGN);

	children_sigint_default = old != SIG_IGN;	/* started ignoring: keep it */
	if (!sh_interactive && old != SIG_IGN)
		signal(SIGINT, old);
}

void sh_sigint_child(void)
{
	if (children_sigint_default)
		signal(SIGINT, SIG_DFL);
}

void sh_sigint_background(void)
{
	signal(SIGINT, SIG_IGN);
	children_sigint_default = 0;
}

/* status_of: the shell status for a wait status: exit code, 128 + signal. */
static int status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

/* expand: word with every $? mark replaced by the last status (static
 * buffer space from pool, advanced). */
static char *expand(const char *word, char **pool, char *pool_end)
{
	char *out = *pool, *p = out;

	for (; *word; word++) {
		if (*word == SH_STATUS_MARK)
			p += snprintf(p, (size_t)(pool_end - p), "%d", sh_last_status);
		else if (p < pool_end - 1)
			*p++ = *word;
		if (p >= pool_end - 1)
			break;
	}
	*p++ = '\0';
	*pool = p;
	return out;
}

/* redirect: apply one redirection (kind, file) to this process; 0 or -1
 * after a message. */
static int redirect(enum tok_kind kind, const char *file)
{
	int fd, target = kind == T_IN ? 0 : 1;
	int flags = kind == T_IN ? O_RDONLY
		  : kind == T_OUT ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY | O_CREAT | O_APPEND;

	if ((fd = open(file, flags, 0644)) < 0) {
		fprintf(stderr, "sh: %s: %s\n", file, strerror(errno));
		return -1;
	}
	if (fd != target) {
		dup2(fd, target);
		close(fd);
	}
	return 0;
}

/* run_builtin: if argv is a builtin, run it in this process and return its
 * status; -1 if it is not one. */
static int run_builtin(char **argv, int argc)
{
	if (strcmp(argv[0], "exit") == 0) {
		fflush(stdout);
		exit(argc > 1 ? atoi(argv[1]) : sh_last_status);
	}
	if (strcmp(argv[0], "cd") == 0) {
		const char *dir = argc > 1 ? argv[1] : "/";
		if (chdir(dir) < 0) {
			fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
			return 1;
		}
		return 0;
	}
	return -1;
}

/* run_command: in this (child) process, apply the redirections of command
 * t[0..n) and exec it; never returns. */
static void run_command(struct token *t, int n)
{
	char *argv[ARGS_MAX + 1], pool[2 * SH_LINE_MAX], *p = pool;
	int argc = 0, status;

	for (int i = 0; i < n; i++) {
		if (t[i].kind != T_WORD) {	/* redirection: the next token is its file */
			if (redirect(t[i].kind, expand(t[i + 1].word, &p, pool + sizeof pool)) < 0)
				_exit(1);
			i++;
		} else if (argc < ARGS_MAX) {
			argv[argc++] = expand(t[i].word, &p, pool + sizeof pool);
		}
	}
	argv[argc] = NULL;
	if (argc == 0)
		_exit(0);
	if ((status = run_builtin(argv, argc)) >= 0)
		_exit(status);
	execvp(argv[0], argv);
	fprintf(stderr, "sh: %s: %s\n", argv[0], errno == ENOENT ? "not found" : strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* check_command: a command must not be empty and each redirection needs a
 * file word; 0, or -1 after a syntax error message. */
static int check_command(struct token *t, int n)
{
	if (n == 0) {
		fprintf(stderr, "sh: syntax error: empty command\n");
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (t[i].kind != T_WORD && (i + 1 == n || t[i + 1].kind != T_WORD)) {
			fprintf(stderr, "sh: syntax error: redirection without a file\n");
			return -1;
		}
	return 0;
}

/* simple_builtin: a lone command that is a builtin runs in the shell
 * itself (so `exit` and `cd` affect it); its status, or -1 if not one. */
static int simple_builtin(struct token *t, int n)
{
	char *argv[ARGS_MAX + 1], pool[2 * SH_LINE_MAX], *p = pool;
	int argc = 0;

	for (int i = 0; i < n; i++) {
		if (t[i].kind != T_WORD)
			return -1;	/* redirected builtins run in a child */
		if (argc < ARGS_MAX)
			argv[argc++] = expand(t[i].word, &p, pool + sizeof pool);
	}
	argv[argc] = NULL;
	return argc ? run_builtin(argv, argc) : -1;
}

/* count_kind: how many tokens of t[0..n) are of kind k. */
static int count_kind(const struct token *t, int n, enum tok_kind k)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += t[i].kind == k;
	return c;
}

/* spawn_pipeline: commands of t[0..n) joined by '|'; each runs in its own
 * child, stdout of one into stdin of the next. Waits for all; the status is
 * the last command's. */
static int spawn_pipeline(struct token *t, int n)
{
	pid_t pids[ARGS_MAX];
	int ncmd = 0, in = -1, start = 0, status = 1, wstatus;

	for (int i = 0; i <= n; i++) {
		int fds[2] = { -1, -1 };
		pid_t pid;

		if (i < n && t[i].kind != T_PIPE)
			continue;
		if (i < n && pipe(fds) < 0) {
			fprintf(stderr, "sh: pipe: %s\n", strerror(errno));
			break;
		}
		fflush(stdout);
		if ((pid = fork()) == 0) {
			sh_sigint_child();
			if (in >= 0) {
				dup2(in, 0);
				close(in);
			}
			if (fds[1] >= 0) {
				dup2(fds[1], 1);
				close(fds[1]);
				close(fds[0]);
			}
			run_command(t + start, i - start);
		}
		if (in >= 0)
			close(in);
		if (fds[1] >= 0)
			close(fds[1]);
		in = fds[0];
		start = i + 1;
		if (pid < 0) {
			fprintf(stderr, "sh: fork: %s\n", strerror(errno));
			break;
		}
		pids[ncmd++] = pid;
	}
	if (in >= 0)
		close(in);
	for (int k = 0; k < ncmd; k++)
		if (waitpid(pids[k], &wstatus, 0) == pids[k] && k == ncmd - 1)
			status = status_of(wstatus);
	return status;
}

/* run_pipeline: check the syntax of pipeline t[0..n), run a lone builtin
 * in the shell itself, anything else in children. */
static int run_pipeline(struct token *t, int n)
{
	int start = 0, status;

	if (count_kind(t, n, T_PIPE) >= ARGS_MAX) {
		fprintf(stderr, "sh: pipeline too long\n");
		return 2;
	}
	for (int i = 0; i <= n; i++) {
		if (i < n && t[i].kind != T_PIPE)
			continue;
		if (check_command(t + start, i - start) < 0)
			return 2;
		start = i + 1;
	}
	if (count_kind(t, n, T_PIPE) == 0 && (status = simple_builtin(t, n)) >= 0)
		return status;
	return spawn_pipeline(t, n);
}

/* run_and_or: pipelines of t[0..n) joined by && and ||, left to right: a
 * pipeline after && runs only if the status so far is 0, after || only if
 * it is not. Each status is published in sh_last_status as it comes. */
static int run_and_or(struct token *t, int n)
{
	int start = 0;
	enum tok_kind op = T_SEMI;	/* "run unconditionally" for the first */

	for (int i = 0; i <= n; i++) {
		if (i < n && t[i].kind != T_AND && t[i].kind != T_OR)
			continue;
		if (op == T_SEMI || (op == T_AND) == (sh_last_status == 0))
			sh_last_status = run_pipeline(t + start, i - start);
		else if (i == start)
			return sh_last_status = 2;	/* "a && || b" */
		if (i < n)
			op = t[i].kind;
		start = i + 1;
	}
	return sh_last_status;
}

/* run_background: run and_or list t[0..n) in a child without waiting;
 * status 0. The main loop reaps finished jobs. */
static int run_background(struct token *t, int n)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		sh_sigint_background();
		exit(run_and_or(t, n));
	}
	if (pid < 0) {
		fprintf(stderr, "sh: fork: %s\n", strerror(errno));
		return 1;
	}
	if (sh_interactive)
		fprintf(stderr, "[%d]\n", (int)pid);
	return 0;
}

int sh_run_line(struct token *toks, int n)
{
	int start = 0;

	for (int i = 0; i < n; i++) {
		if (toks[i].kind != T_SEMI && toks[i].kind != T_AMP)
			continue;
		if (i == start) {
			fprintf(stderr, "sh: syntax error near '%s'\n",
				toks[i].kind == T_SEMI ? ";" : "&");
			return sh_last_status = 2;
		}
		if (toks[i].kind == T_AMP)
			sh_last_status = run_background(toks + start, i - start);
		else
			run_and_or(toks + start, i - start);
		start = i + 1;
	}
	if (start < n)
		run_and_or(toks + start, n - start);
	return sh_last_status;
}
