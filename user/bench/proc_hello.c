/*
 * user/bench/proc_hello.c -- the program lat_proc executes (lmbench's hello): one
 * write to standard output, then exit 0. Static and tiny on purpose.
 */
#include <unistd.h>

/* Print the greeting; the exit status tells lat_proc the exec worked. */
int main(void)
{
	static const char msg[] = "Hello world\n";

	return write(STDOUT_FILENO, msg, sizeof msg - 1) == (ssize_t)(sizeof msg - 1) ? 0 : 1;
}
