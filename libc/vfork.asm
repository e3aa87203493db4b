; libc/vfork.asm -- vfork(2), which cannot be written in C.
;
; On Linux the child of vfork runs on the parent's memory, stack included,
; until it execs or exits, while the parent sleeps. A C wrapper's return
; address would live on that shared stack: the child returns through it and
; then calls execve, whose frames overwrite it before the parent gets back.
; So the return address is kept in a register across the system call (the
; child and the parent each push their copy back), as musl does. On Pagoda
; the child gets a copy of memory, but the same code is right there too.

	bits 64
	default rel
	section .text

	global vfork
	extern __vfork_result
vfork:
	pop	rdx			; return address, off the shared stack
	mov	eax, 58			; SYS_vfork
	syscall
	push	rdx
	cmp	rax, -4095
	jae	.error
	ret
.error:
	mov	rdi, rax
	jmp	__vfork_result		; sets errno, returns -1 to our caller
