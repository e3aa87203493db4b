/* user/echo.c -- echo [-n] ARG...: print the arguments separated by spaces,
 * then a newline (none with -n). */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int i = 1, newline = 1;

	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = 0;
		i++;
	}
	for (; i < argc; i++) {
		fputs(argv[i], stdout);
		if (i + 1 < argc)
			putchar(' ');
	}
	if (newline)
		putchar('\n');
	return fflush(stdout) == 0 ? 0 : 1;
}
