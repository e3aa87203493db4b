# mm/mm-unit.mk -- host unit tests of mm/ (included by tests/unit/unit.mk).
MM_HOST_SRCS := mm/frame/page_db.c mm/frame/buddy.c mm/pt/walk.c mm/pt/ptpage.c mm/pt/pgtable.c \
	mm/frame/kmalloc.c mm/pt/kstack.c mm/pt/kvm.c mm/frame/caller.c mm/pt/pgtable_check.c mm/pt/pgtable_edit.c mm/pt/pgtable_copy.c \
	mm/frame/swap.c mm/frame/lru.c mm/anon_rmap.c mm/pt/tlb.c mm/pt/share.c mm/reclaim.c mm/pagecache.c mm/pagecache_lru.c mm/vmobject.c mm/frame/phasetime.c lib/spinlock.c lib/wait.c tests/unit/host_mm.c
UNIT_SRCS_mm_buddy := $(MM_HOST_SRCS)
UNIT_SRCS_mm_pgtable := $(MM_HOST_SRCS)
UNIT_SRCS_mm_kmalloc := $(MM_HOST_SRCS)
UNIT_SRCS_mm_ptshare := $(MM_HOST_SRCS)
UNIT_SRCS_mm_lazyfree := $(MM_HOST_SRCS)
UNIT_SRCS_mm_forkcopy := $(MM_HOST_SRCS)
UNIT_SRCS_mm_memstat := $(MM_HOST_SRCS) mm/memstat.c
UNIT_SRCS_mm_vmcheck := $(MM_HOST_SRCS) mm/vmcheck.c
UNIT_SRCS_mm_pdshare := $(MM_HOST_SRCS) mm/vmcheck.c mm/memstat.c
UNIT_SRCS_mm_vma := $(MM_HOST_SRCS) mm/vma.c
UNIT_SRCS_mm_pagecache := $(MM_HOST_SRCS)
UNIT_SRCS_mm_swap := $(MM_HOST_SRCS)
