; arch/x86_64/usercopy.asm -- the only instructions that touch user memory.
;
; long arch_copy_user(void *dst, const void *src, uint64_t n)
;   returns 0, or -EFAULT when a page fault could not be resolved.
; long arch_strncpy_user(char *dst, const char *usrc, uint64_t max)
;   returns the length (< max), max if no NUL within max bytes, or -EFAULT.
; long arch_clear_user(void *udst, uint64_t n)
; long arch_cmpxchg_user32(uint32_t *uaddr, uint32_t old, uint32_t new, uint32_t *seen)
;   one locked compare-and-exchange of a user word (the robust futex list):
;   *seen = the value it held; returns 0, or -EFAULT.
;
; A fault here first goes to the page-fault handler (demand paging, COW);
; if that cannot map the page, trap.c finds the faulting rip in the
; .extable section and resumes at the fix-up with rax = -EFAULT (-ENOMEM
; when the fault ran out of memory: kernel/fault_signal.c). stac/clac
; open and close user access while SMAP is on (they are NOPs in effect when
; CR4.SMAP is clear, and exist on every CPU with SMAP; we only execute them
; when mmu_smap_on says so, see arch/x86_64/mmu.h).

bits 64
section .text

extern mmu_smap_on

%macro USER_ACCESS_BEGIN 0
	cmp byte [rel mmu_smap_on], 0
	je %%skip
	stac
%%skip:
%endmacro

%macro USER_ACCESS_END 0
	cmp byte [rel mmu_smap_on], 0
	je %%skip
	clac
%%skip:
%endmacro

global arch_copy_user
arch_copy_user:
	USER_ACCESS_BEGIN
	mov rcx, rdx
copy_start:
	rep movsb
copy_end:
	USER_ACCESS_END
	xor eax, eax
	ret

global arch_strncpy_user
arch_strncpy_user:
	USER_ACCESS_BEGIN
	xor eax, eax                    ; length so far
strncpy_start:
strncpy_loop:
	cmp rax, rdx
	je strncpy_done
	mov cl, [rsi + rax]
	mov [rdi + rax], cl
	test cl, cl
	jz strncpy_done
	inc rax
	jmp strncpy_loop
strncpy_end:
strncpy_done:
	USER_ACCESS_END
	ret

global arch_clear_user
arch_clear_user:
	USER_ACCESS_BEGIN
	mov rcx, rsi
	xor eax, eax
clear_start:
	rep stosb
clear_end:
	USER_ACCESS_END
	xor eax, eax
	ret

global arch_cmpxchg_user32
arch_cmpxchg_user32:
	USER_ACCESS_BEGIN
	mov eax, esi
cmpxchg_start:
	lock cmpxchg [rdi], edx
cmpxchg_end:
	USER_ACCESS_END
	mov [rcx], eax
	xor eax, eax
	ret

; the fix-up: leave user access closed; rax holds the -errno trap.c set
uaccess_fault:
	USER_ACCESS_END
	ret

section .extable progbits alloc noexec nowrite align=8
	dq copy_start, copy_end, uaccess_fault
	dq strncpy_start, strncpy_end, uaccess_fault
	dq clear_start, clear_end, uaccess_fault
	dq cmpxchg_start, cmpxchg_end, uaccess_fault
