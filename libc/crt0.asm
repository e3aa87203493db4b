; libc/crt0.asm -- the entry point of every Pagoda (newlib) program.
;
; The kernel enters _start with the initial stack laid out as Linux's ELF
; ABI specifies (System V x86-64 psABI, section 3.4.1):
;
;   [rsp]                 argc
;   [rsp+8 ...]           argv[0] ... argv[argc-1], NULL
;   then                  envp[0] ... NULL
;   then                  auxv: (type, value) pairs ending with AT_NULL
;
; rsp is 16-byte aligned at entry; rbp should be zeroed to end frame-pointer
; backtraces; rdx may hold a termination function (0 from Linux for static
; programs; we ignore it). _start hands the stack pointer to the C part
; (start.c) and never returns.

	bits 64
	default rel
	section .text

	global _start
	extern __pagoda_start
_start:
	xor	ebp, ebp		; outermost frame
	mov	rdi, rsp		; argument: the initial stack
	and	rsp, -16		; the C ABI wants rsp % 16 == 0 before call
	call	__pagoda_start		; does not return
	ud2

; _init, _fini: newlib's __libc_init_array/__libc_fini_array call these
; (HAVE_INIT_FINI) around the .init_array/.fini_array tables. Pagoda's
; programs use only the tables, so they do nothing.
	global _init
	global _fini
_init:
_fini:
	ret

	section .note.GNU-stack noalloc noexec nowrite progbits
