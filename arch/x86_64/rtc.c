/* arch/x86_64/rtc.c -- the CMOS real-time clock (see rtc.h). */
#include "arch/x86_64/rtc.h"
#include "arch/x86_64/cpu.h"
#include "lib/string.h"

enum { SEC = 0x00, MIN = 0x02, HOUR = 0x04, DAY = 0x07, MONTH = 0x08, YEAR = 0x09,
       STATUS_A = 0x0a, STATUS_B = 0x0b, CENTURY = 0x32 };
#define UPDATING 0x80   /* status A */
#define BINARY 0x04     /* status B */
#define HOURS_24 0x02   /* status B */
#define PM 0x80         /* hour, 12-hour mode */

static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

static unsigned from_bcd(uint8_t v, bool binary)
{
	return binary ? v : (unsigned)(v >> 4) * 10 + (v & 0xf);
}

/* One reading of every field, once no update is in progress. */
static void read_once(uint8_t r[7])
{
	for (int spins = 0; (cmos(STATUS_A) & UPDATING) && spins < 1000000; spins++)
		cpu_relax();
	static const uint8_t regs[7] = { SEC, MIN, HOUR, DAY, MONTH, YEAR, CENTURY };
	for (int i = 0; i < 7; i++)
		r[i] = cmos(regs[i]);
}

bool rtc_read(struct calendar_time *t)
{
	uint8_t a[7], b[7];
	read_once(b);
	for (int tries = 0; tries < 10; tries++) {   /* differ only across a tick */
		memcpy(a, b, sizeof(a));
		read_once(b);
		if (memcmp(a, b, sizeof(a)) == 0)
			break;
	}
	uint8_t status = cmos(STATUS_B);
	bool bin = status & BINARY;
	unsigned hour = from_bcd(a[2] & (uint8_t)~PM, bin);
	if (!(status & HOURS_24))
		hour = hour % 12 + (a[2] & PM ? 12 : 0);
	unsigned century = a[6] ? from_bcd(a[6], bin) : 20;
	*t = (struct calendar_time){ .year = century * 100 + from_bcd(a[5], bin),
				     .month = from_bcd(a[4], bin), .day = from_bcd(a[3], bin),
				     .hour = hour, .min = from_bcd(a[1], bin), .sec = from_bcd(a[0], bin) };
	return calendar_valid(t);
}
