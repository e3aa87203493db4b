/* mm/frame/lru.c -- the lists of frames page replacement chooses from (see mm/frame/lru.h). */
#include "mm/frame/lru.h"
#include "lib/atomic.h"
#include "lib/list.h"

static struct spinlock lru_lock = SPINLOCK_INIT("lru", LOCK_RANK_LRU);
/* The lists and their lengths (named for gdb: pg-lazyfree reads them). */
struct list lru_lists[LRU_LISTS] = {
	{ &lru_lists[0], &lru_lists[0] }, { &lru_lists[1], &lru_lists[1] },
	{ &lru_lists[2], &lru_lists[2] }, { &lru_lists[3], &lru_lists[3] },
	{ &lru_lists[4], &lru_lists[4] }, { &lru_lists[5], &lru_lists[5] },
	{ &lru_lists[6], &lru_lists[6] },
};
uint64_t lru_nr[LRU_LISTS];

static enum lru_list list_of(const struct page *pg)
{
	if (pg->type == PG_FILE && (pg->aflags & AF_SHMEM))
		return pg->aflags & AF_HOT ? LRU_SHMEM_HOT : LRU_SHMEM_COLD;
	if (pg->type == PG_FILE)
		return pg->aflags & AF_HOT ? LRU_FILE_HOT : LRU_FILE_COLD;
	if (pg->aflags & AF_LAZYFREE)
		return LRU_LAZY;
	return pg->aflags & AF_HOT ? LRU_HOT : LRU_COLD;
}

/* The flag that names list l (0 for the cold list). */
static uint16_t list_flag(enum lru_list l)
{
	return l == LRU_HOT || l == LRU_FILE_HOT || l == LRU_SHMEM_HOT ? AF_HOT :
	       l == LRU_LAZY ? AF_LAZYFREE : 0;
}

/* Link pg at end `at` of l and mark it (lru_lock held). */
static void put_on(struct page *pg, enum lru_list l, enum list_end at)
{
	__atomic_fetch_and(&pg->aflags, (uint16_t)~(AF_HOT | AF_LAZYFREE), __ATOMIC_RELAXED);
	__atomic_fetch_or(&pg->aflags, AF_LRU | list_flag(l), __ATOMIC_RELAXED);
	if (at == AT_HEAD)
		list_add(&lru_lists[l], &pg->link);
	else
		list_add_tail(&lru_lists[l], &pg->link);
	lru_nr[l]++;
}

/* Unlink pg (on a list; lru_lock held); its AF_LRU stays to the caller. */
static void take_off(struct page *pg)
{
	list_del(&pg->link);
	lru_nr[list_of(pg)]--;
}

void lru_add(struct page *pg, enum lru_list l)
{
	spin_lock(&lru_lock);
	if (!(pg->aflags & AF_LRU)) {
		__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_TEST, __ATOMIC_RELAXED);
		put_on(pg, l, AT_TAIL);
	}
	spin_unlock(&lru_lock);
}

void lru_del(struct page *pg)
{
	spin_lock(&lru_lock);
	if (pg->aflags & AF_LRU) {
		take_off(pg);
		__atomic_fetch_and(&pg->aflags, (uint16_t)~(AF_LRU | AF_HOT | AF_LAZYFREE),
				   __ATOMIC_RELAXED);
	}
	spin_unlock(&lru_lock);
}

/* Move pg to end `at` of l if it is on a list (lru_lock held). */
static void move_locked(struct page *pg, enum lru_list l, enum list_end at)
{
	if (pg->aflags & AF_LRU) {
		take_off(pg);
		put_on(pg, l, at);
	}
}

void lru_move(struct page *pg, enum lru_list l, enum list_end at)
{
	lru_move_all(&pg, 1, l, at);
}

void lru_move_all(struct page *const *pages, unsigned n, enum lru_list l, enum list_end at)
{
	if (!n)
		return;
	spin_lock(&lru_lock);
	for (unsigned i = 0; i < n; i++)
		move_locked(pages[i], l, at);
	spin_unlock(&lru_lock);
}

uint64_t lru_pages(enum lru_list l)
{
	return atomic_load(&lru_nr[l]);
}

uint64_t lru_pages_all(void)
{
	return lru_pages(LRU_COLD) + lru_pages(LRU_HOT);
}

bool page_hold(struct page *pg)
{
	if (__atomic_fetch_or(&pg->aflags, AF_RECLAIM, __ATOMIC_SEQ_CST) & AF_RECLAIM)
		return false;
	if (page_tryget(pg))
		return true;
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_RECLAIM, __ATOMIC_SEQ_CST);
	return false;
}

void page_let_go(struct page *pg)
{
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_RECLAIM, __ATOMIC_SEQ_CST);
	page_put(pg);
}

struct page *lru_take(enum lru_list l)
{
	struct page *found = NULL;
	spin_lock(&lru_lock);
	for (uint64_t n = lru_nr[l]; n && !found; n--) {
		struct page *pg = list_entry(lru_lists[l].next, struct page, link);
		list_del(&pg->link);
		list_add_tail(&lru_lists[l], &pg->link);
		if (page_hold(pg))
			found = pg;
	}
	spin_unlock(&lru_lock);
	return found;
}
