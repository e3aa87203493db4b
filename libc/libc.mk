# libc/libc.mk -- newlib and Pagoda's C library glue (included by Makefile).
#
#   $(B)/newlib/          newlib built by tools/build-newlib.sh, only when
#                         missing (it takes minutes; `rm -rf build/newlib`
#                         to force a rebuild)
#   $(B)/libc/crt0.o      the program entry point (libc/crt0.asm)
#   $(B)/libc/libpagoda.a the system call glue and extra functions (libc/*.c,
#                         and libc/vfork.asm)
#
# tools/pagoda-cc compiles and links programs against all of it.

PAGODA_CC   := tools/pagoda-cc
NEWLIB_DONE := $(B)/newlib/.done
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
LIBC_SRCS   := $(sort $(wildcard libc/*.c libc/*/*.c))
LIBC_ASMS   := libc/vfork.asm
LIBC_OBJS   := $(LIBC_SRCS:%.c=$(B)/%.o) $(LIBC_ASMS:%.asm=$(B)/%.asm.o)
LIBC_LIB    := $(B)/libc/libpagoda.a
LIBC_CRT0   := $(B)/libc/crt0.o
LIBC_DEPS   := $(LIBC_LIB) $(LIBC_CRT0) $(NEWLIB_DONE) libc/user.ld $(PAGODA_CC)

.PHONY: libc newlib
libc: $(LIBC_LIB) $(LIBC_CRT0)
newlib: $(NEWLIB_DONE)

# Order-only on the script: a fresh checkout must not rebuild newlib.
$(NEWLIB_DONE): | tools/build-newlib.sh $(call deps,build newlib)
	$(call say,NEWLIB,$(B)/newlib)tools/build-newlib.sh $(B)/newlib

$(B)/libc/%.o: libc/%.c $(NEWLIB_DONE) $(PAGODA_CC) | $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,UCC,$<)$(PAGODA_CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(B)/libc/%.asm.o: libc/%.asm | $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,NASM,$<)$(NASM) -f elf64 -w+all -o $@ $<

$(LIBC_LIB): $(LIBC_OBJS) | $(call deps,build newlib)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

$(LIBC_CRT0): libc/crt0.asm | $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,NASM,$<)$(NASM) -f elf64 -w+all -o $@ $<

-include $(LIBC_SRCS:%.c=$(B)/%.d)
