/* mm/ptshare_text.c -- the sharing mode, and program text shared across
 * unrelated processes.
 *
 * Every process running /bin/sh maps the same file frames, read-only, at
 * the same address (0x400000: text and data never share a 2 MiB range, see
 * arch/x86_64/memlayout.h). So their PT pages for the text would be
 * identical: with ptshare=all, the first exec builds the PT page (all text
 * pages present) and publishes it in a per-file record; later execs point
 * their PD entry at it (write-protected, share + 1) instead of faulting the
 * text in page by page. 50 shells, one text PT page.
 *
 *   record { file, 2 MiB base, layout of the VMAs in it } --> PT page
 *
 * The record holds a share of its PT page, as Linux's page cache holds a
 * reference on its pages, and a process's share is an ordinary one:
 * teardown, unmap and unshare drop it or copy the page like any other
 * shared table's (mm/pt/share.h), and never meet the last share. When the
 * last process using the page lets go of it (as_destroy, the unlocks that
 * release stale tables: ptshare_text_release_unused), and under memory
 * pressure (the reclaimer, drop_caches: ptshare_text_shrink), the records
 * whose share is the page's last are unpublished and the page freed: the
 * tables layer never calls up here. Pages leaving the file (truncation, a
 * hole punched: vmobject_unmap) take its records away first.
 * RSS and PSS count a process's sharers, not the record (pt.text, one
 * share, mm/memstat.c).
 *
 * Several CPUs: text_lock (LOCK_RANK_TEXT_SHARE) guards the records and the
 * library slot table. Looking a record up and attaching its PT page (one
 * more sharer) happen together under it, as do checking for a record and
 * publishing a new one, and unpublishing one whose share is its record's
 * alone (no attach comes between the check and the removal). Nothing
 * allocates under it: the tables above the PD entry and the record are
 * made first, a spare record is freed after.
 */
#include "mm/ptshare.h"
#include "mm/pt/share.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/vma.h"
#include "mm/vmobject.h"
#include "arch/x86_64/memlayout.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"

struct text_pt {
	struct text_pt *next;
	struct vmobject *file;
	vaddr_t base;          /* the 2 MiB chunk the PT page maps */
	uint64_t layout;       /* hash of the VMAs inside the chunk */
	struct page *pt;
};

enum ptshare_mode ptshare_mode = PTSHARE_PD;   /* the default (docs/fork-shared-page-tables.md) */

static const char *const mode_names[] = { "off", "fork", "all", "pd" };

void ptshare_set_mode(const char *value)
{
	for (unsigned i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (strcmp(value, mode_names[i]) == 0)
			ptshare_mode = (enum ptshare_mode)i;
}

const char *ptshare_mode_name(void)
{
	return mode_names[ptshare_mode];
}

static struct spinlock text_lock = SPINLOCK_INIT("text-share", LOCK_RANK_TEXT_SHARE);
static struct text_pt *records;

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv_mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * FNV_PRIME;
	return h;
}

/* Is every VMA that overlaps the chunk at base a private read-only mapping
 * of one file? Then *file and *layout describe it. */
static bool chunk_is_text(struct addrspace *as, vaddr_t base, struct vmobject **file,
			  uint64_t *layout)
{
	vaddr_t end = base + LARGE_PAGE_SIZE;
	uint64_t h = FNV_OFFSET;
	*file = NULL;
	for (struct vma *v = as->vmas; v && v->start < end; v = v->next) {
		if (v->end <= base)
			continue;
		if (!(v->flags & VM_FILE) || (v->flags & VM_SHARED) ||
		    (v->prot & VM_WRITE) || (*file && v->obj != *file))
			return false;
		*file = v->obj;
		h = fnv_mix(fnv_mix(fnv_mix(fnv_mix(h, v->start), v->end), v->prot), v->obj_off);
	}
	*layout = h;
	return *file != NULL;
}

static struct text_pt *find_record(struct vmobject *file, vaddr_t base, uint64_t layout)
{
	for (struct text_pt *r = records; r; r = r->next)
		if (r->file == file && r->base == base && r->layout == layout)
			return r;
	return NULL;
}

/* The present PD entry of the chunk at base in pgt, or NULL (no PT page,
 * or out of memory making a shared PD page private with PGT_WALK_UNSHARE
 * in flags, before the entry is written). */
static pte_t *chunk_pde(struct pagetable *pgt, vaddr_t base, unsigned flags)
{
	pte_t *pde;
	if (pgt_walk(pgt, base, PGL_PD, flags, &pde) != PGL_PD || !pte_present(pte_read(pde)))
		return NULL;
	return pde;
}

/* Another process published chunk base (record r) while this one built
 * its own PT page under *pde (text_lock held): point the PD entry at the
 * published page instead; the page it points at now (ours, or the private
 * copy another thread's unshare made of it meanwhile) and the frame
 * references in it go when no reader can be in it any more (record s:
 * pgt_defer_put; this runs under the address-space lock held for reading,
 * and b flushes first). The entry is read and written under the PD page's
 * lock, which an unshare's switch to its copy takes too (mm/pt/share.c),
 * and the old page's: a thread faulting in it meanwhile finds the PD
 * entry changed and walks again. False (s unused) when the entry points
 * at the published page already (another thread of ours switched first). */
static bool switch_to_published(struct tlb_batch *b, struct pagetable *pgt, pte_t *pde,
				vaddr_t base, const struct text_pt *r, struct stale_table *s)
{
	spin_lock(pt_lock(ptpage_of(pde)));   /* the PD page's entry and count */
	struct page *own = pa_to_page(pte_addr(pte_read(pde)));
	if (own == r->pt) {
		spin_unlock(pt_lock(ptpage_of(pde)));
		return false;
	}
	spin_lock(pt_lock(own));
	pt_table_unlink(pgt, pde, PGL_PD);
	pt_table_link_shared(pgt, pde, PGL_PD, r->pt);
	spin_unlock(pt_lock(own));
	spin_unlock(pt_lock(ptpage_of(pde)));
	tlb_changed_range(b, base, base + LARGE_PAGE_SIZE);
	pgt_defer_put(pgt, s, own);
	return true;
}

/* Write-protect the PD entry of the (fully faulted) chunk at base and
 * publish its PT page under (file, base, layout); if another process
 * published that chunk meanwhile (two execs on two CPUs), share its page
 * instead of keeping our copy. */
static void publish_pt(struct addrspace *as, vaddr_t base, struct vmobject *file,
		       uint64_t layout, uint32_t seq)
{
	pte_t *pde = chunk_pde(as->pgt, base, PGT_WALK_UNSHARE);
	struct text_pt *r = kzalloc(sizeof(*r));
	struct stale_table *s = kmalloc(sizeof(*s));
	if (!pde || !r || !s) {
		kfree(r);
		kfree(s);
		return;
	}
	struct page *pt = pa_to_page(pte_addr(pte_read(pde)));
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	spin_lock(&text_lock);
	struct text_pt *published = find_record(file, base, layout);
	/* Pages left the file since the build began (vmobject_unmap raises
	 * the count, then unpublishes under this lock): keep the PT page
	 * private, its entries are that walk's to clear. */
	bool stale = __atomic_load_n(&file->rmap_seq, __ATOMIC_SEQ_CST) != seq;
	if (!stale && !published) {
		spin_lock(pt_lock(ptpage_of(pde)));   /* mm/pt/ptpage.h, "Table structure" */
		pt_set_table(pde, PGL_PD, pte_wrprotect(pte_read(pde)));
		spin_unlock(pt_lock(ptpage_of(pde)));
		pt->pt.text = 1;
		atomic_inc(&pt->pt.share);   /* the record's own share */
		*r = (struct text_pt){ records, file, base, layout, pt };
		records = r;
	} else if (!stale && switch_to_published(&b, as->pgt, pde, base, published, s)) {
		s = NULL;
	}
	spin_unlock(&text_lock);
	tlb_end(&b);
	kfree(s);   /* unused unless we switched */
	if (stale || published)
		kfree(r);
	if (!stale)
		stat_inc(published ? &ptshare_stats.text_attached : &ptshare_stats.text_created);
}

/* Map every text page of the chunk (as_fill: no fault is re-entered),
 * write-protect its PD entry and publish the PT page. */
static void publish_chunk(struct addrspace *as, vaddr_t base, struct vmobject *file,
			  uint64_t layout)
{
	uint32_t seq = __atomic_load_n(&file->rmap_seq, __ATOMIC_SEQ_CST);
	if (as_fill(as, base, base + LARGE_PAGE_SIZE) < 0)
		return;   /* out of memory: this process just does not share */
	publish_pt(as, base, file, layout, seq);
}

/* Attach the published PT page of chunk (file, base, layout) to as, or
 * build and publish it when there is none yet. The tables down to the PD
 * entry are made first, so attaching under text_lock allocates nothing. */
static void share_chunk(struct addrspace *as, vaddr_t base, struct vmobject *file,
			uint64_t layout)
{
	pte_t *slot = pt_share_slot(as->pgt, base);   /* allocates, unshares: before the lock */
	if (!slot)
		return;   /* out of memory: this process just does not share */
	spin_lock(&text_lock);
	struct text_pt *r = find_record(file, base, layout);
	bool attached = r && pt_share_into(as->pgt, slot, r->pt) == 0;
	spin_unlock(&text_lock);
	if (attached)
		stat_inc(&ptshare_stats.text_attached);
	else if (!r)
		publish_chunk(as, base, file, layout);
}

void ptshare_text_attach(struct addrspace *as)
{
	vaddr_t last = 0;
	if (ptshare_mode < PTSHARE_ALL)
		return;
	for (struct vma *v = as->vmas; v; v = v->next) {
		if (!(v->flags & VM_FILE))
			continue;
		for (vaddr_t base = ALIGN_DOWN(v->start, LARGE_PAGE_SIZE); base < v->end;
		     base += LARGE_PAGE_SIZE) {
			struct vmobject *file;
			uint64_t layout;
			if ((last && base == last) || !chunk_is_text(as, base, &file, &layout))
				continue;
			last = base;
			share_chunk(as, base, file, layout);
		}
	}
}

bool ptshare_text_fault(struct addrspace *as, const struct vma *v, vaddr_t va)
{
	vaddr_t base = ALIGN_DOWN(va, LARGE_PAGE_SIZE);
	struct vmobject *file;
	uint64_t layout;
	if (ptshare_mode < PTSHARE_ALL || !(v->flags & VM_FILE) ||
	    (v->flags & VM_SHARED) || (v->prot & VM_WRITE) || chunk_pde(as->pgt, base, 0) ||
	    !chunk_is_text(as, base, &file, &layout))
		return false;
	share_chunk(as, base, file, layout);
	return true;
}

/* Take the records whose page only they hold off the list (text_lock
 * held), clearing pt.text: a chain of records for the caller to free. */
static struct text_pt *unpublish_unused(void)
{
	struct text_pt *gone = NULL;
	for (struct text_pt **pp = &records; *pp;) {
		struct text_pt *r = *pp;
		if (atomic_load(&r->pt->pt.share) != 1) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		r->pt->pt.text = 0;
		r->next = gone;
		gone = r;
	}
	return gone;
}

uint64_t ptshare_text_shrink(void)
{
	spin_lock(&text_lock);
	atomic_store(&pt_text_unused, 0);   /* a put after this counts again */
	struct text_pt *gone = unpublish_unused();
	spin_unlock(&text_lock);
	uint64_t n = 0;
	for (struct text_pt *next; gone; gone = next, n++) {
		next = gone->next;
		pt_table_put(gone->pt);   /* the last share: frees it */
		kfree(gone);
	}
	return n;
}

void ptshare_text_release_unused(void)
{
	if (atomic_load(&pt_text_unused))
		ptshare_text_shrink();
}

void ptshare_text_for_each(void (*fn)(struct page *pt, void *arg), void *arg)
{
	spin_lock(&text_lock);
	for (struct text_pt *r = records; r; r = r->next)
		fn(r->pt, arg);
	spin_unlock(&text_lock);
}

/* ---- canonical library addresses (a kernel-side prelink) ----
 *
 * Each shared object file gets one slot of the library area on its first
 * use, in order, and keeps it: the same address in every process, so the
 * records above match across different programs. Inside its slot an image
 * is placed so that its first writable page starts a 2 MiB chunk: the
 * read-only pages below it (ELF header, text, rodata) end at that boundary
 * and fill their chunks alone, and the writes of relocation, RELRO and data
 * stay in chunks of their own.
 *
 *   slot: | free ... | lo ... text, rodata | wr data, bss ... | free |
 *         ^ 2 MiB    ^ addr                ^ 2 MiB
 */
struct lib_slot {
	struct vmobject *file;
	struct lib_span span;
	vaddr_t base, len;      /* the slot: 2 MiB aligned, whole chunks */
	vaddr_t addr;           /* where span.lo goes */
};

/* A static table (no allocation: slots live forever): one per file, at
 * least 2 MiB each, so the area holds no more than this many. */
#define LIB_SLOTS ((USER_LIB_END - USER_LIB_BASE) / LARGE_PAGE_SIZE)
static struct lib_slot lib_slots[LIB_SLOTS];
static unsigned lib_nslots;
static vaddr_t lib_next = USER_LIB_BASE;   /* the first free slot address */

/* The bytes of s below and from its first writable page, in whole chunks. */
static vaddr_t span_ro_chunks(const struct lib_span *s)
{
	return ALIGN_UP(s->wr - s->lo, LARGE_PAGE_SIZE);
}

static vaddr_t span_rw_chunks(const struct lib_span *s)
{
	return ALIGN_UP(s->hi - s->wr, LARGE_PAGE_SIZE);
}

/* file's slot (made on first use), or NULL when the area is full. */
static struct lib_slot *lib_slot(struct vmobject *file, const struct lib_span *s)
{
	for (unsigned i = 0; i < lib_nslots; i++)
		if (lib_slots[i].file == file)
			return &lib_slots[i];
	vaddr_t ro = span_ro_chunks(s), len = ro + span_rw_chunks(s);
	if (len == 0 || len > USER_LIB_END - lib_next)
		return NULL;
	struct lib_slot *l = &lib_slots[lib_nslots++];
	*l = (struct lib_slot){ file, *s, lib_next, len, lib_next + ro - (s->wr - s->lo) };
	lib_next += len;
	return l;
}

vaddr_t ptshare_lib_place(struct addrspace *as, struct vmobject *file, const struct lib_span *s)
{
	if (s->lo > s->wr || s->wr > s->hi || s->hi - s->lo > USER_LIB_END - USER_LIB_BASE)
		return 0;
	spin_lock(&text_lock);   /* look-up and new slot at once */
	struct lib_slot *l = lib_slot(file, s);
	spin_unlock(&text_lock);   /* a slot never changes once made */
	if (!l || l->span.lo != s->lo || l->span.wr != s->wr || l->span.hi != s->hi ||
	    vma_overlaps(as, l->base, l->base + l->len))
		return 0;
	return l->addr;
}

/* Take file's records off the list (text_lock held): a chain for the
 * caller to put and free (put_records). */
static struct text_pt *take_records(struct vmobject *file)
{
	struct text_pt *gone = NULL;
	for (struct text_pt **pp = &records; *pp;) {
		struct text_pt *r = *pp;
		if (r->file != file) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		r->pt->pt.text = 0;
		r->next = gone;
		gone = r;
	}
	return gone;
}

/* Drop each record's share of its page and free the records. */
static void put_records(struct text_pt *gone)
{
	for (struct text_pt *next; gone; gone = next) {
		next = gone->next;
		pt_table_put(gone->pt);   /* the record's share */
		kfree(gone);
	}
}

void ptshare_text_unpublish(struct vmobject *file)
{
	spin_lock(&text_lock);
	struct text_pt *gone = take_records(file);
	spin_unlock(&text_lock);
	put_records(gone);
}

void ptshare_text_forget(struct vmobject *file)
{
	spin_lock(&text_lock);
	struct text_pt *gone = take_records(file);
	for (unsigned i = 0; i < lib_nslots; i++)
		if (lib_slots[i].file == file)
			lib_slots[i].file = NULL;   /* its addresses stay taken: slots never move */
	spin_unlock(&text_lock);
	put_records(gone);
}
