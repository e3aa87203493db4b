/*
 * tools/bench/policies.c -- page-replacement policies over a trace
 * (policies.h). Each runs in O(n) or O(n log n) time and O(pages + n)
 * memory, so traces of millions of references take a second.
 */
#include "policies.h"

#include <stdbool.h>
#include <stdlib.h>

static const char *const names[POLICIES] = { "opt", "lru", "clock", "fifo" };

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
	default: return NONE;
	}
}
