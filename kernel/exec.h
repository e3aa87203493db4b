/* kernel/exec.h -- loading ELF64 programs. */
#ifndef KERNEL_EXEC_H
#define KERNEL_EXEC_H

#include "lib/types.h"

struct proc;
struct addrspace;
struct inode;

#define ARG_MAX (64 * 1024)     /* bytes of argv + envp strings */
#define MAX_ARGS 256

/* Replace p's address space with the program at path, argv/envp (kernel
 * strings, NULL-terminated arrays; envp may be NULL), and point p's trap
 * frame at its entry. On error p is unchanged and -errno is returned. */
int exec_load(struct proc *p, const char *path, const char *const argv[],
	      const char *const envp[]);

/* The address at which mmap should map shared object ip when the caller
 * gives none (a loader's first mapping of a library, at offset 0): mm's
 * canonical address for the file (mm/ptshare.h ptshare_lib_place), or 0
 * when ip is not an ET_DYN ELF file or its slot is taken in as (then
 * mmap places it as any other mapping). Reads ip's headers; maps nothing. */
vaddr_t exec_lib_address(struct addrspace *as, struct inode *ip);

#endif
