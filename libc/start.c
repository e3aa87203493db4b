/* libc/start.c -- the C half of program start-up (crt0.asm is the rest). */
#include <stdlib.h>
#include <unistd.h>
#include "start.h"
#include "pthread_impl.h"

extern char __tls_memsz[];   /* libc/user.ld: the __thread template's size */

extern int main(int argc, char **argv, char **envp);
extern char **environ;	/* newlib's, libc/stdlib/environ.c */
extern void __libc_init_array(void);
extern void __libc_fini_array(void);

const unsigned long *__pagoda_auxv;

/* __pagoda_start: parse the initial stack sp (see crt0.asm), publish
 * environ and the aux vector, run constructors, and exit with main's
 * result (exit runs atexit handlers, destructors and flushes stdio). */
void __pagoda_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **p = envp;

	while (*p)
		p++;
	__pagoda_auxv = (const unsigned long *)(p + 1);
	environ = envp;
	if ((unsigned long)__tls_memsz)
		__pagoda_tls_main();   /* __thread data before any constructor runs */
	__libc_init_array();
	atexit(__libc_fini_array);
	exit(main(argc, argv, envp));
}
