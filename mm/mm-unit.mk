# mm/mm-unit.mk -- host unit tests of mm/ (included by tests/unit/unit.mk).
MM_HOST_SRCS := mm/page_db.c mm/buddy.c mm/walk.c mm/ptpage.c mm/pgtable.c \
	mm/kmalloc.c mm/kstack.c mm/kvm.c mm/caller.c mm/pgtable_check.c mm/pgtable_edit.c mm/pgtable_copy.c \
	mm/tlb.c mm/ptshare.c mm/lazyfree.c mm/reclaim.c mm/phasetime.c lib/spinlock.c tests/unit/host_mm.c
UNIT_SRCS_mm_buddy := $(MM_HOST_SRCS)
UNIT_SRCS_mm_pgtable := $(MM_HOST_SRCS)
UNIT_SRCS_mm_kmalloc := $(MM_HOST_SRCS)
UNIT_SRCS_mm_ptshare := $(MM_HOST_SRCS)
UNIT_SRCS_mm_lazyfree := $(MM_HOST_SRCS)
UNIT_SRCS_mm_forkcopy := $(MM_HOST_SRCS)
UNIT_SRCS_mm_memstat := $(MM_HOST_SRCS) mm/memstat.c mm/shm.c mm/vmobject.c
UNIT_SRCS_mm_vmcheck := $(MM_HOST_SRCS) mm/ptshare_check.c
UNIT_SRCS_mm_pdshare := $(MM_HOST_SRCS) mm/ptshare_check.c mm/memstat.c mm/shm.c mm/vmobject.c
UNIT_SRCS_mm_vma := $(MM_HOST_SRCS) mm/vma.c mm/vmobject.c
