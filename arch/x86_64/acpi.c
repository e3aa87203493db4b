/* arch/x86_64/acpi.c -- RSDP -> RSDT/XSDT -> MADT, read-only, just enough
 * to list the CPUs (ACPI 6.5, sections 5.2.5-5.2.12). */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/memlayout.h"
#include "lib/string.h"

struct rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;               /* revision >= 2 from here on */
	uint64_t xsdt;
	uint8_t xchecksum;
	uint8_t reserved[3];
} __packed;

struct sdt {
	char sig[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_rev, creator, creator_rev;
} __packed;

struct madt {
	struct sdt h;
	uint32_t lapic;
	uint32_t flags;
	uint8_t entries[];
} __packed;

#define MADT_LAPIC 0
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC 9
#define LAPIC_ENABLED 1u
#define LAPIC_ONLINE_CAPABLE 2u
#define EBDA_SEG_PTR 0x40e
#define BIOS_AREA 0xe0000
#define BIOS_AREA_END 0x100000
#define RSDP_V1_LEN 20

static bool sum_ok(const void *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += ((const uint8_t *)p)[i];
	return s == 0;
}

static const struct rsdp *rsdp_at(paddr_t pa)
{
	const struct rsdp *r = P2V(pa);
	if (memcmp(r->sig, "RSD PTR ", 8) != 0 || !sum_ok(r, RSDP_V1_LEN))
		return NULL;
	return r;
}

/* The RSDP on a 16-byte boundary of [lo, hi). */
static const struct rsdp *rsdp_scan(paddr_t lo, paddr_t hi)
{
	for (paddr_t pa = ALIGN_UP(lo, 16); pa + sizeof(struct rsdp) <= hi; pa += 16) {
		const struct rsdp *r = rsdp_at(pa);
		if (r)
			return r;
	}
	return NULL;
}

static const struct rsdp *rsdp_find(paddr_t hint)
{
	const struct rsdp *r = hint ? rsdp_at(hint) : NULL;
	paddr_t ebda = (paddr_t)*(volatile uint16_t *)P2V(EBDA_SEG_PTR) << 4;
	if (!r && ebda)
		r = rsdp_scan(ebda, ebda + 1024);
	return r ? r : rsdp_scan(BIOS_AREA, BIOS_AREA_END);
}

static const struct sdt *sdt_at(paddr_t pa, const char *sig)
{
	const struct sdt *t = P2V(pa);
	if (!pa || memcmp(t->sig, sig, 4) != 0 || !sum_ok(t, t->length))
		return NULL;
	return t;
}

/* The table with signature sig listed by the XSDT (64-bit entries) or the
 * RSDT (32-bit entries). */
static const struct sdt *table_find(const struct rsdp *r, const char *sig)
{
	const struct sdt *x = r->revision >= 2 ? sdt_at(r->xsdt, "XSDT") : NULL;
	const struct sdt *root = x ? x : sdt_at(r->rsdt, "RSDT");
	if (!root)
		return NULL;
	size_t width = x ? 8 : 4, n = (root->length - sizeof(*root)) / width;
	const uint8_t *e = (const uint8_t *)(root + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t pa = 0;
		memcpy(&pa, e + i * width, width);
		const struct sdt *t = sdt_at(pa, sig);
		if (t)
			return t;
	}
	return NULL;
}

static void add_cpu(struct acpi_cpus *out, uint32_t id, uint32_t flags)
{
	if (!(flags & (LAPIC_ENABLED | LAPIC_ONLINE_CAPABLE)))
		return;
	if (out->ncpus == MAX_CPUS) {
		out->ignored++;
		return;
	}
	out->apic_id[out->ncpus++] = id;
}

/* Walk the MADT's entries: processors (xAPIC and x2APIC) and an address
 * override. */
static void madt_parse(const struct madt *m, struct acpi_cpus *out)
{
	out->lapic_pa = m->lapic;
	out->ncpus = out->ignored = 0;
	const uint8_t *p = m->entries, *end = (const uint8_t *)m + m->h.length;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		uint32_t flags, id;
		if (p[0] == MADT_LAPIC && p[1] >= 8) {
			memcpy(&flags, p + 4, 4);
			add_cpu(out, p[3], flags);
		} else if (p[0] == MADT_X2APIC && p[1] >= 16) {
			memcpy(&id, p + 4, 4);
			memcpy(&flags, p + 8, 4);
			add_cpu(out, id, flags);
		} else if (p[0] == MADT_LAPIC_OVERRIDE && p[1] >= 12) {
			memcpy(&out->lapic_pa, p + 4, 8);
		}
		p += p[1];
	}
}

bool acpi_find_cpus(paddr_t rsdp_pa, struct acpi_cpus *out)
{
	const struct rsdp *r = rsdp_find(rsdp_pa);
	const struct madt *m = r ? (const struct madt *)table_find(r, "APIC") : NULL;
	if (!m)
		return false;
	madt_parse(m, out);
	return out->ncpus > 0;
}
