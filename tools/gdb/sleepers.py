"""tools/gdb/sleepers.py -- `source` it in gdb attached to Pagoda: for every
SLEEPING process, its pid, wait channel (as a symbol when it is one), the
user rip it entered the kernel from, and its kernel call chain from the
context swtch saved (the frame-pointer chain, as pg-bt follows it).
Used by tools/hang-dump.sh."""
import gdb


def addr(v):
    return gdb.execute("output/a (void *)%d" % v, to_string=True)


def chain(rbp, depth=12):
    """Return addresses up the frame-pointer chain from rbp."""
    out = []
    for _ in range(depth):
        if rbp == 0:
            break
        try:
            ret = int(gdb.parse_and_eval("*(unsigned long *)%d" % (rbp + 8)))
            rbp = int(gdb.parse_and_eval("*(unsigned long *)%d" % rbp))
        except gdb.MemoryError:
            break
        out.append(addr(ret))
    return out


table = gdb.parse_and_eval("proc_table")
for i in range(table.type.sizeof // table[0].type.sizeof):
    p = table[i]
    if "SLEEPING" not in str(p["state"]):
        continue
    tf = int(p["tf"])
    rip = int(p["tf"]["rip"]) if tf else 0
    print("pid %d sleeps on %s, entered from user rip %#x" % (int(p["pid"]),
          addr(int(p["wait_chan"])), rip))
    for a in chain(int(p["ctx"]["rbp"])):
        print("    " + a)
