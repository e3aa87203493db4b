; arch/x86_64/boot.asm -- multiboot2 header and the 32->64-bit switch.
;
; GRUB enters _start32 in 32-bit protected mode, paging off, with EAX = the
; multiboot2 magic and EBX = the physical address of the boot information.
; We build throw-away page tables that map the first 1 GiB three times:
;   identity (so the next instruction after enabling paging still runs),
;   at the direct map 0xffff800000000000, and at the kernel's link address
;   0xffffffff80000000; enable PAE + long mode + paging, and jump to the
; higher half (arch/x86_64/start64.asm). mm/ replaces these tables with the
; real kernel page table.

bits 32
%include "arch/x86_64/longmode.inc"

MB2_MAGIC     equ 0xe85250d6
MB2_ARCH_I386 equ 0
KERNEL_VMA    equ 0xffffffff80000000

PTE_P    equ 1 << 0
PTE_W    equ 1 << 1
PTE_PS   equ 1 << 7

section .multiboot progbits alloc nowrite
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; entry address tag (type 3): where GRUB jumps
	align 8
	dw 3, 0
	dd 12
	dd _start32
	; end tag
	align 8
	dw 0, 0
	dd 8
mb2_header_end:

section .boot.bss nobits alloc write
align 4096
global boot_pml4                 ; also the first page table of every AP (smp.c)
boot_pml4:   resb 4096
boot_pdpt_lo: resb 4096
boot_pdpt_hi: resb 4096
boot_pd:     resb 4096
boot_stack32: resb 1024
boot_stack32_top:

section .boot.data progbits alloc write
align 8
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff          ; 0x08: 64-bit code
	dq 0x00cf92000000ffff          ; 0x10: data
boot_gdt_end:
boot_gdtr:
	dw boot_gdt_end - boot_gdt - 1
	dq boot_gdt

no_lm_msg: db "Pagoda: this CPU has no long mode", 0

section .boot.text progbits alloc exec nowrite
global _start32
_start32:
	cli
	mov esp, boot_stack32_top
	mov edi, eax                   ; keep magic and info for kmain
	mov esi, ebx

	; long mode available? (CPUID 0x80000001 EDX bit 29)
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	; PD: 512 x 2 MiB pages = first 1 GiB
	mov ecx, 0
.fill_pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [boot_pd + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jne .fill_pd

	mov eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt_lo], eax                 ; 0 .. 1 GiB
	mov [boot_pdpt_hi + 510 * 8], eax       ; 0xffffffff80000000
	mov eax, boot_pdpt_lo
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax                    ; identity
	mov [boot_pml4 + 256 * 8], eax          ; direct map 0xffff800000000000
	mov eax, boot_pdpt_hi
	or eax, PTE_P | PTE_W
	mov [boot_pml4 + 511 * 8], eax

	mov eax, boot_pml4
	ENABLE_LONG_MODE

	lgdt [boot_gdtr]
	jmp 0x08:start64_low

.no_long_mode:
	mov esi, no_lm_msg
	mov dx, 0x3f8
.putc:
	lodsb
	test al, al
	jz .halt
	out dx, al
	jmp .putc
.halt:
	hlt
	jmp .halt

bits 64
extern start64_high               ; arch/x86_64/start64.asm
start64_low:
	mov rax, start64_high
	jmp rax
