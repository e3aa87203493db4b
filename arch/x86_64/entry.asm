; arch/x86_64/entry.asm -- interrupt and exception entry stubs.
;
; Every vector pushes (a dummy error code and) its number, then joins
; trap_common, which saves the registers in the layout of struct trapframe
; (arch/x86_64/trap.h; SAVE_REGS in arch/x86_64/regs.inc), switches GS if we
; came from user mode, and calls trap_dispatch(tf). Returning pops everything
; and iretq's.

bits 64
%include "arch/x86_64/regs.inc"

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
%rep 256
%if i == 8 || i == 10 || i == 11 || i == 12 || i == 13 || i == 14 || i == 17 || i == 21 || i == 29 || i == 30
	VEC_ERR i
%else
	VEC_NOERR i
%endif
%assign i i+1
%endrep

global trap_common
trap_common:
	SAVE_REGS
	cld
	JMP_IF_FROM_KERNEL .kernel_entry
	swapgs
.kernel_entry:
	mov rdi, rsp
	xor rbp, rbp                   ; backtraces stop at the trap frame
	call trap_dispatch
global trap_return
trap_return:
	cli                            ; no interrupt between swapgs and iretq
	JMP_IF_FROM_KERNEL .kernel_exit
	swapgs
.kernel_exit:
	RESTORE_REGS
	iretq

section .rodata
global trap_vectors
trap_vectors:
%assign i 0
%rep 256
	dq vec %+ i
%assign i i+1
%endrep
