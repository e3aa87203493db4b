"""pagoda.names -- every kernel name the structure-specific helpers rely on.

The helpers read kernel data structures through gdb's knowledge of the C
types, so they only need the names below. When a structure or field is
renamed in C, change it here (and nowhere else). A helper whose names are
missing from the running kernel says which part of Pagoda provides them.
"""

# mm/frame/page.h -- the frame database.
FRAMES = "frames"                 # struct page *frames, indexed by PFN
MAX_PFN = "max_pfn"               # number of entries in frames[]
PAGE_STRUCT = "struct page"
PAGE_TYPE_ENUM = "enum page_type"  # PG_FREE, PG_KERNEL, ... (struct page.type)
PAGE_REFCOUNT = "refcount"
PAGE_TYPE = "type"
PAGE_ORDER = "order"
PAGE_COUNT = "count"              # page-table page: entries that hold something
PAGE_PTSWAP = "ptswap"            # page-table page (PT level): of those, swap entries
PAGE_PT = "pt"                    # page-table page: .share, .level
PT_SHARE = "share"
PT_LEVEL = "level"
PT_TEXT = "text"                  # PT page published as shared text: its record holds a share
PT_ZERO = "zero"                  # PT page: present entries mapping the zero page
ZERO_FRAME_PA = "zero_frame_pa"   # mm/pt/ptpage.c: the shared zero page
PAGE_LINK = "link"                # struct list: buddy / LRU list links
PROVIDER_MM = "it comes with the frame database (mm/frame/page.h)"
ZERO_PAGE = "zero_page"           # mm/fault.c: struct page * of the shared zero page
PROVIDER_FAULT = "it comes with the shared zero page (mm/fault.c)"

# kernel/proc.h and mm/as.h -- processes and address spaces.
PROC_TABLE = "proc_table"         # struct proc proc_table[NPROC]
PROC_STATE_ENUM = "enum proc_state"
PROC_UNUSED = "P_UNUSED"
AS_PGT = "pgt"                    # struct addrspace.pgt -> struct pagetable
AS_VMAS = "vmas"                  # struct addrspace.vmas: sorted list via .next
VMA_FLAG_PREFIX = "VM_"           # mm/pt/vmflags.h: #define VM_ANON 0x40 ...
AS_HEADER = "mm/pt/vmflags.h"
PGT_ROOT = "root"                 # struct pagetable.root: struct page of the PML4
KERNEL_PGT = "kernel_pgt"
PROVIDER_PROC = "it comes with processes (kernel/proc.h)"

# mm/ replacement lists (the lazy one: MADV_FREE) and arch/ pv_ops call sites.
LRU_LISTS = "lru_lists"           # struct list[LRU_LISTS]: struct page via .link, oldest first
LRU_NR = "lru_nr"                 # uint64_t[LRU_LISTS]: their lengths
LRU_LAZY = "LRU_LAZY"             # enum lru_list: the lazy-free pages' list
PROVIDER_LAZYFREE = "it comes with MADV_FREE on the replacement lists (mm/lazyfree.h, mm/frame/lru.h)"
PVSITES_START = "_pvsites_start"  # linker.ld: the .pvsites section
PVSITES_END = "_pvsites_end"
PVSITE_STRUCT = "struct pv_site"  # .addr (site), .len (bytes), .slot (pv_ops slot)
PV_OPS_STRUCT = "struct pv_ops"   # the slots, in order: one function pointer each
PROVIDER_PV = "it comes with pv_ops call-site patching (arch/x86_64/pv_patch.c)"

# arch/x86_64 -- traps.
TRAPFRAME_STRUCT = "struct trapframe"
# Assembly entry code that builds a struct trapframe and calls C with it
# (entry.asm, syscall.asm): a return address inside one of these means the
# frame below is a trap frame.
TRAP_ENTRY_SYMBOLS = ("trap_common", "trap_return", "syscall_entry")
EXC_NAMES = "exc_names"           # trap.c: exception names by vector

# arch/x86_64/percpu.h, ipi.c, shootdown.c -- the CPUs (pg-cpus).
CPUS = "cpus"                     # struct cpu cpus[MAX_CPUS]
NCPUS = "ncpus"                   # how many of them are in use
CPU_CURRENT = "current"           # struct proc * running there, or NULL
CPU_CR3 = "cr3"                   # the page table it published (smp_note_cr3)
IPI_PENDING = "call_pending"      # mask of CPUs that have not answered the call in flight
IPI_FN = "call_fn"                # the function of that call
SHOOTDOWN_FN = "flush_here"       # ... when it is a TLB shootdown
PROVIDER_SMP = "it comes with SMP support (arch/x86_64/percpu.h, ipi.c)"

# mm/vmobject.h, mm/rmap.h -- backing objects and their reverse map (pg-mappers).
VMOBJECT = "struct vmobject"      # .mappings (struct list of VMAs), .refs, .npages, .rmap_seq
OBJ_MAPPINGS = "mappings"
VMA = "struct vma"                # .as, .start, .end, .prot, .flags, .obj, .obj_off, .obj_link
VMA_OBJ_LINK = "obj_link"
ADDRSPACE = "struct addrspace"
PROVIDER_RMAP = "it comes with the reverse map of file pages (mm/vmobject.h, mm/rmap.c)"
ANON_VMA = "struct anon_vma"      # mm/anon_rmap.h: .vmas (struct list of VMAs), .refs
ANON_VMAS = "vmas"
VMA_ANON_LINK = "anon_link"
PAGE_ANON = "anon"                # struct page's .anon.av, .anon.index
PROVIDER_ANON_RMAP = "it comes with the reverse map of anonymous pages (mm/anon_rmap.h)"

# mm/pagecache.h -- page caches (files, tmpfs, disks).
PAGECACHES = "all_caches"         # struct list of every struct pagecache (.link)
PAGECACHE = "struct pagecache"    # .root, .height, .nrpages, .ndirty, .kind, .owner
PC_NODE = "struct pc_node"        # .slot[64]: nodes, then struct page * at the last level
PAGECACHE_KIND_ENUM = "enum pagecache_kind"
INODE = "struct inode"            # fs/vfs.h: a file cache's owner (.ino, .size)
PROVIDER_PAGECACHE = "it comes with the page cache (mm/pagecache.c)"

# drivers/block/blkdev.c, drivers/virtio/virtio_blk.c -- disks and their requests (pg-disk).
DISKS = "disks"                   # struct blkdev *disks[BLKDEV_MAX]: the registered disks
NDISKS = "ndisks"                 # how many
VBLKS = "vblks"                   # struct vblk *vblks[MAX_DISKS]: virtio disks (.disk, .slots)
NVBLK = "nvblk"
BLK_OP_ENUM = "enum blk_op"
PROVIDER_BLK = "it comes with the block layer (drivers/block/blkdev.c, drivers/virtio/virtio_blk.c)"
