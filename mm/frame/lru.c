/* mm/frame/lru.c -- the list of anonymous frames (see mm/frame/lru.h). */
#include "mm/frame/lru.h"
#include "lib/atomic.h"
#include "lib/list.h"

static struct spinlock lru_lock = SPINLOCK_INIT("anon-lru", LOCK_RANK_ANON_LRU);
static struct list lru = { &lru, &lru };
static uint64_t nr_lru;

void lru_add(struct page *pg)
{
	spin_lock(&lru_lock);
	if (!(pg->aflags & AF_LRU)) {
		__atomic_fetch_or(&pg->aflags, AF_LRU, __ATOMIC_RELAXED);
		list_add_tail(&lru, &pg->link);
		nr_lru++;
	}
	spin_unlock(&lru_lock);
}

void lru_del(struct page *pg)
{
	spin_lock(&lru_lock);
	if (pg->aflags & AF_LRU) {
		__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_LRU, __ATOMIC_RELAXED);
		list_del(&pg->link);
		nr_lru--;
	}
	spin_unlock(&lru_lock);
}

void lru_move_to_head(struct page *pg)
{
	spin_lock(&lru_lock);
	if (pg->aflags & AF_LRU) {
		list_del(&pg->link);
		list_add(&lru, &pg->link);
	}
	spin_unlock(&lru_lock);
}

uint64_t lru_pages(void)
{
	return atomic_load(&nr_lru);
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

struct page *lru_take(void)
{
	struct page *found = NULL;
	spin_lock(&lru_lock);
	for (uint64_t n = nr_lru; n && !found; n--) {
		struct page *pg = list_entry(lru.next, struct page, link);
		list_del(&pg->link);
		list_add_tail(&lru, &pg->link);
		if (page_hold(pg))
			found = pg;
	}
	spin_unlock(&lru_lock);
	return found;
}
