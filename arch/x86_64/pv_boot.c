/* arch/x86_64/pv_boot.c -- pv_init(): choose the backend, patch the sites.
 *
 *   pv=patched   (default) native backend, sites patched (inline or direct)
 *   pv=indirect  native backend, sites left as indirect calls
 *   pv=checked   the checking backend (pv_checked.c), sites patched
 */
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/pv_patch.h"
#include "arch/x86_64/pv_checked.h"
#include "lib/cmdline.h"
#include "lib/printk.h"
#include "lib/string.h"

#define PV_MODE_DEFAULT "patched"

void pv_init(void)
{
	const char *mode = cmdline_get_or("pv", PV_MODE_DEFAULT);
	if (!PARAVIRT) {
		printk("pv: PARAVIRT=0 build: native instructions inline, no pv_ops "
		       "calls%s\n", cmdline_has("pv") ? " (pv= ignored)" : "");
		return;
	}
	if (strcmp(mode, "patched") && strcmp(mode, "indirect") && strcmp(mode, "checked")) {
		printk("pv: unknown mode pv=%s, using pv=" PV_MODE_DEFAULT "\n", mode);
		mode = PV_MODE_DEFAULT;
	}
	if (!strcmp(mode, "checked"))
		pv_checked_install();
	if (!strcmp(mode, "indirect")) {
		printk("pv: %u sites: indirect calls through pv_ops (backend %s)\n",
		       pv_site_count(), pv_ops.name);
		return;
	}
	struct pv_patch_stats st = pv_patch_sites();
	printk("pv: %u sites: %u inlined, %u direct calls (backend %s)\n",
	       pv_site_count(), st.inlined, st.direct, pv_ops.name);
}
