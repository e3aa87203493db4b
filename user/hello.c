/* user/hello.c -- the smallest useful program: prints "hello" and exits 0.
 * The exec benchmarks run it, so it uses write(2), not stdio. */
#include <unistd.h>

int main(void)
{
	static const char msg[] = "hello\n";

	return write(1, msg, sizeof msg - 1) == sizeof msg - 1 ? 0 : 1;
}
