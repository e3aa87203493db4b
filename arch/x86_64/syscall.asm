; arch/x86_64/syscall.asm -- the `syscall` instruction's entry point.
;
; On entry: rax = number, rdi rsi rdx r10 r8 r9 = arguments, rcx = user rip,
; r11 = user rflags, rsp = user stack, interrupts off (FMASK). We switch to
; the process's kernel stack (from the per-CPU area), build the same struct
; trapframe as an interrupt would (vector T_SYSCALL), call
; syscall_dispatch(tf), and leave through the common iretq path, which also
; restores any rip/rsp that execve or a signal changed.

bits 64
%include "arch/x86_64/regs.inc"

section .text

extern syscall_dispatch
extern trap_return

global syscall_entry
syscall_entry:
	swapgs
	mov [gs:PERCPU_USER_RSP], rsp
	mov rsp, [gs:PERCPU_KERNEL_RSP]
	push SEG_UDATA                  ; ss
	push qword [gs:PERCPU_USER_RSP] ; rsp
	push r11                        ; rflags
	push SEG_UCODE                  ; cs
	push rcx                        ; rip
	push 0                          ; error
	push T_SYSCALL                  ; vector
	SAVE_REGS
	xor rbp, rbp
	mov rdi, rsp
	sti
	call syscall_dispatch
	cli
	jmp trap_return
