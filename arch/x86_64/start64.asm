; arch/x86_64/start64.asm -- first instructions in the higher half: load the
; data segments, switch to the kernel boot stack and call kmain.
;
; Kept apart from boot.asm on purpose: NASM describes only the FIRST code
; section of a file in its DWARF compile unit, so a file with both .boot.text
; and .text makes gdb warn "pc ... in address map, but not in symtab" at every
; stop in the higher half. One code section per file keeps `make debug` clean.

bits 64
%include "arch/x86_64/longmode.inc"

section .bss
align 16
global boot_stack, boot_stack_top
boot_stack: resb 16384
boot_stack_top:

section .text
extern kmain
global start64_high
start64_high:
	LOAD_DATA_SEGMENTS
	mov rsp, boot_stack_top
	xor rbp, rbp                   ; ends the frame-pointer backtrace
	push rbp                       ; a zero return address: ends gdb's `bt`
	; edi = magic, esi = info phys (zero-extended by the 32-bit moves)
	call kmain
.hang:
	cli
	hlt
	jmp .hang

; An application processor arrives here from arch/x86_64/trampoline.asm,
; still on the boot page tables: rax = the kernel page table, rbx = the C
; entry, rdi = its argument, rsp = the AP's stack (mapped only in the
; kernel page table, so nothing touches it before the CR3 load).
global ap_start64_high
ap_start64_high:
	mov cr3, rax
	xor rbp, rbp
	push rbp                       ; a zero return address, as for kmain
	jmp rbx
