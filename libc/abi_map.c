/* libc/abi_map.c -- translate newlib's constants to Linux's and back.
 *
 * newlib is built for a bare target, so its <fcntl.h>, <signal.h> and
 * <time.h> use BSD-style numbers. Pagoda speaks the Linux ABI. The glue
 * calls these translators at the system call boundary; nothing else in
 * libc/ or user/ ever sees a Linux number. Contracts: linux_abi.h.
 */
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include "linux_abi.h"

/* open(2) flag bits: newlib's bit -> Linux's bit. */
static const struct { int libc_bit; long linux_bit; } open_bits[] = {
	{ O_CREAT, LINUX_O_CREAT },       { O_EXCL, LINUX_O_EXCL },
	{ O_NOCTTY, LINUX_O_NOCTTY },     { O_TRUNC, LINUX_O_TRUNC },
	{ O_APPEND, LINUX_O_APPEND },     { O_NONBLOCK, LINUX_O_NONBLOCK },
	{ O_SYNC, LINUX_O_SYNC },         { O_DIRECTORY, LINUX_O_DIRECTORY },
	{ O_NOFOLLOW, LINUX_O_NOFOLLOW }, { O_CLOEXEC, LINUX_O_CLOEXEC },
};

long open_flags_to_linux(int flags)
{
	long out = flags & O_ACCMODE;	/* O_RDONLY/O_WRONLY/O_RDWR agree */
	int known = O_ACCMODE;

	for (unsigned i = 0; i < sizeof open_bits / sizeof open_bits[0]; i++) {
		known |= open_bits[i].libc_bit;
		if (flags & open_bits[i].libc_bit)
			out |= open_bits[i].linux_bit;
	}
	return (flags & ~known) ? -1 : out;
}

int open_flags_from_linux(long flags)
{
	int out = (int)(flags & O_ACCMODE);

	for (unsigned i = 0; i < sizeof open_bits / sizeof open_bits[0]; i++)
		if (flags & open_bits[i].linux_bit)
			out |= open_bits[i].libc_bit;
	return out;
}

int clock_to_linux(int clock_id)
{
	switch (clock_id) {
	case CLOCK_REALTIME:           return LINUX_CLOCK_REALTIME;
	case CLOCK_MONOTONIC:          return LINUX_CLOCK_MONOTONIC;
	case CLOCK_PROCESS_CPUTIME_ID: return LINUX_CLOCK_PROCESS_CPUTIME_ID;
	default:                       return -1;
	}
}

/* Signal numbers: newlib's name -> Linux's number (signal(7), x86-64). */
static const struct { int libc_no, linux_no; } signals[] = {
	{ SIGHUP, 1 },   { SIGINT, 2 },    { SIGQUIT, 3 },    { SIGILL, 4 },
	{ SIGTRAP, 5 },  { SIGABRT, 6 },   { SIGBUS, 7 },     { SIGFPE, 8 },
	{ SIGKILL, 9 },  { SIGUSR1, 10 },  { SIGSEGV, 11 },   { SIGUSR2, 12 },
	{ SIGPIPE, 13 }, { SIGALRM, 14 },  { SIGTERM, 15 },   { SIGCHLD, 17 },
	{ SIGCONT, 18 }, { SIGSTOP, 19 },  { SIGTSTP, 20 },   { SIGTTIN, 21 },
	{ SIGTTOU, 22 }, { SIGURG, 23 },   { SIGXCPU, 24 },   { SIGXFSZ, 25 },
	{ SIGVTALRM, 26 }, { SIGPROF, 27 }, { SIGWINCH, 28 }, { SIGIO, 29 },
	{ SIGSYS, 31 },
};

int signal_to_linux(int sig)
{
	if (sig == 0)
		return 0;	/* kill(pid, 0): existence check */
	for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++)
		if (signals[i].libc_no == sig)
			return signals[i].linux_no;
	return -1;
}

int signal_from_linux(int sig)
{
	for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++)
		if (signals[i].linux_no == sig)
			return signals[i].libc_no;
	return sig;	/* a Linux signal newlib has no name for: keep it */
}

/* A wait status: exit code << 8 (low byte 0), or the terminating signal in
 * the low 7 bits (0x80 = core dumped), or 0x7f with the stop signal << 8.
 * The layout is the same in both ABIs; only a signal number may differ. */
int wait_status_from_linux(int status)
{
	int low = status & 0x7f;

	if (low == 0)
		return status;
	if (low == 0x7f)
		return (status & ~0xff00) | (signal_from_linux((status >> 8) & 0xff) << 8);
	return (status & ~0x7f) | signal_from_linux(low);
}
