/* sys/reboot.h -- reboot(2) as in glibc and musl: the C library supplies
 * the two magic numbers, the caller only the command. */
#ifndef _SYS_REBOOT_H
#define _SYS_REBOOT_H

#define RB_AUTOBOOT    0x01234567  /* LINUX_REBOOT_CMD_RESTART   */
#define RB_HALT_SYSTEM 0xcdef0123  /* LINUX_REBOOT_CMD_HALT      */
#define RB_POWER_OFF   0x4321fedc  /* LINUX_REBOOT_CMD_POWER_OFF */

/* reboot: carry out cmd; returns only on failure: -1 with errno (EPERM,
 * EINVAL). */
int reboot(int cmd);

#endif
