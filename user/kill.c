/* user/kill.c -- kill [-N|-NAME] PID...: send a signal (SIGTERM by default)
 * to each process; NAME is KILL, TERM, INT, HUP, QUIT, ABRT, SEGV, PIPE,
 * ALRM, USR1, USR2 or CHLD. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* parse_signal: "-9", "-KILL", "-TERM", ... -> number; -1 if unknown. */
static int parse_signal(const char *s)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "KILL", SIGKILL }, { "TERM", SIGTERM }, { "INT", SIGINT }, { "HUP", SIGHUP },
		{ "QUIT", SIGQUIT }, { "ABRT", SIGABRT }, { "SEGV", SIGSEGV }, { "PIPE", SIGPIPE },
		{ "ALRM", SIGALRM }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "CHLD", SIGCHLD },
	};
	char *end;
	long n = strtol(s, &end, 10);

	if (*end == '\0' && end != s)
		return (int)n;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	return -1;
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;

	if (argc > 1 && argv[1][0] == '-') {
		if ((sig = parse_signal(argv[1] + 1)) < 0) {
			fprintf(stderr, "kill: unknown signal %s\n", argv[1]);
			return 2;
		}
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: kill [-SIGNAL] PID...\n");
		return 2;
	}
	for (; i < argc; i++) {
		char *end;
		long pid = strtol(argv[i], &end, 10);
		if (*end != '\0' || end == argv[i]) {
			fprintf(stderr, "kill: %s: not a process id\n", argv[i]);
			status = 1;
		} else if (kill((pid_t)pid, sig) < 0) {
			fprintf(stderr, "kill: %s: %s\n", argv[i], strerror(errno));
			status = 1;
		}
	}
	return status;
}
