; arch/x86_64/switch.asm -- swtch(): switch kernel stacks between contexts.
;
; void swtch(struct context **save, struct context *next)
; Pushes the callee-saved registers on the current stack, stores the stack
; pointer (which IS the struct context) in *save, loads next as the stack and
; pops its registers. The return address on next's stack decides where it
; resumes: where it last called swtch, or a new process's entry trampoline.

bits 64
section .text

global swtch
swtch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret
