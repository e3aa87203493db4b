; arch/x86_64/start64.asm -- first instructions in the higher half: load the
; data segments, switch to the kernel boot stack and call kmain.
;
; Kept apart from boot.asm on purpose: NASM describes only the FIRST code
; section of a file in its DWARF compile unit, so a file with both .boot.text
; and .text makes gdb warn "pc ... in address map, but not in symtab" at every
; stop in the higher half. One code section per file keeps `make debug` clean.

bits 64

section .bss
align 16
global boot_stack, boot_stack_top
boot_stack: resb 16384
boot_stack_top:

section .text
extern kmain
global start64_high
start64_high:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rsp, boot_stack_top
	xor rbp, rbp                   ; ends the frame-pointer backtrace
	push rbp                       ; a zero return address: ends gdb's `bt`
	; edi = magic, esi = info phys (zero-extended by the 32-bit moves)
	call kmain
.hang:
	cli
	hlt
	jmp .hang
