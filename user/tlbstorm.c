/* user/tlbstorm.c -- count the TLB shootdowns of two workloads, from
 * /proc/vmstat (Pagoda and Linux print the same counter names):
 *
 *   fork    2 processes per CPU, each forking children that write a page
 *           and exit (copy-on-write, exit teardown, kernel stacks freed)
 *   munmap  one thread per CPU spinning on its own memory (the address
 *           space is live on every CPU) while thread 0 maps, touches and
 *           unmaps 16 pages at a time
 *
 * Prints, per workload, the change of nr_tlb_remote_flush (IPI rounds),
 * nr_tlb_remote_flush_received (CPUs targeted), and on Pagoda
 * tlb_shootdown_pages and tlb_shootdown_avoided. Run with tlb=nobatch to
 * see batching's effect (tools/tlb-ipis.sh runs both). Usage:
 * tlbstorm [rounds] (tlbstorm-musl: the same, static musl)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const names[] = { "nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
				     "tlb_shootdown_pages", "tlb_shootdown_avoided" };
#define NNAMES 4

static void counters(long long v[NNAMES])
{
	char key[64];
	long long x;
	memset(v, 0, NNAMES * sizeof(v[0]));
	FILE *f = fopen("/proc/vmstat", "r");
	if (!f) {
		perror("/proc/vmstat");
		exit(1);
	}
	while (fscanf(f, "%63s %lld", key, &x) == 2)
		for (int i = 0; i < NNAMES; i++)
			if (strcmp(key, names[i]) == 0)
				v[i] = x;
	fclose(f);
}

static void report(const char *what, long ops, const long long a[NNAMES], const long long b[NNAMES])
{
	printf("tlbstorm: %-6s %6ld ops: IPI rounds %lld, CPUs targeted %lld, pages %lld, "
	       "avoided %lld\n", what, ops, b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3]);
}

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static void fork_worker(int rounds)
{
	char *p = malloc(4096);
	for (int i = 0; i < rounds; i++) {
		pid_t c = fork();
		if (c == 0) {
			p[0] = 1;
			_exit(0);
		}
		if (c < 0 || waitpid(c, NULL, 0) != c)
			_exit(1);
	}
	_exit(0);
}

static long run_fork(int rounds)
{
	int n = 2 * ncpus();
	for (int i = 0; i < n; i++)
		if (fork() == 0)
			fork_worker(rounds);
	for (int i = 0; i < n; i++)
		wait(NULL);
	return (long)n * rounds;
}

static volatile int stop;

static void *spinner(void *arg)
{
	volatile char *mine = arg;
	while (!stop)
		mine[0]++;
	return NULL;
}

static long run_munmap(int rounds)
{
	int n = ncpus() - 1;
	pthread_t t[64];
	static char spin_mem[64][4096];
	for (int i = 0; i < n && i < 64; i++)
		pthread_create(&t[i], NULL, spinner, spin_mem[i]);
	usleep(100000);   /* let the spinners reach their CPUs */
	for (int i = 0; i < rounds; i++) {
		char *m = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			exit(1);
		for (int k = 0; k < 16; k++)
			m[k * 4096] = 1;
		munmap(m, 16 * 4096);
	}
	stop = 1;
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
	return rounds;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	long long a[NNAMES], b[NNAMES];
	printf("tlbstorm: %d CPUs, %d rounds\n", ncpus(), rounds);
	counters(a);
	long ops = run_fork(rounds);
	counters(b);
	report("fork", ops, a, b);
	counters(a);
	ops = run_munmap(rounds);
	counters(b);
	report("munmap", ops, a, b);
	return 0;
}
