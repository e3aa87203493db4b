/* arch/x86_64/pv_patch.c -- boot-time patching of the pv_ops call sites.
 *
 * Every pv_* wrapper compiles to `call *pv_ops+OFF(%rip)` (6 bytes) with a
 * struct pv_site record in .pvsites. Once the backend is chosen, each site
 * is rewritten, in place, into
 *
 *   the native instructions inline, padded with NOPs -- when the backend's
 *     function for that slot is the native one and a template exists that
 *     fits the site and writes only registers the site lets it clobber;
 *   or `call backend_fn` (5 bytes, rel32) plus a 1-byte NOP.
 *
 * The kernel text is mapped read-only (W^X), so the new bytes are written
 * through the direct map, where the same frames are writable (and NX); a
 * serializing instruction then makes sure the CPU runs the new code.
 * Sites keep their length, so a return address inside a site stays valid.
 */
#include "arch/x86_64/pv_patch.h"
#include "arch/x86_64/pv_native.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"
#include "lib/string.h"

extern const struct pv_site _pvsites_start[], _pvsites_end[];

/* Write n bytes at kernel-text address `at` through the direct map. */
static void text_write(uint64_t at, const void *bytes, unsigned n)
{
	memcpy(P2V(KV2P(at)), bytes, n);
}

/* Fill [at, at + n) with NOP instructions. */
static void text_pad(uint64_t at, unsigned n)
{
	while (n) {
		unsigned k = n < PV_NOP_MAX ? n : PV_NOP_MAX;
		text_write(at, pv_native_nop(k), k);
		at += k;
		n -= k;
	}
}

/* Rewrite site s into `call fn` and NOPs. */
static void patch_call(const struct pv_site *s, const void *fn)
{
	int64_t rel = (int64_t)(uintptr_t)fn - (int64_t)(s->addr + CALL_REL32_LEN);
	if (rel != (int32_t)rel)
		panic("pv: backend function %p out of rel32 reach of site %#lx", fn, s->addr);
	uint8_t call[CALL_REL32_LEN] = { CALL_REL32_OPCODE };
	int32_t rel32 = (int32_t)rel;
	memcpy(call + 1, &rel32, sizeof(rel32));
	text_write(s->addr, call, CALL_REL32_LEN);
	text_pad(s->addr + CALL_REL32_LEN, s->len - CALL_REL32_LEN);
}

/* Can template t replace site s? */
static bool insn_fits(const struct pv_site *s, const struct pv_insn *t)
{
	return t && t->end - t->start <= s->len && (t->clobbers & ~s->clobbers) == 0;
}

unsigned pv_site_count(void)
{
	return (unsigned)(_pvsites_end - _pvsites_start);
}

struct pv_patch_stats pv_patch_sites(void)
{
	struct pv_patch_stats st = { 0 };
	for (const struct pv_site *s = _pvsites_start; s < _pvsites_end; s++) {
		if (s->slot == 0 || s->slot >= PV_NSLOTS || s->len < CALL_REL32_LEN)
			panic("pv: bad .pvsites record for site %#lx (slot %u, len %u)",
			      s->addr, s->slot, s->len);
		const void *fn = ((const void *const *)&pv_ops)[s->slot];
		const struct pv_insn *t = pv_native_insn(s->slot, fn);
		if (insn_fits(s, t)) {
			unsigned len = (unsigned)(t->end - t->start);
			text_write(s->addr, t->start, len);
			text_pad(s->addr + len, s->len - len);
			st.inlined++;
		} else {
			patch_call(s, fn);
			st.direct++;
		}
	}
	native_serialize();
	return st;
}
