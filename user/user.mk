# user/user.mk -- Pagoda's user programs and the initrd's root tree.
#
# Every user/NAME.c is one program; every directory user/NAME/ (except
# user/bench/, which has its own fragment) is one program made of all its
# .c files. Each is linked with tools/pagoda-cc into $(B)/rootfs/bin/NAME.
# usertests is built a second time with musl-gcc -static as
# bin/usertests-musl: the same source must work against both C libraries;
# so are the randomized testers (MUSL_PROGS: bin/vmtester-musl, ...).
#
# The initrd packs these root trees (later ones override earlier ones):
#   $(B)/rootfs           bin/ with the programs
#   $(B)/overlay/tree     what `make run` options add:
#       CMD='prog args'   -> /etc/init.cmd holding that line. init runs it
#                            through `sh -c` instead of the interactive
#                            shell and then exits with the command's exit
#                            status; the kernel treats the exit of init as
#                            the end of the run: it powers off and reports
#                            that status (isa-debug-exit).
#       EXTRA=dir         -> every file of dir copied into /bin.
#       BUSYBOX=1         -> Debian's busybox-static as /bin/busybox (fetched
#                            once by tools/bench/linux.sh busybox) and, unless
#                            CMD is given, `busybox sh` as the session's shell.
# The overlay is regenerated on every make but touches its stamp (and so
# rebuilds the initrd) only when its content changed.

USER_SRCS   := $(sort $(wildcard user/*.c))
USER_DIRS   := $(filter-out user/bench user/dyn,$(patsubst %/,%,$(sort $(dir $(wildcard user/*/*.c)))))
USER_PROGS  := $(USER_SRCS:user/%.c=%) $(USER_DIRS:user/%=%)
ROOTFS      := $(B)/rootfs
USER_BINS   := $(USER_PROGS:%=$(ROOTFS)/bin/%)
OVERLAY     := $(B)/overlay

# Objects of program NAME: user/NAME.c or user/NAME/*.c.
user_objs = $(patsubst %.c,$(B)/%.o,$(wildcard user/$(1).c user/$(1)/*.c))

USER_OBJS   := $(patsubst %.c,$(B)/%.o,$(USER_SRCS) $(wildcard $(USER_DIRS:%=%/*.c)))
.SECONDARY: $(USER_OBJS)

# One-file programs that are also built as static musl binaries NAME-musl.
MUSL_PROGS  := vmtester sysfuzz threadtests tlbstorm racetests disktests fstester swaptests
MUSL_BINS   := $(MUSL_PROGS:%=$(ROOTFS)/bin/%-musl)

# Dynamically linked musl programs (tools/pagoda-cc-dyn): bin/NAME-dyn is
# position-independent (ET_DYN, musl-gcc's default), bin/NAME-dyn-nopie
# is linked at a fixed address (ET_EXEC); both name the musl loader
# /lib/ld-musl-x86_64.so.1 (musl's libc.so, copied from the host into the
# initrd) as their interpreter. bin/hello-nointerp names a loader that does
# not exist (execve: ENOENT); $(ROOTFS)/badelf/ holds malformed copies of
# hello-dyn (tools/mkbadelf.py; execve: ENOEXEC). usertests' exec_dynamic
# and exec_badelf run them. user/dyn/ holds musl-only sources: libhold
# (bin/libhold-dyn, bin/libhold-dyn-nopie) and the library lib/libpgtest.so
# that usertests' libshare tests load (docs/shared-libraries.md). DYN_TOOLS
# are userland tools built dynamically too (bin/sh-dyn, bin/ls-dyn, ...):
# `make run CMD='sh-dyn'` exercises them; make bench-libshare runs them.
DYN_PROGS   := hello dyntest
DYN_TOOLS   := sh cat ls echo sleep
MUSL_LDSO   := /lib/ld-musl-x86_64.so.1
DYN_BINS    := $(DYN_PROGS:%=$(ROOTFS)/bin/%-dyn) $(DYN_PROGS:%=$(ROOTFS)/bin/%-dyn-nopie) \
               $(ROOTFS)/bin/hello-nointerp $(ROOTFS)$(MUSL_LDSO) $(ROOTFS)/badelf/.stamp \
               $(ROOTFS)/bin/libhold-dyn $(ROOTFS)/bin/libhold-dyn-nopie $(ROOTFS)/lib/libpgtest.so \
               $(DYN_TOOLS:%=$(ROOTFS)/bin/%-dyn)
PAGODA_CC_DYN := tools/pagoda-cc-dyn
DYN_CFLAGS  := $(USER_CFLAGS) -DDYNTEST_DYNAMIC

.PHONY: user FORCE
user: $(USER_BINS) $(ROOTFS)/bin/usertests-musl $(MUSL_BINS) $(DYN_BINS)

$(B)/user/%.o: user/%.c $(LIBC_DEPS) | $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,UCC,$<)$(PAGODA_CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

.SECONDEXPANSION:
$(ROOTFS)/bin/%: $$(call user_objs,$$*) $(LIBC_DEPS) | $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,ULD,$@)$(PAGODA_CC) -o $@ $(call user_objs,$*)

# kforkbench prints with the kernel's own code for the fork benchmark's text
# (kernel/forkbench/format.c), so bench=fork and the shell print the same.
$(B)/user/shared/forkbench_format.o: kernel/forkbench/format.c $(LIBC_DEPS) | $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,UCC,$<)$(PAGODA_CC) $(USER_CFLAGS) -I. -MMD -MP -c $< -o $@
$(ROOTFS)/bin/kforkbench: $(B)/user/kforkbench.o $(B)/user/shared/forkbench_format.o $(LIBC_DEPS) \
		| $(call deps,build newlib)
	@mkdir -p $(dir $@)
	$(call say,ULD,$@)$(PAGODA_CC) -o $@ $(B)/user/kforkbench.o $(B)/user/shared/forkbench_format.o

# The musl build of usertests: the same sources plus Pagoda's portable
# syscall wrappers; musl's own headers win, libc/include only fills gaps
# (pagoda/*.h).
MUSL_SRCS := $(wildcard user/usertests/*.c) libc/pagoda.c libc/errno_map.c libc/procfs.c
$(ROOTFS)/bin/usertests-musl: $(MUSL_SRCS) $(wildcard user/usertests/*.h libc/include/pagoda/*.h) \
		| $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,MUSLCC,$@)musl-gcc -static -no-pie -fno-pie $(USER_CFLAGS) -idirafter libc/include \
		-o $@ $(MUSL_SRCS)

$(MUSL_BINS): $(ROOTFS)/bin/%-musl: user/%.c user/fuzz_rand.h libc/pagoda.c libc/errno_map.c libc/procfs.c $(wildcard libc/include/pagoda/*.h) \
		| $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,MUSLCC,$@)musl-gcc -static -no-pie -fno-pie $(USER_CFLAGS) -idirafter libc/include \
		-o $@ $< libc/pagoda.c libc/errno_map.c libc/procfs.c


$(ROOTFS)/bin/%-dyn: user/%.c $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) -o $@ $<
$(ROOTFS)/bin/%-dyn-nopie: user/%.c $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) -no-pie -fno-pie -o $@ $<
$(ROOTFS)/bin/sh-dyn: $(wildcard user/sh/*.c user/sh/*.h) $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) -o $@ $(filter %.c,$^)
$(ROOTFS)/bin/libhold-dyn: user/dyn/libhold.c $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) -o $@ $<
$(ROOTFS)/bin/libhold-dyn-nopie: user/dyn/libhold.c $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) -no-pie -fno-pie -o $@ $<
$(ROOTFS)/lib/libpgtest.so: user/dyn/libpgtest.c $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) -shared -fPIC -o $@ $<
$(ROOTFS)/bin/hello-nointerp: user/hello.c $(PAGODA_CC_DYN) | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,DYNCC,$@)$(PAGODA_CC_DYN) $(DYN_CFLAGS) \
		-Wl,--dynamic-linker=/lib/ld-missing.so.1 -o $@ $<
$(ROOTFS)$(MUSL_LDSO): | $(call deps,build musl)
	@mkdir -p $(dir $@)
	$(call say,CP,$@)cp -L $(MUSL_LDSO) $@
$(ROOTFS)/badelf/.stamp: $(ROOTFS)/bin/hello-dyn tools/mkbadelf.py
	$(call say,BADELF,$(dir $@))python3 tools/mkbadelf.py $< $(dir $@) && touch $@

# $(value CMD): the command exactly as typed (make must not expand its $?),
# single-quoted for the shell.
sh_quote = '$(subst ','\'',$(1))'
BUSYBOX_BIN := $(B)/busybox/bin/busybox
$(BUSYBOX_BIN):
	tools/bench/linux.sh busybox $(B)
ifeq ($(BUSYBOX),1)
CMD ?= busybox sh
endif

$(OVERLAY)/.stamp: FORCE $(if $(filter 1,$(BUSYBOX)),$(BUSYBOX_BIN)) | $(call deps,build)
	@rm -rf $(OVERLAY)/new && mkdir -p $(OVERLAY)/new/bin $(OVERLAY)/new/etc
	@$(if $(filter 1,$(BUSYBOX)),cp $(BUSYBOX_BIN) $(OVERLAY)/new/bin/)
	@$(if $(value CMD),printf '%s\n' $(call sh_quote,$(value CMD)) > $(OVERLAY)/new/etc/init.cmd)
	@$(if $(EXTRA),cp -L $(call sh_quote,$(EXTRA))/* $(OVERLAY)/new/bin/)
	@if diff -r $(OVERLAY)/new $(OVERLAY)/tree >/dev/null 2>&1; then rm -rf $(OVERLAY)/new; \
	else rm -rf $(OVERLAY)/tree && mv $(OVERLAY)/new $(OVERLAY)/tree && touch $@; fi

INITRD_DEPS += $(USER_BINS) $(ROOTFS)/bin/usertests-musl $(MUSL_BINS) $(DYN_BINS) $(OVERLAY)/.stamp
INITRD_DIRS += $(ROOTFS) $(OVERLAY)/tree

-include $(USER_OBJS:.o=.d)
