/*
 * tools/bench/policies.c -- page-replacement policies over a trace
 * (policies.h). Each runs in O(n) or O(n log n) time and O(pages + n)
 * memory, so traces of millions of references take a second.
 */
#include "policies.h"

#include <stdbool.h>
#include <stdlib.h>

static const char *const names[POLICIES] = { "opt", "lru", "clock", "fifo", "clockpro",
						 "twolist" };

const char *policy_name(enum policy p)
{
	return p < POLICIES ? names[p] : NULL;
}

#define NONE UINT64_MAX

/* FIFO: a ring of the resident pages in arrival order. */
static uint64_t fifo(const uint64_t *refs, uint64_t n, uint64_t pages, uint64_t frames)
{
	uint64_t *ring = malloc(frames * sizeof(*ring)), misses = 0, head = 0, used = 0;
	unsigned char *in = calloc(pages, 1);
	for (uint64_t i = 0; ring && in && i < n; i++) {
		uint64_t x = refs[i];
		if (in[x])
			continue;
		misses++;
		if (used == frames)
			in[ring[head]] = 0;
		else
			used++;
		ring[head] = x;
		in[x] = 1;
		head = (head + 1) % frames;
	}
	misses = ring && in ? misses : NONE;
	free(ring);
	free(in);
	return misses;
}

/* LRU: a list of the resident pages, most recent first (prev/next by page). */
static uint64_t lru(const uint64_t *refs, uint64_t n, uint64_t pages, uint64_t frames)
{
	uint64_t *prev = malloc(pages * sizeof(*prev)), *next = malloc(pages * sizeof(*next));
	unsigned char *in = calloc(pages, 1);
	uint64_t head = NONE, tail = NONE, used = 0, misses = 0;
	for (uint64_t i = 0; prev && next && in && i < n; i++) {
		uint64_t x = refs[i];
		if (in[x]) {   /* take it out, then in front */
			if (prev[x] != NONE)
				next[prev[x]] = next[x];
			else
				head = next[x];
			if (next[x] != NONE)
				prev[next[x]] = prev[x];
			else
				tail = prev[x];
		} else {
			misses++;
			if (used == frames) {   /* the tail goes */
				uint64_t v = tail;
				tail = prev[v];
				if (tail != NONE)
					next[tail] = NONE;
				else
					head = NONE;
				in[v] = 0;
			} else {
				used++;
			}
			in[x] = 1;
		}
		prev[x] = NONE, next[x] = head;
		if (head != NONE)
			prev[head] = x;
		head = x;
		if (tail == NONE)
			tail = x;
	}
	misses = prev && next && in ? misses : NONE;
	free(prev);
	free(next);
	free(in);
	return misses;
}

/* CLOCK: frames in a circle with a referenced bit each (set when the page
 * comes in and on each reference), slot[page] its frame. */
static uint64_t clock_policy(const uint64_t *refs, uint64_t n, uint64_t pages, uint64_t frames)
{
	uint64_t *page = malloc(frames * sizeof(*page)), *slot = malloc(pages * sizeof(*slot));
	unsigned char *ref = calloc(frames, 1);
	uint64_t hand = 0, used = 0, misses = 0;
	for (uint64_t k = 0; slot && k < pages; k++)
		slot[k] = NONE;
	for (uint64_t i = 0; page && slot && ref && i < n; i++) {
		uint64_t x = refs[i], s;
		if (slot[x] != NONE) {
			ref[slot[x]] = 1;
			continue;
		}
		misses++;
		if (used < frames) {
			s = used++;
		} else {
			for (; ref[hand]; hand = (hand + 1) % frames)
				ref[hand] = 0;   /* a second chance */
			s = hand;
			hand = (hand + 1) % frames;
			slot[page[s]] = NONE;
		}
		page[s] = x, slot[x] = s, ref[s] = 1;
	}
	misses = page && slot && ref ? misses : NONE;
	free(page);
	free(slot);
	free(ref);
	return misses;
}

/* CLOCK-Pro (Jiang, Chen and Zhang, USENIX 2005): LIRS's reuse-distance
 * test on a clock. Every resident page and every recently evicted cold
 * page still "in its test period" (non-resident: metadata only) sit on one
 * circular list; new entries go in just behind the hot hand (the newest
 * position). Three hands go round it:
 *
 *   cold hand  frees a frame: a cold page not referenced is evicted (kept
 *              as a non-resident test entry if in its test period); one
 *              referenced in its test period becomes hot, else starts one
 *   hot hand   turns an unreferenced hot page cold (when hot pages exceed
 *              frames - cold target), ends the test periods it passes
 *              (lowering the cold target: cold pages did not need them)
 *   test hand  drops non-resident entries beyond `frames` of them
 *
 * A miss on a page still in its test period (a short reuse distance) makes
 * it hot and raises the cold target. Loops and scans longer than memory
 * pass through the cold frames and leave the hot pages be. */
struct cpro {
	uint64_t *prev, *next;
	unsigned char *st;    /* CP_ bits per page */
	uint64_t hh, hc, ht;  /* the hands (pages), NONE when the list is empty */
	uint64_t nhot, ncold, ntest, mc, m;
};
#define CP_LISTED 1
#define CP_RES 2
#define CP_HOT 4
#define CP_REF 8
#define CP_TEST 16

static void cp_unlink(struct cpro *c, uint64_t x)
{
	uint64_t nx = c->next[x] == x ? NONE : c->next[x];
	c->hh = c->hh == x ? nx : c->hh;
	c->hc = c->hc == x ? nx : c->hc;
	c->ht = c->ht == x ? nx : c->ht;
	c->next[c->prev[x]] = c->next[x];
	c->prev[c->next[x]] = c->prev[x];
	c->st[x] &= (unsigned char)~CP_LISTED;
}

/* Insert x at the newest position: just behind the hot hand. */
static void cp_insert(struct cpro *c, uint64_t x)
{
	c->st[x] |= CP_LISTED;
	if (c->hh == NONE) {
		c->prev[x] = c->next[x] = x;
		c->hh = c->hc = c->ht = x;
		return;
	}
	uint64_t at = c->hh;
	c->prev[x] = c->prev[at], c->next[x] = at;
	c->next[c->prev[at]] = x, c->prev[at] = x;
}

static void cp_fewer_cold(struct cpro *c)
{
	c->mc = c->mc > 1 ? c->mc - 1 : 1;
}

/* The hot hand: run until one hot page turned cold. */
static void cp_hand_hot(struct cpro *c)
{
	while (c->nhot) {
		uint64_t p = c->hh;
		c->hh = c->next[p];
		unsigned char s = c->st[p];
		if (s & CP_HOT) {
			if (s & CP_REF) {
				c->st[p] &= (unsigned char)~CP_REF;
				continue;
			}
			c->st[p] &= (unsigned char)~(CP_HOT | CP_TEST);
			c->nhot--, c->ncold++;
			return;
		}
		if (!(s & CP_TEST))
			continue;
		cp_fewer_cold(c);   /* a test period ran out unused */
		c->st[p] &= (unsigned char)~CP_TEST;
		if (!(s & CP_RES))
			cp_unlink(c, p), c->ntest--;
	}
}

/* The test hand: drop one non-resident entry. */
static void cp_hand_test(struct cpro *c)
{
	while (c->ntest) {
		uint64_t p = c->ht;
		c->ht = c->next[p];
		unsigned char s = c->st[p];
		if ((s & CP_HOT) || !(s & CP_TEST))
			continue;
		cp_fewer_cold(c);
		c->st[p] &= (unsigned char)~CP_TEST;
		if (!(s & CP_RES)) {
			cp_unlink(c, p), c->ntest--;
			return;
		}
	}
}

/* The cold hand: free one frame. */
static void cp_hand_cold(struct cpro *c)
{
	for (;;) {
		if (!c->ncold)
			cp_hand_hot(c);
		uint64_t p = c->hc;
		c->hc = c->next[p];
		unsigned char s = c->st[p];
		if ((s & (CP_RES | CP_HOT)) != CP_RES)
			continue;
		if (s & CP_REF) {   /* used: hot if in its test period, else a test period */
			c->st[p] &= (unsigned char)~CP_REF;
			cp_unlink(c, p);
			if (s & CP_TEST) {
				c->st[p] = (unsigned char)((c->st[p] & ~CP_TEST) | CP_HOT);
				c->ncold--, c->nhot++;
			} else {
				c->st[p] |= CP_TEST;
			}
			cp_insert(c, p);
			while (c->nhot > c->m - c->mc)
				cp_hand_hot(c);
			continue;
		}
		c->st[p] &= (unsigned char)~CP_RES;
		c->ncold--;
		if (s & CP_TEST)
			c->ntest++;   /* stays on as non-resident */
		else
			cp_unlink(c, p);
		return;
	}
}

static bool cp_access(struct cpro *c, uint64_t x)
{
	if (c->st[x] & CP_RES) {
		c->st[x] |= CP_REF;
		return false;
	}
	if (c->nhot + c->ncold >= c->m)
		cp_hand_cold(c);
	if (c->st[x] & CP_LISTED) {   /* refault in its test period: hot */
		c->mc = c->mc + 1 < c->m ? c->mc + 1 : c->mc;
		cp_unlink(c, x);
		c->ntest--;
		c->st[x] = CP_RES | CP_HOT;
		c->nhot++;
		cp_insert(c, x);
		while (c->nhot > c->m - c->mc)
			cp_hand_hot(c);
	} else if (c->nhot + c->mc < c->m) {   /* filling up: hot (LIRS's start) */
		c->st[x] = CP_RES | CP_HOT;
		c->nhot++;
		cp_insert(c, x);
	} else {
		c->st[x] = CP_RES | CP_TEST;
		c->ncold++;
		cp_insert(c, x);
	}
	while (c->ntest > c->m)
		cp_hand_test(c);
	return true;
}

static uint64_t clockpro(const uint64_t *refs, uint64_t n, uint64_t pages, uint64_t frames)
{
	struct cpro c = { .prev = malloc(pages * sizeof(uint64_t)),
			  .next = malloc(pages * sizeof(uint64_t)), .st = calloc(pages, 1),
			  .hh = NONE, .hc = NONE, .ht = NONE, .m = frames,
			  .mc = frames / 100 + 1 };
	uint64_t misses = 0;
	for (uint64_t i = 0; c.prev && c.next && c.st && i < n; i++)
		misses += cp_access(&c, refs[i]);
	misses = c.prev && c.next && c.st ? misses : NONE;
	free(c.prev);
	free(c.next);
	free(c.st);
	return misses;
}

/* Two lists, CLOCK-Pro's outline: what the kernel does (mm/swap.c's
 * policy), with exact reference bits. Hot and cold pages on two clocks
 * (lists whose head is the hand); m = frames, m_c the cold pages' share:
 *
 *   a miss, filling up    hot while fewer than m - m_c are hot, else cold
 *   a miss, memory full   the reclaimer's run: TL_RUN(m) evictions by
 *   cold hand             a referenced cold page in its test period turns
 *                         hot, one not in it starts one; an unreferenced
 *                         one is evicted, its slot noting the count of
 *                         evictions so far
 *   hot hand              (while more than m - m_c are hot, or none cold)
 *                         clears a reference, or turns the page cold
 *   m_c                   never below two runs' worth (TL_FLOOR)
 *   a refault             cold, in a test period; m_c + 1 if fewer pages
 *                         were evicted since it was than there are cold
 *                         pages (back within a cold page's stay: more
 *                         cold room would have kept it), else - 1
 *
 * Unlike CLOCK-Pro no non-resident page is listed: its test period is the
 * note and the count of hot pages. */
#define TL_RUN(m) ((m) * 3 / 128 + 1)   /* the kernel's run: high less min watermark, 3/128 of RAM */
#define TL_FLOOR(m) (2 * TL_RUN(m) < (m) ? 2 * TL_RUN(m) : (m) - 1)
struct twolist {
	uint64_t *prev, *next, *note;   /* note: evictions before its own + 1, 0: none */
	unsigned char *st;               /* TL_ bits per page */
	uint64_t head[2], n[2];          /* [0] cold, [1] hot: the oldest (NONE: empty), counts */
	uint64_t evictions, mc, m;
};
#define TL_RES 1
#define TL_REF 2
#define TL_TEST 4

static void tl_insert(struct twolist *t, int hot, uint64_t x)
{
	uint64_t h = t->head[hot];
	if (h == NONE) {
		t->prev[x] = t->next[x] = x;
		t->head[hot] = x;
	} else {   /* behind the hand: the newest */
		t->prev[x] = t->prev[h], t->next[x] = h;
		t->next[t->prev[h]] = x, t->prev[h] = x;
	}
	t->n[hot]++;
}

static void tl_remove(struct twolist *t, int hot, uint64_t x)
{
	if (t->next[x] == x)
		t->head[hot] = NONE;
	else if (t->head[hot] == x)
		t->head[hot] = t->next[x];
	t->next[t->prev[x]] = t->next[x];
	t->prev[t->next[x]] = t->prev[x];
	t->n[hot]--;
}

/* The hand of list `hot`: its page, the hand one further. */
static uint64_t tl_hand(struct twolist *t, int hot)
{
	uint64_t x = t->head[hot];
	t->head[hot] = t->next[x];
	return x;
}

static void tl_balance(struct twolist *t)
{
	while (t->n[1] && (t->n[1] + t->mc > t->m || !t->n[0])) {
		uint64_t p = tl_hand(t, 1);
		if (t->st[p] & TL_REF) {
			t->st[p] &= (unsigned char)~TL_REF;
			continue;
		}
		tl_remove(t, 1, p);
		t->st[p] &= (unsigned char)~TL_TEST;
		tl_insert(t, 0, p);
	}
}

/* Free a frame: the cold hand until it evicts. */
static void tl_evict(struct twolist *t)
{
	for (;;) {
		tl_balance(t);
		uint64_t p = tl_hand(t, 0);
		unsigned char s = t->st[p];
		if (!(s & TL_REF)) {
			tl_remove(t, 0, p);
			t->st[p] = 0;
			t->note[p] = ++t->evictions;
			return;
		}
		t->st[p] = (unsigned char)((s & ~TL_REF) | TL_TEST);
		if (s & TL_TEST) {   /* used in its test period: hot */
			t->st[p] &= (unsigned char)~TL_TEST;
			tl_remove(t, 0, p);
			tl_insert(t, 1, p);
		}
	}
}

static bool tl_access(struct twolist *t, uint64_t x)
{
	if (t->st[x] & TL_RES) {
		t->st[x] |= TL_REF;
		return false;
	}
	if (t->n[0] + t->n[1] >= t->m)
		for (uint64_t k = TL_RUN(t->m); k && t->n[0] + t->n[1]; k--)
			tl_evict(t);
	int hot = 0;
	if (t->note[x]) {   /* a refault: cold either way, m_c as it says */
		bool in_test = t->evictions - t->note[x] < t->n[0];
		t->mc = in_test ? (t->mc + 1 < t->m ? t->mc + 1 : t->mc) :
			(t->mc > TL_FLOOR(t->m) ? t->mc - 1 : t->mc);
		t->note[x] = 0;
	} else {
		hot = t->n[1] + t->mc < t->m;
	}
	t->st[x] = TL_RES | TL_TEST;
	tl_insert(t, hot, x);
	return true;
}

static uint64_t twolist(const uint64_t *refs, uint64_t n, uint64_t pages, uint64_t frames)
{
	struct twolist t = { .prev = malloc(pages * sizeof(uint64_t)),
			     .next = malloc(pages * sizeof(uint64_t)),
			     .note = calloc(pages, sizeof(uint64_t)), .st = calloc(pages, 1),
			     .head = { NONE, NONE }, .m = frames, .mc = TL_FLOOR(frames) };
	bool ok = t.prev && t.next && t.note && t.st;
	uint64_t misses = 0;
	for (uint64_t i = 0; ok && i < n; i++)
		misses += tl_access(&t, refs[i]);
	free(t.prev);
	free(t.next);
	free(t.note);
	free(t.st);
	return ok ? misses : NONE;
}

/* A max-heap of (next use, page) with stale entries left in (OPT). */
struct entry {
	uint64_t when, page;
};

static void heap_push(struct entry *h, uint64_t *len, struct entry e)
{
	uint64_t i = (*len)++;
	for (; i > 0 && h[(i - 1) / 2].when < e.when; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = e;
}

static struct entry heap_pop(struct entry *h, uint64_t *len)
{
	struct entry top = h[0], last = h[--(*len)];
	uint64_t i = 0;
	for (;;) {
		uint64_t c = 2 * i + 1;
		if (c >= *len)
			break;
		if (c + 1 < *len && h[c + 1].when > h[c].when)
			c++;
		if (h[c].when <= last.when)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return top;
}

/* OPT: next[i], the next reference to refs[i]'s page after i (n: none),
 * found backwards; a resident page's key is its next use, and the page
 * with the farthest one goes. An entry is current when its key is the
 * page's next use now (nextuse[page]); older ones are skipped. */
static uint64_t opt(const uint64_t *refs, uint64_t n, uint64_t pages, uint64_t frames)
{
	uint64_t *next = malloc(n * sizeof(*next)), *last = malloc(pages * sizeof(*last));
	uint64_t *nextuse = malloc(pages * sizeof(*nextuse)), len = 0, used = 0, misses = 0;
	struct entry *heap = malloc((n + 1) * sizeof(*heap));
	unsigned char *in = calloc(pages, 1);
	bool ok = next && last && nextuse && heap && in;
	for (uint64_t k = 0; ok && k < pages; k++)
		last[k] = n;
	for (uint64_t i = n; ok && i-- > 0;) {
		next[i] = last[refs[i]];
		last[refs[i]] = i;
	}
	for (uint64_t i = 0; ok && i < n; i++) {
		uint64_t x = refs[i];
		if (!in[x]) {
			misses++;
			if (used == frames) {
				struct entry e;
				do
					e = heap_pop(heap, &len);
				while (!in[e.page] || nextuse[e.page] != e.when);
				in[e.page] = 0;
			} else {
				used++;
			}
			in[x] = 1;
		}
		nextuse[x] = next[i];
		heap_push(heap, &len, (struct entry){ next[i], x });
	}
	misses = ok ? misses : NONE;
	free(next);
	free(last);
	free(nextuse);
	free(heap);
	free(in);
	return misses;
}

uint64_t policy_misses(enum policy p, const uint64_t *refs, uint64_t n, uint64_t pages,
		       uint64_t frames)
{
	if (frames == 0)
		return NONE;
	switch (p) {
	case POLICY_OPT: return opt(refs, n, pages, frames);
	case POLICY_LRU: return lru(refs, n, pages, frames);
	case POLICY_CLOCK: return clock_policy(refs, n, pages, frames);
	case POLICY_FIFO: return fifo(refs, n, pages, frames);
	case POLICY_CLOCKPRO: return clockpro(refs, n, pages, frames);
	case POLICY_TWOLIST: return twolist(refs, n, pages, frames);
	default: return NONE;
	}
}
