/* kernel/exec.h -- loading ELF64 programs. */
#ifndef KERNEL_EXEC_H
#define KERNEL_EXEC_H

#include "lib/types.h"

struct proc;

#define ARG_MAX (64 * 1024)     /* bytes of argv + envp strings */
#define MAX_ARGS 256

/* Replace p's address space with the program at path, argv/envp (kernel
 * strings, NULL-terminated arrays; envp may be NULL), and point p's trap
 * frame at its entry. On error p is unchanged and -errno is returned. */
int exec_load(struct proc *p, const char *path, const char *const argv[],
	      const char *const envp[]);

#endif
