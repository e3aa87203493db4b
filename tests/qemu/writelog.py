"""tests/qemu/writelog.py -- what a disk with a volatile write cache may hold
after a power-off, from a log of every write and flush the guest sent.

QEMU's blklogwrites driver sits between the guest's virtio disk and the
image file and appends each request to a log file in the format of
Linux's dm-log-writes (the one xfstests replays):

    sector 0        super: magic, version, nr_entries, sector size
    then per entry  one sector of header {sector, nr_sectors, flags,
                    data_len}, then nr_sectors sectors of data;
                    flags: FLUSH 1, FUA 2, DISCARD 4, MARK 8

A real disk with a write cache keeps what came before the last FLUSH it
completed; any of the writes after it may be lost (or land). So from the
image as it was at boot and the log, `replay` builds that state: every
write up to the last FLUSH, then each later write kept or dropped at
random. tests/qemu/crash.py checks that ext2's promises hold on it too --
which is what fails if the kernel prints DURABLE before its FLUSH has
completed, or sends the FLUSH before the writes it must cover.
"""
import random
import struct

MAGIC = 0x6a736677736872
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")


class LogError(Exception):
    pass


def entries(log_path):
    """The log's entries in order: (sector, nr_sectors, flags, data bytes),
    up to the first empty header (the super's count may be behind: QEMU
    updates it only now and then, and a kill stops it)."""
    with open(log_path, "rb") as f:
        log = f.read()
    magic, version, _, ssize = SUPER.unpack_from(log, 0)
    if magic != MAGIC or version != 1 or ssize not in (512, 4096):
        raise LogError("%s: not a write log (magic %#x, version %d)" % (log_path, magic, version))
    out, at = [], ssize
    while at + ENTRY.size <= len(log):
        sector, nr, flags, data_len = ENTRY.unpack_from(log, at)
        if sector == nr == flags == data_len == 0:
            break
        data = log[at + ssize:at + ssize + nr * ssize]
        if len(data) < nr * ssize:
            break   # cut short by the kill: never completed
        out.append((sector * ssize // 512, nr * ssize, flags, data))
        at += ssize + nr * ssize
    return out


def apply(img_path, ents):
    """Write the data of ents (writes, in order) into the image file."""
    with open(img_path, "r+b") as f:
        for sector, n, flags, data in ents:
            if flags & (MARK | DISCARD) or not n:
                continue
            f.seek(sector * 512)
            f.write(data)


def replay(img_path, ents, rng, keep_after="random", flush=None):
    """Turn the boot-time image at img_path into what a disk may hold after
    losing its cache just after its flush-th FLUSH (default: the last one)
    completed: every write before it, then each later one up to the next
    FLUSH kept with probability 1/2 (keep_after "random"), all ("all": with
    the last FLUSH, what the host file got, for checking the log itself)
    or none ("none"). Returns (writes before the flush, writes after it up
    to the next, of those kept)."""
    at = [i for i, e in enumerate(ents) if e[2] & FLUSH]
    k = len(at) if flush is None else flush
    last = at[k - 1] if k else -1
    end = at[k] if k < len(at) else len(ents)
    before, after = ents[:last + 1], ents[last + 1:end]
    keep = {"all": after, "none": []}.get(keep_after)
    if keep is None:
        keep = [e for e in after if rng.random() < 0.5]
    apply(img_path, before + keep)
    writes = lambda es: sum(1 for e in es if e[1] and not e[2] & (MARK | DISCARD))
    return writes(before), writes(after), writes(keep)


def flushes(ents):
    return sum(1 for e in ents if e[2] & FLUSH)


if __name__ == "__main__":
    import sys
    es = entries(sys.argv[1])
    print("%d entries, %d flushes" % (len(es), flushes(es)))
    for e in es[:20]:
        print("sector %d bytes %d flags %d" % e[:3])
