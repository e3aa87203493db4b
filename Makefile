# Pagoda -- top-level Makefile.
#
#   make            kernel + bootable ISO (build/pagoda.iso)
#   make run        boot it in QEMU (serial console here; Ctrl-A X quits), the
#                   root file system on build/disk.img (ext2, DISK_SIZE, kept
#                   between runs; DISK=0: the initrd in RAM is the root)
#                   CMDLINE='test=all' passes kernel options
#   make test       host unit tests + every QEMU test suite; prints "N passed, N failed"
#   make run CPUS=4 any QEMU target with 4 guest CPUs (default 2; tools/qemu.sh)
#   make run SWAP=256M  a swap disk too (build/swap.img, made by mkswap each
#                   run; /dev/vdb, or vda with DISK=0), turned on by init
#   make debug      QEMU paused with its gdbstub and gdb attached with symbols
#                   (USER=prog adds a user program's symbols; docs/debugging.md)
#   make console    in a second terminal while make debug runs: type into the
#                   guest's serial console (Ctrl-] detaches)
#   make pictures   boot a scripted scenario and draw its page-table trees and a file's page cache:
#                   build/pictures/NN-NAME.png, copied to docs/pictures/
#   make CROSS=x86_64-elf-   use a cross toolchain instead of the host gcc
#   make PARAVIRT=0 B=build-nopv   a kernel whose pv_* wrappers are the native
#                   instructions (no pv_ops calls; docs/pv-ops.md)
#   make PHASETIME=1 B=build-phases   a kernel with the per-phase TSC counters
#                   (mm/frame/phasetime.h; make bench-phases builds and boots it)

CROSS    ?=
CC       := $(CROSS)gcc
LD       := $(CROSS)ld
NM       := $(CROSS)nm
OBJCOPY  := $(CROSS)objcopy
OBJDUMP  := $(CROSS)objdump
NASM     ?= nasm
HOSTCC   ?= gcc
PYTHON   ?= python3
QEMU     ?= qemu-system-x86_64
MEM      ?= 512M
# guest CPUs of every QEMU run (make run/test/debug/bench; tools/qemu.sh -smp)
CPUS     ?= 2
export CPUS
CMDLINE  ?=
# make run's root: build/disk.img, an ext2 image of the build's root tree
# (sparse; remade only when the userland is rebuilt) -- DISK=0: the initrd
DISK      ?= 1
DISK_SIZE ?= 4G
B        := build
PARAVIRT ?= 1
PHASETIME ?= 0
V        ?= 0
ifeq ($(V),0)
Q := @
say = @printf '  %-6s %s\n' $(1) $(2);
else
Q :=
say =
endif

# Packages first: the stamps $(B)/.deps/GROUP and $(call deps,GROUP...).
.DEFAULT_GOAL := all
include tools/deps.mk

# Kernel: freestanding, no red zone (interrupts use the stack), kernel code
# model (linked in the top 2 GiB), no SSE in the kernel. Deferred (=, and
# GCC_INCLUDE asks gcc once, on first use): parsing must work before the
# deps stamps have installed gcc.
GCC_INCLUDE = $(eval GCC_INCLUDE := $(shell $(CC) -print-file-name=include))$(GCC_INCLUDE)
KCFLAGS = -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdinc \
	-isystem $(GCC_INCLUDE) \
	-mno-red-zone -mcmodel=kernel -mgeneral-regs-only -mno-sse -mno-mmx \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -fno-strict-aliasing -fno-common \
	-fcf-protection=none -fno-tree-loop-distribute-patterns -Wall -Wextra -Werror -I. -DPARAVIRT=$(PARAVIRT) -DPHASETIME=$(PHASETIME) $(EXTRA_KCFLAGS)
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -z noexecstack \
	-T linker.ld

KSRCS := $(sort $(wildcard lib/*.c arch/x86_64/*.c kernel/*.c kernel/forkbench/*.c kernel/tests/*.c mm/*.c mm/frame/*.c mm/pt/*.c mm/tests/*.c \
	drivers/*.c drivers/block/*.c drivers/virtio/*.c drivers/tests/*.c fs/*.c fs/ext2/*.c fs/tests/*.c))
KASMS := $(sort $(wildcard arch/x86_64/*.asm))
KOBJS := $(KSRCS:%.c=$(B)/k/%.o) $(KASMS:%.asm=$(B)/k/%.asm.o)

.PHONY: all kernel iso run test unit debug console pictures clean distclean fuzz check-bigfiles
all: iso

kernel: $(B)/kernel.elf

$(B)/k/%.o: %.c | $(call deps,build)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(KCFLAGS) -MMD -MP -c $< -o $@

$(B)/k/%.asm.o: %.asm | $(call deps,build)
	@mkdir -p $(dir $@)
	$(call say,NASM,$<)$(NASM) -f elf64 -g -F dwarf -w+all -I./ -o $@ $<
	$(Q)$(NASM) -f elf64 -I./ -M -MT $@ -MP -MF $(@:.o=.d) $<   # %include deps (-MD misses them)

# Two-pass link: the first image gives the symbol table that the second embeds
# (.ksyms follows all code, so no function moves between the passes).
$(B)/k/ksyms0.o: tools/gen-ksyms.sh | $(call deps,build)
	@mkdir -p $(dir $@)
	$(Q)tools/gen-ksyms.sh $(NM) - > $(B)/k/ksyms0.S
	$(Q)$(CC) -c $(B)/k/ksyms0.S -o $@

# PARAVIRT=1: no privileged instruction outside the pv_ops backends.
CHECK_PRIV := $(if $(filter 1,$(PARAVIRT)),tools/check-privileged.sh $(OBJDUMP) $(KOBJS),true)

$(B)/kernel.elf: $(KOBJS) $(B)/k/ksyms0.o linker.ld tools/gen-ksyms.sh tools/check-privileged.sh \
		| $(call deps,build)
	$(Q)$(CHECK_PRIV)
	$(call say,LD,$@)$(LD) $(KLDFLAGS) -o $(B)/kernel0.elf $(KOBJS) $(B)/k/ksyms0.o
	$(Q)tools/gen-ksyms.sh $(NM) $(B)/kernel0.elf > $(B)/k/ksyms.S
	$(Q)$(CC) -c $(B)/k/ksyms.S -o $(B)/k/ksyms.o
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(KOBJS) $(B)/k/ksyms.o
	@tools/check-ksyms.sh $(NM) $(B)/kernel0.elf $@

-include $(KOBJS:.o=.d)

# User space and initrd (fragments add to INITRD_DEPS; see user/user.mk).
INITRD_DEPS :=
-include libc/libc.mk
-include user/user.mk
-include tools/bench/bench.mk
-include tools/bench/libshare.mk
-include tools/bench/ebizzy.mk

$(B)/initrd.tar: $(INITRD_DEPS) tools/mkinitrd.sh | $(call deps,build)
	tools/mkinitrd.sh $@ $(INITRD_DIRS)

# make run's root disk: the root tree without the overlay, remade only when
# the userland changes (what programs wrote is lost then: README, "Disks").
$(B)/disk.img: $(filter-out $(OVERLAY)/.stamp,$(INITRD_DEPS)) tools/mkdisk.sh | $(call deps,build run)
	tools/mkdisk.sh $@ $(DISK_SIZE) $(ROOTFS)

$(B)/overlay.tar: $(OVERLAY)/.stamp tools/mkinitrd.sh | $(call deps,build)
	tools/mkinitrd.sh $@ $(OVERLAY)/tree

iso: $(B)/pagoda.iso

$(B)/pagoda.iso: $(B)/kernel.elf $(B)/initrd.tar tools/mkiso.sh | $(call deps,build)
	tools/mkiso.sh $(B)/kernel.elf $(B)/initrd.tar "$(CMDLINE)" $@

# make run: a fresh ISO with CMDLINE baked into grub.cfg, then QEMU.
# With DISK=1 the initrd holds only what changes from run to run (CMD,
# EXTRA, busybox: build/overlay) and the kernel puts it at /run beside the
# disk root (root=/dev/vda), so those never land on the disk.
comma := ,
RUN_INITRD  := $(if $(filter 1,$(DISK)),$(B)/overlay.tar,$(B)/initrd.tar)
SWAP        ?=
MKSWAP      := $(or $(shell command -v mkswap),/sbin/mkswap)
RUN_SWAPDEV := $(if $(filter 1,$(DISK)),/dev/vdb,/dev/vda)
RUN_CMDLINE := $(if $(filter 1,$(DISK)),root=/dev/vda )$(if $(SWAP),swap=$(RUN_SWAPDEV) )$(CMDLINE)
RUN_DISK    := $(if $(filter 1,$(DISK)),-drive file=$(B)/disk.img$(comma)if=none$(comma)format=raw$(comma)id=root \
		-device virtio-blk-pci$(comma)drive=root) \
	       $(if $(SWAP),-drive file=$(B)/swap.img$(comma)if=none$(comma)format=raw$(comma)id=swap \
		-device virtio-blk-pci$(comma)drive=swap)
run: $(B)/kernel.elf $(RUN_INITRD) $(if $(filter 1,$(DISK)),$(B)/disk.img) | $(call deps,build run)
	@$(if $(SWAP),rm -f $(B)/swap.img && truncate -s $(SWAP) $(B)/swap.img && $(MKSWAP) -q $(B)/swap.img)
	@tools/mkiso.sh $(B)/kernel.elf $(RUN_INITRD) "$(RUN_CMDLINE)" $(B)/run.iso
	@tools/run.sh $(B)/run.iso $(MEM) $(RUN_DISK) $(QEMUFLAGS)

# make debug USER=prog also loads build/rootfs/bin/prog's symbols. (USER is
# also the login name in the environment: only a command-line USER counts.)
DEBUG_PROG := $(if $(filter command line,$(origin USER)),$(USER))
debug: $(B)/kernel.elf $(B)/initrd.tar | $(call deps,build run test)
	@tools/mkiso.sh $(B)/kernel.elf $(B)/initrd.tar "$(CMDLINE)" $(B)/run.iso
	tools/debug.sh --build $(B) $(B)/run.iso $(MEM) $(DEBUG_PROG)

# make console: attach to the serial console socket of a running make debug.
console: | $(call deps,test)
	@$(PYTHON) tools/console.py $(B)/debug-console.sock

# make pictures: the scenario of user/ptpictures.c, drawn by ptdraw (and cachedraw) after
# each step (tools/pictures.sh; docs/fork-shared-page-tables.md).
pictures: $(B)/kernel.elf $(B)/initrd.tar | $(call deps,build run pictures)
	tools/pictures.sh $(B)

# Host unit tests (tests/unit/unit.mk) and the whole test run.
include tests/unit/unit.mk

test: $(B)/kernel.elf $(B)/initrd.tar unit | $(call deps,build run test)
	$(PYTHON) tests/run_tests.py --build $(B)

# make check-bigfiles: files larger than RAM at full size (tests/bigfiles.txt:
# 2 GiB written through a shared mapping and 4 GiB read through one, with
# 512 MiB of RAM; checked from the host). About 2.5 minutes and 6 GiB of
# disk image (build/test/bigfiles-vda.img); not in make test.
check-bigfiles: $(B)/kernel.elf $(B)/initrd.tar | $(call deps,build run test)
	$(PYTHON) tests/run_tests.py --build $(B) --suites tests/bigfiles.txt --only bigfiles

# make fuzz: the randomized testers (user/vmtester.c, user/sysfuzz.c) long,
# with new seeds, FUZZ_MINUTES in all, FUZZ_JOBS boots at a time (tools/fuzz.py);
# FUZZ_ONLY=fstester (or ext2, vmtester, ...: a comma list) runs only those.
FUZZ_MINUTES ?= 30
FUZZ_JOBS    ?= 2
fuzz: $(B)/kernel.elf $(B)/initrd.tar | $(call deps,build run test)
	$(PYTHON) tools/fuzz.py --build $(B) --minutes $(FUZZ_MINUTES) --jobs $(FUZZ_JOBS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) \
		$(if $(FUZZ_ONLY),--only $(FUZZ_ONLY))

clean:
	rm -rf $(B)/k $(B)/kernel*.elf $(B)/*.iso $(B)/unit $(B)/test $(B)/iso*

distclean:
	rm -rf $(B)
