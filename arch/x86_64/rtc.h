/* arch/x86_64/rtc.h -- the PC's battery-backed real-time clock (the
 * MC146818 in CMOS, which QEMU keeps at the host's UTC time): read once at
 * boot to give the wall clock its starting point.
 *
 *   port 0x70 <- register, port 0x71 <-> its value
 *   0x00 sec  0x02 min  0x04 hour  0x07 day  0x08 month  0x09 year (2 digits)
 *   0x32 century   0x0A bit 7: an update is in progress
 *   0x0B bit 2: binary (else BCD)   bit 1: 24-hour (else 12, bit 7 of hour = PM)
 */
#ifndef ARCH_X86_64_RTC_H
#define ARCH_X86_64_RTC_H

#include "lib/calendar.h"

/* The clock's date and time into *t (UTC): true, or false when what it
 * holds is not a date (calendar_valid). Waits out an update in progress
 * and reads until two readings agree. Boot only (one CPU, no lock). */
bool rtc_read(struct calendar_time *t);

#endif
