; arch/x86_64/entry.asm -- interrupt and exception entry stubs.
;
; Every vector pushes (a dummy error code and) its number, then joins
; trap_common, which saves the registers in the layout of struct trapframe
; (arch/x86_64/trap.h), switches GS if we came from user mode, and calls
; trap_dispatch(tf). Returning pops everything and iretq's.

bits 64
section .text

extern trap_dispatch

%macro VEC_NOERR 1
vec%1:
	push 0
	push %1
	jmp trap_common
%endmacro

%macro VEC_ERR 1
vec%1:
	push %1
	jmp trap_common
%endmacro

%assign i 0
%rep 48
%if i == 8 || i == 10 || i == 11 || i == 12 || i == 13 || i == 14 || i == 17 || i == 21 || i == 29 || i == 30
	VEC_ERR i
%else
	VEC_NOERR i
%endif
%assign i i+1
%endrep

global trap_common
trap_common:
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
	cld
	test qword [rsp + 18*8], 3     ; tf->cs: from user mode?
	jz .kernel_entry
	swapgs
.kernel_entry:
	mov rdi, rsp
	xor rbp, rbp                   ; backtraces stop at the trap frame
	call trap_dispatch
global trap_return
trap_return:
	cli                            ; no interrupt between swapgs and iretq
	test qword [rsp + 18*8], 3
	jz .kernel_exit
	swapgs
.kernel_exit:
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                    ; vector, error
	iretq

section .rodata
global trap_vectors
trap_vectors:
%assign i 0
%rep 48
	dq vec %+ i
%assign i i+1
%endrep
