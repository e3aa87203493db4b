/* user/initsignals.c -- init's signal rules, checked as pid 1.
 *
 * Linux marks init unkillable (SIGNAL_UNKILLABLE): a signal that would take
 * its default action is dropped, whoever sends it, SIGKILL included; one
 * init has a handler for is delivered. kill() itself succeeds either way.
 * Run as init (make test's init-signals suite on Pagoda, `unshare -pf` on
 * the Linux host: pid 1 of a new pid namespace); exits 0 when every rule
 * held, 1 naming the first one that did not.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_count++;
}

static int fail(const char *what)
{
	printf("initsignals: FAIL %s (errno %d)\n", what, errno);
	return 1;
}

/* The child: every kill of pid 1 succeeds; exit status = failed kills. */
static int send_all(void)
{
	static const int sigs[] = { SIGUSR1, SIGTERM, SIGINT, SIGHUP, SIGKILL };
	int bad = 0;
	for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (kill(1, sigs[i]) != 0) {
			printf("initsignals: kill(1, %d): errno %d\n", sigs[i], errno);
			bad++;
		}
	return bad;
}

int main(void)
{
	struct sigaction a;
	int status;

	if (getpid() != 1)
		return fail("not pid 1: run me as init");
	memset(&a, 0, sizeof a);
	a.sa_handler = on_usr1;
	sigemptyset(&a.sa_mask);
	if (sigaction(SIGUSR1, &a, NULL) != 0)
		return fail("sigaction");
	pid_t pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0)
		_exit(send_all());
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fail("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fail("kill(1, sig) must return 0 for every signal");
	if (usr1_count != 1)
		return fail("the handled SIGUSR1 must arrive exactly once");
	printf("initsignals: pid 1 survived SIGTERM, SIGINT, SIGHUP and SIGKILL; "
	       "its SIGUSR1 handler ran once\n");
	printf("TEST init.signals PASS\n");
	return 0;
}
