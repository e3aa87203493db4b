; arch/x86_64/trampoline.asm -- where an application processor starts.
;
; INIT-SIPI-SIPI (arch/x86_64/smp.c) starts an AP in real mode at
; CS:IP = (SMP_TRAMPOLINE_PA >> 4):0. This blob is copied to that frame
; (below 1 MiB, reserved in the frame database) and run from there, so
; every address in it is TRAMP_PA + (label - ap_trampoline). It switches
; straight from real mode to long mode (PE and PG in one CR0 write, which
; the SDM allows with CR4.PAE and EFER.LME already set), on the boot page
; tables of boot.asm (identity map of the first 1 GiB, kernel image at its
; link address), then jumps to ap_start64_high (start64.asm) in the higher
; half, which loads the kernel's own page table and calls the C entry.
;
; The BSP fills the parameter block at the end before each SIPI
; (struct ap_boot_params in arch/x86_64/smp.c, same order).

%include "arch/x86_64/longmode.inc"
bits 16

TRAMP_PA     equ 0x8000             ; SMP_TRAMPOLINE_PA in arch/x86_64/smp.h
%define TA(l) (TRAMP_PA + (l) - ap_trampoline)

section .rodata
align 16
global ap_trampoline, ap_trampoline_end, ap_trampoline_params
ap_trampoline:
	cli
	cld
	mov ax, cs
	mov ds, ax
	o32 lgdt [tr_gdtr - ap_trampoline]
	mov eax, [tr_boot_cr3 - ap_trampoline]
	ENABLE_LONG_MODE
	jmp dword 0x08:TA(tr_long)

bits 64
tr_long:
	LOAD_DATA_SEGMENTS
	mov rsp, [TA(tr_stack)]
	mov rdi, [TA(tr_arg)]
	mov rax, [TA(tr_kernel_cr3)]
	mov rbx, [TA(tr_entry)]
	mov rcx, [TA(tr_high)]
	jmp rcx                        ; ap_start64_high, in the higher half

align 8
tr_gdt:
	dq 0
	dq 0x00af9a000000ffff          ; 0x08: 64-bit code
	dq 0x00cf92000000ffff          ; 0x10: data
tr_gdt_end:
tr_gdtr:
	dw tr_gdt_end - tr_gdt - 1
	dd TA(tr_gdt)

align 8
ap_trampoline_params:
tr_boot_cr3:   dq 0                ; boot.asm's PML4 (below 4 GiB)
tr_kernel_cr3: dq 0                ; the kernel page table
tr_stack:      dq 0                ; top of this AP's first stack
tr_entry:      dq 0                ; C entry: void entry(void *arg)
tr_arg:        dq 0
tr_high:       dq 0                ; ap_start64_high
ap_trampoline_end:
