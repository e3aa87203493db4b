; arch/x86_64/setjmp.asm -- kernel setjmp/longjmp (callee-saved registers).
; struct jmpbuf { rbx, rbp, r12, r13, r14, r15, rsp, rip }

bits 64
section .text

global arch_setjmp
arch_setjmp:                   ; int arch_setjmp(struct jmpbuf *rdi)
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rax, [rsp + 8]         ; rsp after our return
	mov [rdi + 48], rax
	mov rax, [rsp]             ; return address
	mov [rdi + 56], rax
	xor eax, eax
	ret

global arch_longjmp
arch_longjmp:                  ; void arch_longjmp(struct jmpbuf *rdi, int esi)
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	mov eax, esi
	test eax, eax
	jnz .nz
	inc eax
.nz:
	jmp [rdi + 56]
