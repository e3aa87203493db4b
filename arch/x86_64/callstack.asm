; arch/x86_64/callstack.asm -- run a function on another stack.

bits 64
section .text

; void arch_call_on_stack(void *top, void (*fn)(void *), void *arg)
; The frame-pointer chain continues from fn through our frame to the caller,
; so backtraces cross the switch.
global arch_call_on_stack
arch_call_on_stack:
	push rbp
	mov rbp, rsp                   ; old stack, kept in a callee-saved register
	mov rsp, rdi                   ; top is page aligned: 16-byte ABI alignment
	mov rdi, rdx
	call rsi
	mov rsp, rbp
	pop rbp
	ret
