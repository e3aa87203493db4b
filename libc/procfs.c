/* libc/procfs.c -- reading /proc files (pagoda/procfs.h). Plain C over
 * open/read, so it builds against newlib and musl and runs on Linux. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pagoda/procfs.h>

char *procfs_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	size_t cap = 4096, n = 0;
	char *buf = fd < 0 ? NULL : malloc(cap);
	ssize_t r = 1;
	while (buf && r > 0) {
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			int e = errno;
			free(buf);
			buf = NULL;
			errno = e;
		} else {
			n += (size_t)r;
		}
	}
	if (fd >= 0)
		close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

/* The start of the value on the line that begins with name and then sep,
 * or NULL. */
static const char *line_value(const char *text, const char *name, char sep)
{
	size_t n = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, name, n) == 0 && l[n] == sep)
			return l + n + 1;
	return NULL;
}

long long procfs_field(const char *text, const char *name)
{
	const char *v = line_value(text, name, ':');
	return v ? strtoll(v, NULL, 10) : -1;
}

long long procfs_counter(const char *text, const char *name)
{
	const char *v = line_value(text, name, ' ');
	return v ? strtoll(v, NULL, 10) : -1;
}

long long procfs_vmstat(const char *name)
{
	char *t = procfs_read("/proc/vmstat", NULL);
	long long v = t ? procfs_counter(t, name) : -1;
	free(t);
	return v;
}

long long procfs_self_stat(int n)
{
	char t[1024], *at;   /* no allocation: the page-fault counts stay the caller's */
	int fd = open("/proc/self/stat", O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, t, sizeof t - 1);
	long long v = -1;
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return -1;
	t[len] = '\0';
	at = strrchr(t, ')');
	for (int f = 3; at && f <= n; f++) {
		at = strchr(at + 1, ' ');
		if (at && f == n)
			v = strtoll(at + 1, NULL, 10);
	}
	return v;
}

char *procfs_string(const char *text, const char *name, char *buf, size_t n)
{
	const char *v = line_value(text, name, ':');
	if (!v || n == 0)
		return NULL;
	while (*v == '\t' || *v == ' ')
		v++;
	size_t len = strcspn(v, "\n");
	len = len < n - 1 ? len : n - 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return buf;
}

/* The 17 numbers after the name on one line of diskstats, if it is the
 * line of disk name: 1, else 0. */
static int diskstats_line(const char *l, const char *name, unsigned long long f[17])
{
	char *end;
	strtoull(l, &end, 10);                 /* major */
	strtoull(end, &end, 10);               /* minor */
	while (*end == ' ')
		end++;
	size_t n = strlen(name);
	if (strncmp(end, name, n) || end[n] != ' ')
		return 0;
	const char *p = end + n;
	for (int i = 0; i < 17; i++, p = end) {
		f[i] = strtoull(p, &end, 10);
		if (end == p)
			return 0;
	}
	return 1;
}

int procfs_diskstats(const char *name, unsigned long long f[17])
{
	char *t = procfs_read("/proc/diskstats", NULL);
	int found = 0;
	for (const char *l = t; l && *l && !found; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		found = diskstats_line(l, name, f);
	free(t);
	return found;
}

/* One line for the thread whose /proc directory is dir: its status's Name,
 * State and PPid and its wchan. */
static void print_task(const char *prefix, const char *pid, const char *dir)
{
	char path[600], name[32] = "?", state[32] = "?", ppid[16] = "?";
	snprintf(path, sizeof path, "%s/status", dir);
	char *st = procfs_read(path, NULL);
	if (!st)
		return;   /* gone meanwhile */
	procfs_string(st, "Name", name, sizeof name);
	procfs_string(st, "State", state, sizeof state);
	procfs_string(st, "PPid", ppid, sizeof ppid);
	free(st);
	snprintf(path, sizeof path, "%s/wchan", dir);
	char *wchan = procfs_read(path, NULL);
	printf("%s pid %s tid %s parent %s (%s) %s, wchan %s\n", prefix, pid,
	       strrchr(dir, '/') + 1, ppid, name, state, wchan && *wchan ? wchan : "?");
	free(wchan);
}

void procfs_print_tasks(const char *prefix)
{
	char self[16], path[540];
	snprintf(self, sizeof self, "%d", (int)getpid());
	DIR *procs = opendir("/proc");
	for (struct dirent *p; procs && (p = readdir(procs));) {
		if (!isdigit((unsigned char)p->d_name[0]) || !strcmp(p->d_name, self))
			continue;
		snprintf(path, sizeof path, "/proc/%s/task", p->d_name);
		DIR *tasks = opendir(path);
		for (struct dirent *t; tasks && (t = readdir(tasks));) {
			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			snprintf(path, sizeof path, "/proc/%s/task/%s", p->d_name, t->d_name);
			print_task(prefix, p->d_name, path);
		}
		if (tasks)
			closedir(tasks);
	}
	if (procs)
		closedir(procs);
	fflush(stdout);
}
