/* user/sh/main.c -- sh [-i] [-c COMMAND | FILE]
 *
 *   sh               read commands from stdin (interactive if a terminal)
 *   sh -i            interactive even if stdin is not a terminal
 *   sh -c 'CMD'      run CMD and exit with its status
 *   sh FILE          run the lines of FILE
 *
 * The language is described in sh.h. The exit status is that of the last
 * command (or of `exit N`).
 */
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sh.h"

int sh_run_string(const char *line)
{
	static struct token toks[SH_TOKENS_MAX];
	static char arena[SH_ARENA_SIZE];
	char copy[SH_LINE_MAX];
	int n;

	if (strlen(line) >= SH_LINE_MAX) {
		fprintf(stderr, "sh: line too long\n");
		return sh_last_status = 2;
	}
	strcpy(copy, line);	/* the lexer's words point into arena, not line */
	if ((n = sh_lex(copy, toks, SH_TOKENS_MAX, arena)) < 0)
		return sh_last_status = 2;
	return sh_run_line(toks, n);
}

/* reap_jobs: collect finished background jobs without blocking. */
static void reap_jobs(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* run_input: the read-run loop over fd until end of input or `exit`. */
static int run_input(int fd)
{
	char line[SH_LINE_MAX];
	int edit = sh_interactive && !sh_terminal_echoes(fd);

	for (;;) {
		reap_jobs();
		if (sh_interactive) {
			fputs("$ ", stdout);
			fflush(stdout);
		}
		if (sh_readline(fd, line, sizeof line, edit) < 0)
			break;
		sh_run_string(line);
		fflush(stdout);
	}
	if (sh_interactive)
		fputs("exit\n", stdout);
	return sh_last_status;
}

int main(int argc, char **argv)
{
	int i = 1, fd;

	sh_interactive = isatty(0);
	if (i < argc && strcmp(argv[i], "-i") == 0) {
		sh_interactive = 1;
		i++;
	}
	if (i < argc && strcmp(argv[i], "-c") == 0) {
		if (i + 1 >= argc) {
			fprintf(stderr, "sh: -c needs a command\n");
			return 2;
		}
		sh_interactive = 0;
		sh_sigint_setup();
		return sh_run_string(argv[i + 1]);
	}
	if (i < argc) {
		if ((fd = open(argv[i], O_RDONLY)) < 0) {
			fprintf(stderr, "sh: %s: %s\n", argv[i], strerror(errno));
			return 127;
		}
		sh_interactive = 0;
		sh_sigint_setup();
		return run_input(fd);
	}
	sh_sigint_setup();
	return run_input(0);
}
