/* user/init.c -- the first process: init [CMDFILE]
 *
 * 1. Makes sure fds 0, 1 and 2 are open, on /dev/console if they are not.
 * 2. Command mode: if CMDFILE (default /run/etc/init.cmd when the root is
 *    on a disk and the initrd is at /run, else /etc/init.cmd: written by
 *    `make run CMD='...'`) exists, runs its first line through `sh -c`,
 *    reaps every process until that shell ends, and exits with the shell's
 *    status. Pagoda's kernel takes the exit of init as the end of the run:
 *    it powers the machine off and reports that status (isa-debug-exit).
 * 2a. Before either: with swap=PATH on the kernel's command line (`make run
 *    SWAP=256M` attaches a swap disk and passes swap=/dev/vdb), turns that
 *    swap area on, as a boot script's `swapon -a` would.
 * 3. Otherwise starts an interactive shell on the console and restarts it
 *    whenever it ends, forever.
 * Either way init reaps orphans: every process whose parent died becomes
 * init's child, and init's wait loop collects it.
 *
 * The shell is <dir>/sh where dir is init's own directory (/bin on Pagoda),
 * and children get PATH=<dir>:/run/bin (the initrd's programs beside a
 * disk root: busybox, EXTRA), so the same binaries also work from a build
 * tree on Linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONSOLE "/dev/console"
#define CMD_FILE "/etc/init.cmd"
#define RUN_DIR "/run"           /* the initrd beside a disk root (make run): its etc/, bin/ */

static char bindir[200] = "/bin";

/* open_console: open fds 0..2 on the console where they are closed. */
static void open_console(void)
{
	struct stat st;

	for (int fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st) == 0 || errno != EBADF)
			continue;
		int c = open(CONSOLE, O_RDWR);
		if (c >= 0 && c != fd) {
			dup2(c, fd);
			close(c);
		}
	}
}

/* spawn_shell: start <bindir>/sh with the given arguments (NULL-ended,
 * after argv[0]); returns its pid or -1. */
static pid_t spawn_shell(char *const args[])
{
	static char path[256], pathvar[216];
	char *argv[4] = { "sh", NULL, NULL, NULL };
	char *envp[] = { pathvar, "HOME=/", NULL };
	pid_t pid;

	snprintf(path, sizeof path, "%s/sh", bindir);
	snprintf(pathvar, sizeof pathvar, "PATH=%s:" RUN_DIR "/bin", bindir);
	for (int i = 0; i < 2 && args[i]; i++)
		argv[i + 1] = args[i];
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execve(path, argv, envp);
		fprintf(stderr, "init: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "init: fork: %s\n", strerror(errno));
	return pid;
}

/* wait_for: reap children (orphans included) until pid ends; its status. */
static int wait_for(pid_t pid)
{
	int status;
	pid_t got;

	while ((got = wait(&status)) != pid)
		if (got < 0 && errno == ECHILD)
			return -1;
	return status;
}

/* read_command: the first line of path into buf; 0, or -1 if no file. */
static int read_command(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* run_command: command mode; returns the exit status for init. */
static int run_command(char *cmd)
{
	char *args[] = { "-c", cmd, NULL };
	pid_t pid = spawn_shell(args);
	int status = pid < 0 ? -1 : wait_for(pid);

	if (status < 0)
		return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* run_console: interactive mode; never returns. */
static void run_console(void)
{
	char *args[] = { "-i", NULL };	/* a prompt even if the console
					   does not pass for a terminal */
	for (;;) {
		pid_t pid = spawn_shell(args);
		int status = pid < 0 ? -1 : wait_for(pid);
		if (status < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127))
			sleep(1);	/* no shell to run: do not spin */
		printf("init: shell ended (%d), starting a new one\n", status);
	}
}

/* swap=PATH on the kernel's command line: swapon(PATH). */
static void swap_on(void)
{
	char line[1024], path[256];
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, line, sizeof line - 1);
	if (fd >= 0)
		close(fd);
	line[n > 0 ? n : 0] = '\0';
	for (char *p = line; (p = strstr(p, "swap=")); p++) {
		if (p != line && p[-1] != ' ')
			continue;
		if (sscanf(p + 5, "%255s", path) != 1)
			return;
		if (syscall(SYS_swapon, path, 0) == 0)
			printf("init: swap on %s\n", path);
		else
			printf("init: swapon %s: %s\n", path, strerror(errno));
		return;
	}
}

int main(int argc, char **argv)
{
	char cmd[1024];
	const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;

	open_console();
	if (slash && slash != argv[0] && (size_t)(slash - argv[0]) < sizeof bindir)
		snprintf(bindir, sizeof bindir, "%.*s", (int)(slash - argv[0]), argv[0]);
	if (getpid() == 1)
		swap_on();
	struct stat st;
	const char *cmd_file = argc > 1 ? argv[1] :
			       stat(RUN_DIR CMD_FILE, &st) == 0 ? RUN_DIR CMD_FILE : CMD_FILE;
	if (read_command(cmd_file, cmd, sizeof cmd) == 0)
		return run_command(cmd);
	run_console();
}
