"""tests/gdb/boot.py -- gdb batch test on the boot path (kernel test=boot).

Run by tests/gdb/run_gdb_test.sh boot 'test=boot'. Checks that:
  * the helpers refuse cleanly before paging is on (CPU at the reset vector);
  * a hardware breakpoint stops in 64-bit kmain with long mode active;
  * pg-walk decodes the boot page tables (arch/x86_64/boot.asm: 2 MiB pages)
    correctly: indexes, raw entries against their flag names, and a physical
    address whose bytes (read through the direct map) are kmain's code;
  * pg-ptdump finds exactly the three 1 GiB boot mappings;
  * after mm_init, the kernel page table: W^X for text and data, no user
    half, and the PT page's present count equal to its present entries;
  * `next` runs whole calls (the banner reaches the serial console),
    `stepi` enters a call, and pg-bt / bt see the caller from its first
    instruction on;
  * pg-bt crosses the trap frame of the first interrupt, and pg-bt TF
    starts from it;
  * every structure helper either works or fails with a one-line message;
  * the commands themselves: pg-help lists every registered command with
    the first line of its help; `help pg-NAME` has a "Usage: pg-NAME" line,
    which is also what a command given bad arguments says; pg-hello; pg-log
    shows the kernel's last console lines; the helpers still work under
    `set trace-commands on`; and every pg- command is run by some scenario
    of tests/gdb/ with a check on what it prints.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import core, layout  # noqa: E402

FLAG_BITS = [(0, "P"), (1, "W"), (2, "U"), (5, "A"), (7, "PS"), (8, "G"), (63, "NX")]
ENTRY_LINE = re.compile(r"^\s+(PML4|PDPT|PD|PT)\s*\[\s*(\d+)\] @PA (0x[0-9a-f]+)\s+= (0x[0-9a-f]+)\s+(.*?)\s*(->.*)?$")


def walk_lines(out):
    """[(level, index, raw entry, [flag names])] from pg-walk output."""
    rows = []
    for line in out.splitlines():
        m = ENTRY_LINE.match(line)
        if m:
            rows.append((m.group(1), int(m.group(2)), int(m.group(4), 16), m.group(5).split()))
    return rows


def before_paging():
    t.check(t.value("$cr3") == 0, "CR3 is 0 at the reset vector")
    msg = t.run_error("pg-walk 0xffffffff80000000")
    t.check("paging is not on yet" in msg, "pg-walk before paging explains why", msg)


def in_long_mode():
    t.stop_in("kmain")
    cr0, efer = t.value("$cr0"), t.value("$efer")
    t.check(cr0 & (1 << 31) and efer & (1 << 10), "paging on, long mode active (CR0.PG, EFER.LMA)",
            "cr0 %#x efer %#x" % (cr0, efer))
    t.check(t.value("$cr3") != 0, "$cr3 readable through QEMU's gdbstub")


def walk_kernel_text():
    va = t.value("kmain")
    out = t.run("pg-walk kmain")
    rows = walk_lines(out)
    want = [("PML4", (va >> 39) & 511), ("PDPT", (va >> 30) & 511), ("PD", (va >> 21) & 511)]
    t.check([(r[0], r[1]) for r in rows] == want, "pg-walk kmain: boot tables stop at a PD leaf "
            "with the right indexes", out)
    for level, _, raw, names in rows:
        wrong = [n for bit, n in FLAG_BITS if bool(raw >> bit & 1) != (n in names)]
        t.check(not wrong, "%s entry %#x: flag names match its bits" % (level, raw), str(wrong))
    pd = rows[-1] if rows else (None, 0, 0, [])
    t.check("P" in pd[3] and "PS" in pd[3], "kmain is mapped by a present 2 MiB page (P PS)", out)
    m = re.search(r"=> PA (0x[0-9a-f]+) in a 2 MiB page", out)
    if t.check(m is not None, "pg-walk reports the physical address", out):
        pa = int(m.group(1), 16)
        mem = t.gdb.selected_inferior().read_memory
        t.check(bytes(mem(va, 32)) == bytes(mem(layout.p2v(pa), 32)),
                "the PA's bytes (via the direct map) are kmain's code")
    t.check(t.run('pg-walk "kmain + 0x40"').startswith("VA %#x " % (va + 0x40)),
            "pg-walk takes a quoted expression with spaces")
    out = t.run("pg-walk 0x7fff00000000")
    t.check("not mapped" in out, "pg-walk of an unmapped user address says 'not mapped'", out)
    msg = t.run_error("pg-walk 0x800000000000")
    t.check("not canonical" in msg, "pg-walk rejects a non-canonical address", msg)


def ptdump_boot_tables():
    out = t.run("pg-ptdump")
    ranges = re.findall(r"^\s+(0x[0-9a-f]+)-(0x[0-9a-f]+)\s+1 GiB\s+0x0 ", out, re.M)
    starts = [int(a, 16) for a, _ in ranges]
    t.check(starts == [0, layout.const("DIRECT_MAP_BASE"), layout.const("KERNEL_VMA")],
            "pg-ptdump: identity, direct map and kernel image, 1 GiB each from PA 0", out)
    t.check("2 PDPT, 1 PD" in out, "pg-ptdump counts distinct table pages (one PD linked 3 times)", out)
    out = t.run("pg-syms kmain &boot_stack 0xffff800000200000")
    lines = out.splitlines()
    t.check(len(lines) == 3 and re.search(r"kmain\+0x0 \(kernel/main\.c:\d+\)\s+\[kernel image, PA %#x\]"
                                          % (t.value("kmain") - layout.const("KERNEL_VMA")), lines[0]),
            "pg-syms kmain: symbol, source line, area and PA", out)
    t.check(len(lines) == 3 and "boot_stack+0x0" in lines[1]
            and lines[2].endswith("(no symbol)                              [direct map, PA 0x200000]"),
            "pg-syms with three addresses: one line each (object symbol; direct map)", out)


def stepping():
    banner = t.source_line("kernel/main.c", r"PAGODA_BANNER")
    for _ in range(10):
        func, line = t.here()
        if func != "kmain" or line > banner:
            break
        t.run("next")
    func, line = t.here()
    t.check(func == "kmain" and line > banner, "`next` steps over lines of kmain", "%s:%s" % (func, line))
    t.check("Pagoda 0.1 (x86_64) booting" in t.serial_log(),
            "`next` ran printk: the banner is on the serial console")
    target = None
    for _ in range(64):
        insn = t.gdb.selected_inferior().architecture().disassemble(t.value("$pc"))[0]["asm"]
        m = re.match(r"call\s+(0x[0-9a-f]+)", insn)
        if m:
            target = int(m.group(1), 16)
            break
        t.run("stepi")
    if not t.check(target is not None, "`stepi` reaches a call in kmain"):
        return
    t.run("stepi")
    t.check(t.value("$pc") == target, "`stepi` on a call enters the callee")
    callee, _ = t.here()
    out = t.run("pg-bt")
    t.check(re.search(r"#1 .* kmain\+", out) is not None,
            "pg-bt at %s's first instruction names kmain as caller" % callee, out)
    t.check("kmain" in t.run("bt 3"), "gdb's bt agrees")
    t.run("finish")
    t.check(t.here()[0] == "kmain", "`finish` returns to kmain")


def trap_frame():
    t.stop_in("trap_dispatch")
    t.run("next")
    vector = t.value("tf->vector")
    out = t.run("pg-bt")
    t.check(re.search(r"--- trap frame at 0x[0-9a-f]+: .*\(vector %d," % vector, out) is not None,
            "pg-bt finds the trap frame of vector %d through trap_return" % vector, out)
    rip = t.value("tf->rip")
    t.check(re.search(r" ---\n.*\n#\d+\s+%#018x\s+\w+\+0x" % rip, out) is not None,
            "pg-bt goes on from the saved RIP %#x, with its symbol" % rip, out)
    from_tf = t.run("pg-bt tf")
    unnumbered = lambda text: re.sub(r"^#\d+ ", "#", text, flags=re.M)  # noqa: E731
    t.check(from_tf.startswith("--- trap frame at %#x:" % t.value("tf"))
            and re.search(r"^#0\s+%#018x\s+\w+\+0x" % rip, from_tf, re.M) is not None
            and unnumbered(from_tf) in unnumbered(out),
            "pg-bt tf: the trap, then the same frames as pg-bt from the saved RIP on", from_tf)
    msg = t.run_error("pg-bt $rsp + 4")
    t.check("does not look like a trap frame" in msg, "pg-bt refuses a misaligned trap frame", msg)


def present_entries(table_pa):
    raw = layout.read_u64s(table_pa, 512)
    return sum(1 for e in raw if e & 1)


def kernel_page_table():
    t.stop_in("ktest_run_selected")      # kmain calls it after mm_init
    root_pa = t.value("(kernel_pgt.root - frames) << 12")
    t.check(t.value("$cr3") & ~0xfff == root_pa, "CR3 holds kernel_pgt's PML4 (%#x)" % root_pa)
    out = t.run("pg-walk kmain")
    rows = walk_lines(out)
    leaf = rows[-1] if rows else (None, 0, 0, [])
    t.check(leaf[0] == "PT" and "P" in leaf[3] and "W" not in leaf[3] and "NX" not in leaf[3],
            "kernel text: a 4 KiB page, present, not writable, executable (W^X)", out)
    t.check("r-x kernel" in out, "pg-walk kmain: effective permissions r-x kernel", out)
    m = re.search(r"PT page (0x[0-9a-f]+): share count (\d+), present count (\d+)", out)
    if t.check(m is not None, "pg-walk shows the text PT page's counts", out):
        pt_pa, share, present = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
        t.check(share == 1, "the kernel's PT page is not shared (share count 1)")
        t.check(present == present_entries(pt_pa),
                "present count %d = present entries in the PT page" % present)
        t.check("type PG_PAGETABLE" in t.run("pg-page -p %#x" % pt_pa)
                and "level PT, share count 1" in t.run("pg-page -p %#x" % pt_pa),
                "pg-page on the PT page: a level-PT page-table page")
    out = t.run("pg-page 0x100")
    t.check(out.startswith("PFN 0x100  PA 0x100000  direct-map VA %#x  struct page at %#x"
                           % (layout.p2v(0x100000), t.value("&frames[0x100]")))
            and "type PG_KERNEL, refcount %d" % t.value("frames[0x100].refcount") in out,
            "pg-page 0x100: the kernel image's first frame, its struct page and fields", out)
    t.check(t.run("pg-page 0x80 + 0x80") == out and t.run("pg-page -p 0x100000 + 0x10") == out,
            "pg-page takes an expression with spaces (PFN, -p PA)")
    out = t.run("pg-walk &boot_info")
    rows = walk_lines(out)
    t.check(rows and "W" in rows[-1][3] and "NX" in rows[-1][3] and "rw- kernel" in out,
            "kernel data: writable and NX", out)
    out = t.run("pg-ptdump -k")
    t.check("rwx" not in out and "r-x kernel" in out and "rw- kernel" in out,
            "pg-ptdump -k: text and data mapped, nothing writable and executable", out)
    out = t.run("pg-ptdump -u")
    t.check("0 B mapped" in out, "the boot identity map is gone (nothing in the user half)", out)
    t.check("type PG_KERNEL" in t.run("pg-page -v kmain"), "pg-page -v kmain: a kernel frame")


def structure_helpers():
    for cmd in ("pg-page 0x100", "pg-ps", "pg-vmas 1", "pg-lazyfree", "pg-pvsites 3"):
        try:
            text = t.gdb.execute(cmd, to_string=True)
            t.check("Traceback" not in text and "Python Exception" not in text, "%s works" % cmd, text)
        except t.gdb.error as e:
            msg = str(e)
            t.check(msg.startswith(cmd.split()[0] + ": ") and "\n" not in msg.strip(),
                    "%s fails with one clear line (%s)" % (cmd, msg), msg)


def usage_line(cmd):
    return next(l.strip() for l in cmd.__doc__.splitlines() if l.strip().startswith("Usage:"))


def help_texts():
    """pg-help and `help pg-NAME` say what each registered command is."""
    names = sorted(c.NAME for c in core.COMMANDS)
    out = t.run("pg-help")
    listed = re.findall(r"^  (pg-\S+)\s+(.*)$", out, re.M)
    t.check([n for n, _ in listed] == names and len(names) >= 12,
            "pg-help lists the %d registered commands, sorted" % len(names), out)
    t.check(all(s == next(c.summary() for c in core.COMMANDS if c.NAME == n) and s
                for n, s in listed), "each pg-help line is its command's one-line summary", out)
    for c in core.COMMANDS:
        text = t.run("help %s" % c.NAME)
        t.check(text.strip() == c.__doc__.strip() and
                re.search(r"^Usage: %s\b" % c.NAME, text, re.M) is not None,
                "help %s: the command's text, with its Usage: line" % c.NAME, text)
    for cmd, bad in (("pg-walk", ""), ("pg-vmas", ""), ("pg-syms", ""), ("pg-page", "-p"),
                     ("pg-log", "1 2"), ("pg-ps", "1"), ("pg-lazyfree", "1 2")):
        c = next(c for c in core.COMMANDS if c.NAME == cmd)
        msg = t.run_error(("%s %s" % (cmd, bad)).strip())
        t.check(msg == "%s: %s" % (cmd, usage_line(c)), "%s with bad arguments prints its usage" % cmd,
                msg)
    out = t.run("pg-hello")
    t.check("hbreak kmain / continue" in out and "pg-help" in out and "pg-log" in out,
            "pg-hello: how to start (hbreak kmain, pg-help, pg-log)", out)


def log_and_tracing():
    """At ktest_run_selected the kernel's last line is the initrd's (the
    root mounted after the disks are found: load_initrd)."""
    last = t.run("pg-log 1")
    t.check(re.match(r"^initrd: \d+ files, \d+ KiB\n$", last) is not None,
            "pg-log 1: the kernel's last console line (load_initrd's)", last)
    three = t.run("pg-log 3").splitlines()
    t.check(len(three) == 3 and three[-1] + "\n" == last and three[0] + "\n" in t.serial_log(),
            "pg-log 3: the last three lines", str(three))
    t.check(len(t.run("pg-log").splitlines()) == 20, "pg-log: 20 lines by default")
    t.run("set trace-commands on")
    try:
        out = t.run("pg-syms kmain")
    finally:
        t.run("set trace-commands off")
    t.check("kmain+0x0" in out, "pg-syms still finds symbols under set trace-commands on", out)


def every_command_tested():
    """Each pg- command is run, by name, somewhere in tests/gdb/*.py."""
    text = "".join(open(f).read() for f in glob.glob(os.path.join(t.REPO, "tests", "gdb", "*.py")))
    run = set(re.findall(r'run(?:_error)?\(\s*"(pg-[a-z]+)', text)) | \
        set(re.findall(r'listing\(\s*"(pg-[a-z]+)', text))
    missing = sorted(set(c.NAME for c in core.COMMANDS) - run)
    t.check(not missing, "every pg- command is run by a scenario in tests/gdb/", str(missing))


def body():
    before_paging()
    help_texts()
    in_long_mode()
    walk_kernel_text()
    ptdump_boot_tables()
    stepping()
    kernel_page_table()
    log_and_tracing()
    structure_helpers()
    every_command_tested()
    trap_frame()


t.scenario(body)
