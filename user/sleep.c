/* user/sleep.c -- sleep SECONDS: pause (whole seconds or decimals, "0.5"). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	char *end;
	double s;
	struct timespec ts;

	if (argc != 2 || (s = strtod(argv[1], &end)) < 0 || *end != '\0' || end == argv[1]) {
		fprintf(stderr, "usage: sleep SECONDS\n");
		return 2;
	}
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	return nanosleep(&ts, NULL) == 0 ? 0 : 1;
}
