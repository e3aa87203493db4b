/* mm/ptcheck.c -- validation of page-table entry writes (see mm/ptcheck.h). */
#include "mm/ptcheck.h"
#include "mm/page.h"
#include "mm/ptpage.h"

/* A table entry (level > PT, no PS): what it points at. */
static const char *check_table(int level, pte_t e)
{
	struct page *t = pa_to_page(pte_addr(e));
	if (!t || t->type != PG_PAGETABLE || t->pt.level != level - 1)
		return "table entry points at a frame that is not a table of the next level";
	if (t->pt.share > 1 && pte_writable(e))
		return "writable table entry to a page-table page shared by several address spaces";
	return NULL;
}

/* A user leaf e: the frame must be user memory with an owner, and a
 * private writable one must have no other owner. */
static const char *check_user_leaf(struct page *f, pte_t e)
{
	if (!f)
		return "user mapping of a frame outside RAM";
	if (f->type != PG_ANON && f->type != PG_FILE)
		return "user mapping of a frame that is not user memory (kernel, page table, free "
		       "or reserved)";
	if (f->refcount == 0)
		return "user mapping of a frame with no reference";
	if (pte_writable(e) && !pte_shared(e) && f->refcount > 1)
		return "writable private user mapping of a frame with more than one reference "
		       "(copy-on-write broken)";
	return NULL;
}

const char *ptcheck_entry(const pte_t *ep, int level, pte_t e)
{
	struct page *holder = ptpage_of(ep);
	if (!holder || holder->type != PG_PAGETABLE || holder->pt.level != level)
		return "entry written into a frame that is not a page table of that level";
	if (!pte_mapped(e))
		return NULL;
	if (!pte_is_leaf(e, level))
		return check_table(level, e);
	if (holder->pt.share > 1 && pte_writable(e))
		return "writable leaf written into a page-table page shared by several address spaces";
	struct page *f = pa_to_page(pte_addr(e));
	if (pte_user(e) || pte_protnone(e))
		return check_user_leaf(f, e);
	if (level == PGL_PT && f && f->type == PG_PAGETABLE && pte_writable(e))
		return "writable kernel mapping of a page-table page";
	return NULL;
}
