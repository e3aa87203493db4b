# tests/unit/unit.mk -- host unit tests: kernel code compiled for the host,
# tested with Check under AddressSanitizer and UBSan.
#
# Each tests/unit/test_NAME.c becomes build/unit/test_NAME, linked with the
# kernel sources listed in UNIT_SRCS_NAME (add a line when you add a test).

UNIT_CFLAGS := -std=gnu11 -g -O1 -DPAGODA_HOST -I. -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -fno-tree-loop-distribute-patterns $(shell pkg-config --cflags check 2>/dev/null)
UNIT_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

UNIT_SRCS_format := kernel/format.c
UNIT_SRCS_cmdline := kernel/cmdline.c kernel/string.c
-include mm/mm-unit.mk
UNIT_SRCS_pv_ptcheck := $(MM_HOST_SRCS) mm/ptcheck.c

UNIT_TESTS := $(patsubst tests/unit/test_%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_TESTS:%=$(B)/unit/test_%)

unit: $(UNIT_BINS)

.SECONDEXPANSION:
$(B)/unit/test_%: tests/unit/test_%.c $$(UNIT_SRCS_$$*) $$(wildcard tests/unit/*.h) | unit-deps
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)$(HOSTCC) $(UNIT_CFLAGS) -o $@ $< $(UNIT_SRCS_$*) $(UNIT_LIBS)

.PHONY: unit-deps
unit-deps:
	@tools/deps.sh test
