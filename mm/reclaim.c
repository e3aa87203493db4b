/* mm/reclaim.c -- the reclaimer's rounds and watermarks (see mm/reclaim.h). */
#include "mm/reclaim.h"
#include "mm/pagecache.h"
#include "mm/pagecache_lru.h"
#include "mm/frame/lru.h"
#include "mm/frame/page.h"
#include "mm/frame/swap.h"
#include "lib/atomic.h"

#define WATERMARK_LOW_DIV 64    /* low watermark: 1/64 of RAM */
#define WATERMARK_HIGH_MUL 2    /* high watermark: twice the low one */

struct reclaim_stats reclaim_stats;
uint64_t reclaim_min, reclaim_low, reclaim_high;

/* Frames to reclaim to bring free memory up to `target`. */
static uint64_t short_of(uint64_t target)
{
	uint64_t free = atomic_load(&mm_stats.free);
	return target > free ? target - free : 0;
}

static struct shrinker *shrinkers;   /* written at boot only */

void reclaim_add_shrinker(struct shrinker *s)
{
	for (struct shrinker *t = shrinkers; t; t = t->next)
		if (t == s)
			return;   /* registered already (host tests set the VFS up again) */
	s->next = shrinkers;
	atomic_store(&shrinkers, s);
}

/* Objects the shrinkers could free. */
static uint64_t shrinkable(void)
{
	uint64_t n = 0;
	for (struct shrinker *s = atomic_load(&shrinkers); s; s = s->next)
		n += s->count();
	return n;
}

/* Pages reclaim could take: clean cached pages, objects of the shrinkers
 * (lazy-free pages, anonymous pages when swap has room, ...). */
static bool reclaimable(void)
{
	return atomic_load(&pagecache_stats.pages) > atomic_load(&pagecache_stats.dirty) ||
	       shrinkable();
}

/* Who reclaims: the reclaimer thread; a task that holds nothing (system
 * call or page fault entry); a page fault between attempts, which holds its
 * address space's lock. */
enum reclaimer_kind { RECLAIM_BY_FAULT, RECLAIM_BY_TASK, RECLAIM_BY_THREAD };

/* May `who` run s's scan (SHRINKER_BACKGROUND: the thread's only;
 * SHRINKER_UNLOCKED: not under an address-space lock)? */
static bool may_run(const struct shrinker *s, enum reclaimer_kind who)
{
	if (s->flags & SHRINKER_BACKGROUND)
		return who == RECLAIM_BY_THREAD;
	return !(s->flags & SHRINKER_UNLOCKED) || who != RECLAIM_BY_FAULT;
}

uint64_t reclaim_background_pending(void)
{
	uint64_t n = pagecache_lru_pending();   /* mapped ones, tmpfs's: the thread's */
	for (struct shrinker *s = atomic_load(&shrinkers); s; s = s->next)
		if (!may_run(s, RECLAIM_BY_FAULT))
			n += s->count();
	return n;
}

/* Each shrinker's share of a round that wants `want` frames (see
 * reclaim.h): frames it freed (what free memory grew by meanwhile). */
static uint64_t shrink_caches(uint64_t want, enum reclaimer_kind who)
{
	uint64_t before = atomic_load(&mm_stats.free);
	uint64_t cached = atomic_load(&pagecache_stats.pages);
	for (struct shrinker *s = atomic_load(&shrinkers); s; s = s->next) {
		if (!may_run(s, who) || (s->flags & (SHRINKER_FIRST | SHRINKER_LAST)))
			continue;
		uint64_t n = s->count();
		n = n * want / (cached + want) + (n != 0);
		stat_add(&reclaim_stats.shrink_scanned, n);
		(void)s->scan(n);
	}
	uint64_t after = atomic_load(&mm_stats.free);
	return after > before ? after - before : 0;
}

/* What is still wanted from the shrinkers with flag (SHRINKER_FIRST or
 * _LAST) that `who` may run, in turn: frames freed. */
static uint64_t shrink_all_of(unsigned flag, uint64_t want, enum reclaimer_kind who)
{
	uint64_t freed = 0;
	for (struct shrinker *s = atomic_load(&shrinkers); s && freed < want; s = s->next)
		if ((s->flags & flag) && may_run(s, who) && s->count())
			freed += s->scan(want - freed);
	return freed;
}

/* ---- the balance between the file side and the swap side (mm/reclaim.h) ---- */

unsigned reclaim_swappiness = 60;
static uint64_t side_cost[2];          /* by enum reclaim_side; decayed */
static uint64_t file_activations_seen; /* pagecache_lru_stats.refaults_activated then */

uint64_t reclaim_side_pages(enum reclaim_side side)
{
	if (side == SIDE_FILE)
		return lru_pages(LRU_FILE_COLD) + lru_pages(LRU_FILE_HOT);
	return lru_pages(LRU_SHMEM_COLD) + lru_pages(LRU_SHMEM_HOT) + lru_pages(LRU_COLD) +
	       lru_pages(LRU_HOT);
}

void reclaim_note_cost(enum reclaim_side side, uint64_t pages)
{
	__atomic_add_fetch(&side_cost[side], pages, __ATOMIC_RELAXED);
	uint64_t lists = reclaim_side_pages(SIDE_FILE) + reclaim_side_pages(SIDE_SWAP);
	if (atomic_load(&side_cost[SIDE_FILE]) + atomic_load(&side_cost[SIDE_SWAP]) > lists / 4) {
		atomic_store(&side_cost[SIDE_FILE], atomic_load(&side_cost[SIDE_FILE]) / 2);
		atomic_store(&side_cost[SIDE_SWAP], atomic_load(&side_cost[SIDE_SWAP]) / 2);
	}
}

/* Did a refault of a file page make it active since the thread's last
 * round (the file side is thrashing)? The thread's rounds (`mine`) move
 * the mark. */
static bool file_thrashing(bool mine)
{
	uint64_t now = atomic_load(&pagecache_lru_stats.refaults_activated);
	bool moved = now != atomic_load(&file_activations_seen);
	if (mine)
		atomic_store(&file_activations_seen, now);
	return moved;
}

/* Of `want` frames, the swap side's share (see the table in
 * mm/reclaim.h): the thread's to take; a task leaves it to the thread,
 * and waits for it (syscall and fault entry: below the min watermark). */
static uint64_t swap_side_share(uint64_t want, enum reclaimer_kind who)
{
	uint64_t file = reclaim_side_pages(SIDE_FILE), swap = reclaim_side_pages(SIDE_SWAP);
	unsigned s = atomic_load(&reclaim_swappiness);
	bool thrashing = file_thrashing(who == RECLAIM_BY_THREAD);
	if (!swap || !swap_space_left() || s == 0)
		return 0;
	if (file + atomic_load(&mm_stats.free) <= reclaim_high)
		return want;
	if (!thrashing && lru_pages(LRU_FILE_COLD) >= want)
		return 0;
	uint64_t a = atomic_load(&side_cost[SIDE_SWAP]), f = atomic_load(&side_cost[SIDE_FILE]);
	uint64_t total = a + f;
	a += total, f += total, total = a + f;   /* Linux's smoothing: within 1:3 */
	uint64_t ap = s * (total + 1) / (a + 1), fp = (200 - s) * (total + 1) / (f + 1);
	return want * swap * ap / (swap * ap + file * fp + 1);
}

/* Up to want frames back: lazy-free pages first (dropping them costs no
 * I/O ever: SHRINKER_FIRST), then the file side's share of page-cache
 * pages (mapped and dirty ones by the thread only: mm/pagecache_lru.h), and
 * the shrinkers' share; then, by the reclaimer thread only, the swap side:
 * tmpfs pages and what is still wanted from the SHRINKER_LAST ones
 * (anonymous pages, mm/swap.h), and last the file side again for what the
 * swap side could not give. A task's round takes the file side's share
 * only (it waits for the thread, which takes the rest); a fault's, whose
 * allocation failed, takes all it can. How many. */
static uint64_t reclaim_some(uint64_t want, enum reclaimer_kind who)
{
	stat_inc(&reclaim_stats.runs);
	bool thread = who == RECLAIM_BY_THREAD;
	enum pagecache_scan how = thread ? PCR_UNMAP : PCR_IDLE;
	uint64_t freed = shrink_all_of(SHRINKER_FIRST, want, who);
	uint64_t swap_want = who != RECLAIM_BY_FAULT && freed < want ?
				     swap_side_share(want - freed, who) : 0;
	if (freed + swap_want < want)
		freed += pagecache_lru_reclaim(SIDE_FILE, want - freed - swap_want, how);
	freed += shrink_caches(want, who);
	if (freed < want && thread)
		freed += pagecache_lru_reclaim(SIDE_SWAP, want - freed, how);
	if (freed < want)
		freed += shrink_all_of(SHRINKER_LAST, want - freed, who);
	if (freed < want && swap_want && thread)
		freed += pagecache_lru_reclaim(SIDE_FILE, want - freed, how);
	return freed;
}

bool reclaim_wanted(void)
{
	return atomic_load(&mm_stats.free) < reclaim_low && reclaimable();
}

uint64_t reclaim_background(void)
{
	uint64_t want = short_of(reclaim_high), freed = 0;
	stat_inc(&reclaim_stats.background_runs);
	if (want)
		freed = reclaim_some(want, RECLAIM_BY_THREAD);
	stat_add(&reclaim_stats.background_discarded, freed);
	return freed;
}

/* A task's own round: frames freed. */
static uint64_t reclaim_by_task(uint64_t want, enum reclaimer_kind who)
{
	uint64_t freed = reclaim_some(want, who);
	stat_add(&reclaim_stats.direct_freed, freed);
	return freed;
}

void reclaim_if_low(void)
{
	if (atomic_load(&mm_stats.free) < reclaim_min && reclaimable())
		reclaim_by_task(short_of(reclaim_low), RECLAIM_BY_TASK);
}

bool reclaim_free_above(uint64_t mark)
{
	return atomic_load(&mm_stats.free) > mark;
}

bool reclaim_direct(void)
{
	uint64_t want = short_of(reclaim_high);
	return reclaim_by_task(want ? want : 1, RECLAIM_BY_FAULT) > 0;
}

void reclaim_init(void)
{
	reclaim_low = mm_stats.managed / WATERMARK_LOW_DIV;
	reclaim_min = reclaim_low / 2;
	reclaim_high = reclaim_low * WATERMARK_HIGH_MUL;
	atomic_store(&mm_stats.reserve, reclaim_min);   /* read-ahead leaves it (PA_NORESERVE) */
}
