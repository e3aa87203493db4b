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
  * pg-bt crosses the trap frame of the first interrupt;
  * every structure helper either works or fails with a one-line message.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import layout  # noqa: E402

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
    out = t.run("pg-syms kmain")
    t.check(re.search(r"kmain\+0x0 \(kernel/main\.c:\d+\)\s+\[kernel image, PA %#x\]"
                      % (t.value("kmain") - layout.const("KERNEL_VMA")), out) is not None,
            "pg-syms kmain: symbol, source line, area and PA", out)


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


def body():
    before_paging()
    in_long_mode()
    walk_kernel_text()
    ptdump_boot_tables()
    stepping()
    kernel_page_table()
    structure_helpers()
    trap_frame()


t.scenario(body)
