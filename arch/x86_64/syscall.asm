; arch/x86_64/syscall.asm -- the `syscall` instruction's entry point.
;
; On entry: rax = number, rdi rsi rdx r10 r8 r9 = arguments, rcx = user rip,
; r11 = user rflags, rsp = user stack, interrupts off (FMASK). We switch to
; the process's kernel stack (from the per-CPU area), build the same struct
; trapframe as an interrupt would (vector T_SYSCALL), call
; syscall_dispatch(tf), and leave through the common iretq path, which also
; restores any rip/rsp that execve or a signal changed.

bits 64
section .text

%define PERCPU_KERNEL_RSP 8
%define PERCPU_USER_RSP 16
%define SEG_UDATA 0x1b
%define SEG_UCODE 0x23
%define T_SYSCALL 0x100

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
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	xor rbp, rbp
	mov rdi, rsp
	sti
	call syscall_dispatch
	cli
	jmp trap_return
