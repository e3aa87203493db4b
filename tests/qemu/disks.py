"""tests/qemu/disks.py -- the virtio disks of a QEMU test run.

A suite of tests/suites.txt may name disks in its seventh column, e.g.
"vda:16M vdb:16M:ro": NAME:SIZE[:ro][:ext2][:eio][:swap] each, attached in that order
(so the kernel names them vda, vdb, ... as Linux would). Each is a fresh
raw image in the build's test folder whose every 512-byte sector starts
with "PAGODA SECTOR <n>\\n" (8 digits, the rest zeros), so the kernel's
tests know what a read must return; or, with ext2, what `mke2fs -t ext2 -d`
makes of the build's root tree (the initrd's files: the kernel compares
the two); or, with swap, a sparse image mkswap(8) made a swap area of. The first disk is a modern-only virtio-blk
device (PCI id 1af4:1042), the others transitional (1af4:1001): the driver
must take both.

After the run, every line "KTEST DISK-WROTE NAME FIRST COUNT" the kernel
printed is checked against the image: sectors FIRST.. hold "PAGODA WROTE
<n>\\n", i.e. the writes reached the disk file, not only the guest. On an
ext2 disk, every "KTEST EXT2-FILE NAME PATH SIZE SEED" must be a file of
SIZE bytes of SEED's pattern as debugfs reads it from the image, every
"KTEST EXT2-HASH NAME PATH BYTES HASH" a file of BYTES bytes whose FNV-1a
hash is HASH (vmtester -k: its scratch file, as its model has it), every
"KTEST EXT2-WORDS NAME PATH PAGES ROUND" a file of PAGES pages each holding
big_word(page, ROUND) in its first and last 8 bytes and zeros between (what
disktests' bigwrite stores through a shared mapping), every
"KTEST EXT2-GONE NAME PATH" must be absent, and e2fsck -fn must find the
image clean; so must it every ext2 disk whose spec says "fsck" (e.g.
"vda:64M:ext2:fsck": a program that writes it and prints nothing for it).

An "eio" disk goes through QEMU's blkdebug driver, which fails (EIO) every
request that reads sector EIO_READ_SECTOR or writes EIO_WRITE_SECTOR, as a
failing disk would (user/disktests.c's eio test knows the two numbers); a
swap disk's, SWAP_EIO_READ_SECTOR and SWAP_EIO_WRITE_SECTOR: slots 16384
and 16385, past those the root's tmpfs pages take first
(user/swaptests.c's eio test knows them).
"""
import os
import re
import shutil
import subprocess

SECTOR = 512
EIO_READ_SECTOR = 8192
EIO_WRITE_SECTOR = 8200
SWAP_EIO_READ_SECTOR = 16384 * 8
SWAP_EIO_WRITE_SECTOR = 16385 * 8
BLKDEBUG_RULES = """[inject-error]
event = "read_aio"
errno = "5"
sector = "%d"
once = "off"

[inject-error]
event = "write_aio"
errno = "5"
sector = "%d"
once = "off"
"""
WROTE = re.compile(r"KTEST DISK-WROTE (\w+) (\d+) (\d+)")
EXT2_FILE = re.compile(r"KTEST EXT2-FILE (\w+) (\S+) (\d+) (\d+)")
EXT2_GONE = re.compile(r"KTEST EXT2-GONE (\w+) (\S+)")
EXT2_WORDS = re.compile(r"KTEST EXT2-WORDS (\w+) (\S+) (\d+) (\d+)")
EXT2_HASH = re.compile(r"KTEST EXT2-HASH (\w+) (\S+) (\d+) ([0-9a-f]{16})")
PAGE = 4096


def parse(spec):
    """[(name, bytes, readonly, ext2, eio)] of a disks column ("fsck": see verify)."""
    out = []
    for d in spec.split():
        parts = d.split(":")
        size = parts[1].upper()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[size[-1]]
        out.append((parts[0], int(size[:-1]) * mult, "ro" in parts[2:], "ext2" in parts[2:],
                    "eio" in parts[2:]))
    return out


def sector(n, what=b"SECTOR"):
    head = b"PAGODA %s %08d\n" % (what, n)
    return head + bytes(SECTOR - len(head))


def image_path(build, suite, name):
    return os.path.join(build, "test", "%s-%s.img" % (suite, name))


def prepare(build, suite, spec):
    """Make the images (in BUILD/test, made if missing: make fuzz on a
    fresh build has none); QEMU's arguments that attach them."""
    os.makedirs(os.path.join(build, "test"), exist_ok=True)
    args = []
    for i, (name, size, ro, ext2, eio) in enumerate(parse(spec)):
        path = image_path(build, suite, name)
        swap = "swap" in spec.split()[i].split(":")[2:]
        if swap:   # what mkswap(8) writes: SWAPSPACE2 in page 0
            with open(path, "wb") as f:
                f.truncate(size)
            mkswap = shutil.which("mkswap") or "/sbin/mkswap"   # util-linux; /sbin is not in every PATH
            subprocess.run([mkswap, "-q", path], check=True, stdout=subprocess.DEVNULL)
        elif ext2:
            if os.path.exists(path):
                os.remove(path)
            subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-d", os.path.join(build, "rootfs"),
                            path, "%dk" % (size // 1024)], check=True, stdout=subprocess.DEVNULL)
        else:
            with open(path, "wb") as f:
                f.write(b"".join(sector(n) for n in range(size // SECTOR)))
        if eio:
            rules = path + ".blkdebug"
            with open(rules, "w") as f:
                f.write(BLKDEBUG_RULES % ((SWAP_EIO_READ_SECTOR, SWAP_EIO_WRITE_SECTOR) if swap else
                                         (EIO_READ_SECTOR, EIO_WRITE_SECTOR)))
            path = "blkdebug:%s:%s" % (rules, path)
        args += ["-drive", "file=%s,if=none,format=raw,id=%s%s" % (path, name, ",readonly=on" if ro else ""),
                 "-device", "virtio-blk-pci,drive=%s%s" % (name, ",disable-legacy=on" if i == 0 else "")]
    return args


def pattern(size, seed):
    """The bytes user/disktests.c writes for (size, seed)."""
    return bytes((i * 31 + seed + i // 1000) & 0xff for i in range(size))


def big_word(i, r):
    """The word user/disktests.c's big tests put in page i in round r."""
    return ((i * 0x9e3779b97f4a7c15) ^ (r << 56) ^ 0x5041474f4441) & (2**64 - 1)


def words_bad(img, path, pages, r):
    """Pages of file path of image img (dumped by debugfs) that do not hold
    big_word(i, r) in their first and last words and zeros between
    (disktests bigwrite), as a short description; "" when all do."""
    dump = img + ".dump"
    subprocess.run(["debugfs", "-R", "dump %s %s" % (path, dump), img], capture_output=True)
    bad, zeros = [], bytes(PAGE - 16)
    try:
        with open(dump, "rb") as f:
            for i in range(pages):
                page = f.read(PAGE)
                w = big_word(i, r).to_bytes(8, "little")
                if page[:8] != w or page[-8:] != w or page[8:-8] != zeros:
                    bad.append(i)
            extra = len(f.read(1))
        os.unlink(dump)
    except OSError as e:
        return "debugfs dump: %s" % e
    return ("pages %s of %d wrong" % (bad[:8], pages) if bad else "") + \
        (" and bytes past them" if extra else "")


def fnv1a64(data):
    """FNV-1a, 64 bits, of data (what user/vmtester.c's keep_report prints)."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
    return h


def debugfs_cat(img, path):
    p = subprocess.run(["debugfs", "-R", "cat %s" % path, img], capture_output=True)
    return p.stdout, p.stderr.decode(errors="replace")


def verify_ext2(build, suite, log, spec=""):
    """The ext2 lines of the log against the images, and e2fsck of each image
    named there or marked fsck in spec."""
    results = []
    images = set(image_path(build, suite, d.split(":")[0]) for d in spec.split() if ":fsck" in d)
    for name, path, size, seed in EXT2_FILE.findall(log):
        img = image_path(build, suite, name)
        images.add(img)
        data, err = debugfs_cat(img, path)
        ok = data == pattern(int(size), int(seed))
        results.append(("ext2-%s%s" % (name, path.replace("/", "-")), ok,
                        "" if ok else "debugfs read %d bytes, want %s of seed %s" % (len(data), size, seed)))
    for name, path, pages, r in EXT2_WORDS.findall(log):
        img = image_path(build, suite, name)
        images.add(img)
        bad = words_bad(img, path, int(pages), int(r))
        results.append(("ext2-%s%s" % (name, path.replace("/", "-")), not bad, bad))
    for name, path, size, want in EXT2_HASH.findall(log):
        img = image_path(build, suite, name)
        images.add(img)
        data, err = debugfs_cat(img, path)
        ok = len(data) == int(size) and fnv1a64(data) == int(want, 16)
        results.append(("ext2-%s%s" % (name, path.replace("/", "-")), ok,
                        "" if ok else "debugfs read %d bytes hashing to %016x, want %s hashing to %s"
                        % (len(data), fnv1a64(data), size, want)))
    for name, path in EXT2_GONE.findall(log):
        img = image_path(build, suite, name)
        images.add(img)
        data, err = debugfs_cat(img, path)
        ok = "not found" in err
        results.append(("ext2-%s%s-gone" % (name, path.replace("/", "-")), ok,
                        "" if ok else "still on the disk (%d bytes)" % len(data)))
    for img in sorted(images):
        p = subprocess.run(["e2fsck", "-fn", img], capture_output=True, text=True)
        results.append(("e2fsck-%s" % os.path.basename(img), p.returncode == 0,
                        "" if p.returncode == 0 else (p.stdout + p.stderr)[-1500:]))
    return results


def verify(build, suite, log, spec=""):
    """[(test name, ok, detail)] for each DISK-WROTE and EXT2 line of the log
    (and each disk of spec marked fsck)."""
    results = verify_ext2(build, suite, log, spec)
    for name, first, count in WROTE.findall(log):
        first, count = int(first), int(count)
        with open(image_path(build, suite, name), "rb") as f:
            f.seek(first * SECTOR)
            data = f.read(count * SECTOR)
        want = b"".join(sector(n, b"WROTE") for n in range(first, first + count))
        bad = [first + i for i in range(count) if data[i * SECTOR:(i + 1) * SECTOR] != want[i * SECTOR:(i + 1) * SECTOR]]
        results.append(("disk-%s-%d" % (name, first), not bad,
                        "" if not bad else "sectors not in the image file: %s" % bad[:8]))
    return results
