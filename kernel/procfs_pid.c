/* kernel/procfs_pid.c -- the files of /proc/PID in Linux's formats.
 *
 * Memory figures come from mm: as_memstat (VM size, page-table pages and
 * their sharing) and vma_memstat (resident pages by kind, PSS, clean and
 * dirty, page by page over each VMA). What Pagoda does not have (swap,
 * huge pages, locked memory, KSM) prints as Linux prints its absence: 0.
 * Pagoda's own lines (page-table sharing) come after Linux's, so a parser
 * that looks for Linux's names finds them in Linux's order.
 */
#include "kernel/fs.h"
#include "lib/format.h"
#include "lib/ksyms.h"
#include "kernel/proc.h"
#include "kernel/procfs.h"
#include "lib/string.h"
#include "fs/textbuf.h"
#include "mm/as.h"
#include "mm/memstat.h"
#include "arch/x86_64/memlayout.h"

#define KB(pages) ((pages) * (PAGE_SIZE / 1024))
#define PSS_KB(fixed) (((fixed) * (PAGE_SIZE / 1024)) >> PSS_SHIFT)
#define MAPS_NAME_COL 73   /* Linux pads the path to this column */

static char state_letter(const struct proc *p)
{
	return p->state == P_ZOMBIE ? 'Z' : p->state == P_SLEEPING ? 'S' : 'R';
}

static const char *state_name(const struct proc *p)
{
	return p->state == P_ZOMBIE ? "zombie" : p->state == P_SLEEPING ? "sleeping" : "running";
}

static int ppid_of(const struct proc *p)
{
	return p->parent ? p->parent->pid : 0;
}

/* ---- what a process's VMAs are ---- */

static bool vma_is_stack(const struct vma *v)
{
	return v->end == USER_STACK_TOP;
}

static bool vma_is_heap(const struct vma *v)
{
	return v->flags & VM_HEAP;
}

/* Program text: the executable file mapping (Linux's start_code..end_code). */
static bool vma_is_text(const struct vma *v)
{
	return (v->flags & VM_FILE) && (v->prot & PROT_EXEC);
}

/* Linux's data_vm: private writable memory that is not the stack. */
static bool vma_is_data(const struct vma *v)
{
	return (v->prot & PROT_WRITE) && !(v->flags & VM_SHARED) && !vma_is_stack(v);
}

/* Everything status, stat and statm say about a process's memory. */
struct pid_mem {
	struct as_memstat as;
	struct vma_memstat sum;        /* all VMAs: smaps_rollup */
	uint64_t data, stack, text;    /* pages of VMAs of those kinds */
	vaddr_t text_start, text_end;
};

static void pid_mem(struct proc *p, struct pid_mem *m)
{
	*m = (struct pid_mem){ 0 };
	if (!p->as)
		return;
	as_memstat(p->as, &m->as);
	for (struct vma *v = p->as->vmas; v; v = v->next) {
		uint64_t pages = (v->end - v->start) / PAGE_SIZE;
		vma_memstat(p->as, v, &m->sum);
		m->data += vma_is_data(v) ? pages : 0;
		m->stack += vma_is_stack(v) ? pages : 0;
		if (vma_is_text(v)) {
			m->text += pages;
			m->text_start = m->text_start ? m->text_start : v->start;
			m->text_end = v->end;
		}
	}
}

/* ---- status ---- */

static void kb_line(struct textbuf *tb, const char *name, uint64_t pages)
{
	tb_printf(tb, "%s:\t%8lu kB\n", name, KB(pages));
}

static void status_memory(struct textbuf *tb, const struct pid_mem *m)
{
	kb_line(tb, "VmSize", m->as.vm_pages);
	kb_line(tb, "VmLck", 0);
	kb_line(tb, "VmPin", 0);
	kb_line(tb, "VmRSS", vma_memstat_rss(&m->sum));
	kb_line(tb, "RssAnon", m->sum.rss_anon);
	kb_line(tb, "RssFile", m->sum.rss_file);
	kb_line(tb, "RssShmem", m->sum.rss_shmem);
	kb_line(tb, "VmData", m->data);
	kb_line(tb, "VmStk", m->stack);
	kb_line(tb, "VmExe", m->text);
	kb_line(tb, "VmLib", 0);
	kb_line(tb, "VmPTE", m->as.table_pages);
	kb_line(tb, "VmSwap", m->sum.swap);
	kb_line(tb, "HugetlbPages", 0);
}

/* Signal masks: ignored and caught dispositions. */
static uint64_t sig_mask_where(const struct proc *p, bool caught)
{
	uint64_t mask = 0;
	for (int sig = 1; sig <= NSIG; sig++) {
		uint64_t h = p->sighand ? p->sighand->action[sig - 1].handler : SIG_DFL;
		if (caught ? h != SIG_DFL && h != SIG_IGN : h == SIG_IGN)
			mask |= SIGBIT(sig);
	}
	return mask;
}

static void status_signals(struct textbuf *tb, const struct proc *p)
{
	tb_printf(tb, "SigPnd:\t%016lx\nShdPnd:\t%016lx\nSigBlk:\t%016lx\n",
		  p->sig.pending, p->tg ? p->tg->pending : 0, p->sig.blocked);
	tb_printf(tb, "SigIgn:\t%016lx\nSigCgt:\t%016lx\n",
		  sig_mask_where(p, false), sig_mask_where(p, true));
}

void procfs_show_status(struct proc *p, struct textbuf *tb)
{
	struct pid_mem m;
	pid_mem(p, &m);
	tb_printf(tb, "Name:\t%s\nState:\t%c (%s)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n",
		  p->name, state_letter(p), state_name(p), p->tgid, p->pid);
	tb_printf(tb, "PPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n",
		  ppid_of(p));
	tb_printf(tb, "FDSize:\t%d\nGroups:\t \nNStgid:\t%d\nNSpid:\t%d\n",
		  NOFILE, p->tgid, p->pid);
	if (p->as)
		status_memory(tb, &m);
	tb_printf(tb, "Threads:\t%d\n", thread_count(p));
	status_signals(tb, p);
	if (p->as)
		tb_printf(tb, "PTPages:\t%lu\nPTShared:\t%lu\n",
			  m.as.pt_pages, m.as.shared_pt_pages);
}

/* ---- stat, statm, cmdline ---- */

void procfs_show_stat(struct proc *p, struct textbuf *tb)
{
	struct pid_mem m;
	pid_mem(p, &m);
	vaddr_t brk0 = p->as ? p->as->heap_start : 0;
	/* 1-13: pid (comm) state ppid pgrp session tty_nr tpgid flags
	 * minflt cminflt majflt cmajflt (the faults of all its threads) */
	struct group_times t;
	proc_group_times_locked(p, &t);   /* /proc shows under proc_lock */
	tb_printf(tb, "%d (%s) %c %d 0 0 0 -1 0 %lu %lu %lu %lu ", p->pid, p->name,
		  state_letter(p), ppid_of(p), t.min_flt, t.cmin_flt, t.maj_flt, t.cmaj_flt);
	/* 14-22: utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime (clock ticks: HZ is Linux's USER_HZ, 100) */
	tb_printf(tb, "%lu %lu 0 0 20 0 %d 0 %lu ", p->utime_ticks, p->stime_ticks,
		  thread_count(p), p->start_ticks);
	/* 23-28: vsize (bytes) rss (pages) rsslim startcode endcode startstack */
	tb_printf(tb, "%lu %lu 18446744073709551615 %lu %lu 0 ", m.as.vm_pages * PAGE_SIZE,
		  vma_memstat_rss(&m.sum), m.text_start, m.text_end);
	/* 29-37: kstkesp kstkeip signal blocked sigignore sigcatch wchan
	 * nswap cnswap (the four masks in decimal, as Linux prints them) */
	tb_printf(tb, "0 0 %lu %lu %lu %lu 0 0 0 ", p->sig.pending & 0x7fffffff,
		  p->sig.blocked & 0x7fffffff, sig_mask_where(p, false) & 0x7fffffff,
		  sig_mask_where(p, true) & 0x7fffffff);
	/* 38-52: exit_signal processor rt_priority policy blkio_ticks
	 * guest_time cguest_time start_data end_data start_brk arg_start
	 * arg_end env_start env_end exit_code */
	tb_printf(tb, "17 %d 0 0 0 0 0 0 0 %lu 0 0 0 0 %d\n", p->cpu, brk0,
		  p->state == P_ZOMBIE ? p->exit_status : 0);
}

void procfs_show_statm(struct proc *p, struct textbuf *tb)
{
	struct pid_mem m;
	pid_mem(p, &m);
	/* size resident shared text lib data dt, in pages */
	tb_printf(tb, "%lu %lu %lu %lu 0 %lu 0\n", m.as.vm_pages, vma_memstat_rss(&m.sum),
		  m.sum.rss_file + m.sum.rss_shmem, m.text, m.data + m.stack);
}

void procfs_show_cmdline(struct proc *p, struct textbuf *tb)
{
	if (p->state != P_ZOMBIE)
		tb_write(tb, p->cmdline, p->cmdline_len);
}

/* Linux's wchan: the function the task sleeps in, no newline; "0" when it
 * does not sleep (running, runnable, stopped, a zombie). */
void procfs_show_wchan(struct proc *p, struct textbuf *tb)
{
	uint64_t off, site = sleep_site(p);
	const char *name = site ? ksym_lookup(site - 1, &off) : NULL;
	tb_printf(tb, "%s", name ? name : "0");
}

/* ---- maps, smaps, smaps_rollup ---- */

/* The first part of a maps line: range, permissions, offset, device, inode. */
static void maps_prefix(struct textbuf *tb, vaddr_t start, vaddr_t end, const char *perms,
			uint64_t off, uint32_t dev, uint64_t ino)
{
	tb_printf(tb, "%08lx-%08lx %s %08lx %02x:%02x %lu ", start, end, perms, off, MAJOR(dev),
		  MINOR(dev), ino);
}

static void vma_perms(const struct vma *v, char perms[5])
{
	perms[0] = v->prot & PROT_READ ? 'r' : '-';
	perms[1] = v->prot & PROT_WRITE ? 'w' : '-';
	perms[2] = v->prot & PROT_EXEC ? 'x' : '-';
	perms[3] = v->flags & VM_SHARED ? 's' : 'p';
	perms[4] = '\0';
}

/* One maps line for v: its file's path, [heap], [stack], Linux's name of
 * shared anonymous memory, or no name (a file unlinked since). */
static void maps_line(struct textbuf *tb, const struct vma *v)
{
	char perms[5], path[256];
	vma_perms(v, perms);
	struct inode *file = vmobject_inode(v->obj);
	maps_prefix(tb, v->start, v->end, perms, file ? v->obj_off : 0,
		    file ? file->sb->dev : v->obj ? MKDEV(0, 1) : 0, file ? file->ino : 0);
	const char *name = vma_is_stack(v) ? "[stack]" : vma_is_heap(v) ? "[heap]" :
			   v->obj && v->obj->kind == VMOBJ_SHM ? "/dev/zero (deleted)" : NULL;
	if (file && inode_name(file, path, sizeof(path)) > 0)
		name = path;
	if (name) {
		tb_pad_to(tb, MAPS_NAME_COL);
		tb_printf(tb, "%s", name);
	}
	tb_printf(tb, "\n");
}

void procfs_show_maps(struct proc *p, struct textbuf *tb)
{
	if (p->as)
		for (struct vma *v = p->as->vmas; v; v = v->next)
			maps_line(tb, v);
}

static void smaps_kb(struct textbuf *tb, const char *name, uint64_t kb)
{
	char label[20];
	ksnprintf(label, sizeof(label), "%s:", name);
	tb_printf(tb, "%-16s%8lu kB\n", label, kb);
}

/* The lines smaps and smaps_rollup share, from Shared_Clean to Locked. */
static void smaps_counts(struct textbuf *tb, const struct vma_memstat *s)
{
	smaps_kb(tb, "Shared_Clean", KB(s->shared_clean));
	smaps_kb(tb, "Shared_Dirty", KB(s->shared_dirty));
	smaps_kb(tb, "Private_Clean", KB(s->private_clean));
	smaps_kb(tb, "Private_Dirty", KB(s->private_dirty));
	smaps_kb(tb, "Referenced", KB(s->referenced));
	smaps_kb(tb, "Anonymous", KB(s->anonymous));
	smaps_kb(tb, "KSM", 0);
	smaps_kb(tb, "LazyFree", KB(s->lazyfree));
	static const char *const none[] = { "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped",
		"Shared_Hugetlb", "Private_Hugetlb" };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		smaps_kb(tb, none[i], 0);
	smaps_kb(tb, "Swap", KB(s->swap));
	smaps_kb(tb, "SwapPss", (s->swap_pss * (PAGE_SIZE / 1024)) >> PSS_SHIFT);
	smaps_kb(tb, "Locked", 0);
}

/* VmFlags: the two-letter names of Linux's VMA flags that Pagoda has, in
 * Linux's order (its flags' bit order). */
static void smaps_vmflags(struct textbuf *tb, const struct vma *v)
{
	tb_printf(tb, "VmFlags: ");
	if (v->prot & PROT_READ)
		tb_printf(tb, "rd ");
	if (v->prot & PROT_WRITE)
		tb_printf(tb, "wr ");
	if (v->prot & PROT_EXEC)
		tb_printf(tb, "ex ");
	if (v->flags & VM_SHARED)
		tb_printf(tb, "sh ");
	bool maywrite = !(v->flags & VM_SHARED) || !(v->flags & VM_FILE) || (v->flags & VM_MAYWRITE);
	tb_printf(tb, "mr %sme %s", maywrite ? "mw " : "", vma_is_stack(v) ? "gd " : "");
	tb_printf(tb, "%s%s%s%s\n", v->flags & VM_SEQ_READ ? "sr " : "",
		  v->flags & VM_RAND_READ ? "rr " : "", v->flags & VM_DONTCOPY ? "dc " : "",
		  v->flags & VM_WIPEONFORK ? "wf " : "");
}

static void smaps_vma(struct textbuf *tb, struct addrspace *as, const struct vma *v)
{
	struct vma_memstat s = { 0 };
	vma_memstat(as, v, &s);
	maps_line(tb, v);
	smaps_kb(tb, "Size", (v->end - v->start) / 1024);
	smaps_kb(tb, "KernelPageSize", PAGE_SIZE / 1024);
	smaps_kb(tb, "MMUPageSize", PAGE_SIZE / 1024);
	smaps_kb(tb, "Rss", KB(vma_memstat_rss(&s)));
	smaps_kb(tb, "Pss", PSS_KB(s.pss));
	smaps_kb(tb, "Pss_Dirty", PSS_KB(s.pss_dirty));
	smaps_counts(tb, &s);
	tb_printf(tb, "%-16s%8d\n", "THPeligible:", 0);
	smaps_vmflags(tb, v);
}

void procfs_show_smaps(struct proc *p, struct textbuf *tb)
{
	if (p->as)
		for (struct vma *v = p->as->vmas; v; v = v->next)
			smaps_vma(tb, p->as, v);
}

void procfs_show_smaps_rollup(struct proc *p, struct textbuf *tb)
{
	struct pid_mem m;
	pid_mem(p, &m);
	if (!p->as || !p->as->vmas)
		return;
	vaddr_t start = p->as->vmas->start, end = start;
	for (struct vma *v = p->as->vmas; v; v = v->next)
		end = v->end;
	maps_prefix(tb, start, end, "---p", 0, 0, 0);
	tb_pad_to(tb, MAPS_NAME_COL);
	tb_printf(tb, "[rollup]\n");
	smaps_kb(tb, "Rss", KB(vma_memstat_rss(&m.sum)));
	smaps_kb(tb, "Pss", PSS_KB(m.sum.pss));
	smaps_kb(tb, "Pss_Dirty", PSS_KB(m.sum.pss_dirty));
	smaps_kb(tb, "Pss_Anon", PSS_KB(m.sum.pss_anon));
	smaps_kb(tb, "Pss_File", PSS_KB(m.sum.pss_file));
	smaps_kb(tb, "Pss_Shmem", PSS_KB(m.sum.pss_shmem));
	smaps_counts(tb, &m.sum);
}
