/* user/poweroff.c -- switch the machine off (reboot(2) with
 * LINUX_REBOOT_CMD_POWER_OFF). Only returns if that fails. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/reboot.h>

int main(void)
{
	reboot(RB_POWER_OFF);
	fprintf(stderr, "poweroff: %s\n", strerror(errno));
	return 1;
}
