# tests/unit/unit.mk -- host unit tests: kernel code compiled for the host,
# tested with Check under AddressSanitizer and UBSan.
#
# Each tests/unit/test_NAME.c becomes build/unit/test_NAME, linked with the
# kernel sources listed in UNIT_SRCS_NAME (add a line when you add a test).

# Deferred (=, pkg-config asked once, on first use): pkg-config and Check are
# installed by the test stamp, after parsing.
UNIT_CHECK_CFLAGS = $(eval UNIT_CHECK_CFLAGS := $(shell pkg-config --cflags check))$(UNIT_CHECK_CFLAGS)
UNIT_CFLAGS = -std=gnu11 -g -O1 -DPAGODA_HOST -I. -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -fno-tree-loop-distribute-patterns $(UNIT_CHECK_CFLAGS)
UNIT_LIBS = $(eval UNIT_LIBS := $(shell pkg-config --libs check))$(UNIT_LIBS)

UNIT_SRCS_format := lib/format.c
UNIT_SRCS_cmdline := lib/cmdline.c lib/string.c
UNIT_SRCS_calendar := lib/calendar.c
-include mm/mm-unit.mk
UNIT_SRCS_pv_ptcheck := $(MM_HOST_SRCS) mm/pt/ptwrite_check.c
UNIT_SRCS_rwsem := $(MM_HOST_SRCS) lib/rwsem.c
UNIT_SRCS_virtqueue := drivers/virtio/virtqueue.c
UNIT_SRCS_replace := tools/bench/policies.c user/bench/bench_trace.c user/bench/bench_rng.c
FS_HOST_SRCS := $(MM_HOST_SRCS) lib/rwsem.c lib/string.c lib/format.c \
	drivers/block/blkdev.c fs/inode.c fs/dcache.c fs/namei.c fs/names.c fs/mount.c \
	fs/tmpfs.c fs/textbuf.c fs/read_write.c fs/file.c fs/locks.c fs/chrdev.c fs/blockdev_file.c \
	tests/unit/host_fs.c
UNIT_SRCS_vfs := $(FS_HOST_SRCS)

UNIT_TESTS := $(patsubst tests/unit/test_%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_TESTS:%=$(B)/unit/test_%)

unit: $(UNIT_BINS)

.SECONDEXPANSION:
$(B)/unit/test_%: tests/unit/test_%.c $$(UNIT_SRCS_$$*) $$(wildcard tests/unit/*.h) \
		| $(call deps,build test)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)$(HOSTCC) $(UNIT_CFLAGS) -o $@ $< $(UNIT_SRCS_$*) $(UNIT_LIBS)
UNIT_SRCS_ext2 := $(FS_HOST_SRCS) fs/ext2/ext2.c fs/ext2/vfs.c fs/ext2/blocks.c fs/ext2/dir.c fs/ext2/dirindex.c fs/ext2/alloc.c
