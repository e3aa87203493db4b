/* user/ls.c -- ls [-l] [PATH...]: list directories (names sorted, one per
 * line; with -l also type and size). A PATH that is not a directory is
 * listed by itself. Exit 1 if any PATH could not be listed. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int long_format;

/* show: one output line for name, whose full path is path. */
static void show(const char *path, const char *name)
{
	struct stat st;

	if (!long_format) {
		puts(name);
		return;
	}
	if (stat(path, &st) < 0) {
		printf("?          ? %s\n", name);
		return;
	}
	printf("%c %10lld %s\n", S_ISDIR(st.st_mode) ? 'd' : S_ISCHR(st.st_mode) ? 'c' : '-',
	       (long long)st.st_size, name);
}

/* by_name: qsort order of two name pointers. */
static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list_dir: print the sorted entries of directory path (without . and ..);
 * 0, or -1 if it cannot be opened or read. */
static int list_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = realloc(names, cap * sizeof *names);
		}
		if (names == NULL || (names[n++] = strdup(e->d_name)) == NULL) {
			fprintf(stderr, "ls: out of memory\n");
			exit(1);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char full[512];
		snprintf(full, sizeof full, "%s/%s", path, names[i]);
		show(full, names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

/* list: one command-line operand. */
static int list(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		show(path, path);
		return 0;
	}
	if (list_dir(path) < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, status = 0, many;

	if (argc > 1 && strcmp(argv[1], "-l") == 0) {
		long_format = 1;
		i++;
	}
	if (i == argc)
		return list(".");
	many = argc - i > 1;
	for (; i < argc; i++) {
		if (many)
			printf("%s:\n", argv[i]);
		status |= list(argv[i]);
	}
	return status;
}
