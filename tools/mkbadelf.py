#!/usr/bin/env python3
"""tools/mkbadelf.py SRC OUTDIR -- malformed copies of the ELF program SRC.

Each OUTDIR/NAME is SRC with one header field broken (NAME says which);
usertests' exec_badelf expects execve of each to fail with the errno Linux
gives (ENOEXEC, EIO for a PT_INTERP past the end of the file) and the kernel
to carry on. SRC must be a dynamically linked program (it needs PT_INTERP).
"""
import os
import struct
import sys

EHDR_TYPE, EHDR_MACHINE, EHDR_PHOFF, EHDR_PHENTSIZE, EHDR_PHNUM = 16, 18, 32, 54, 56
PH_OFFSET, PH_FILESZ = 8, 32
PT_LOAD, PT_INTERP = 1, 3


def phdr_of(data, ptype):
    """File offset of the first program header of type ptype."""
    phoff, = struct.unpack_from('<Q', data, EHDR_PHOFF)
    phentsize, phnum = struct.unpack_from('<HH', data, EHDR_PHENTSIZE)
    for i in range(phnum):
        at = phoff + i * phentsize
        if struct.unpack_from('<I', data, at)[0] == ptype:
            return at
    sys.exit(f'mkbadelf: no program header of type {ptype}')


def variants(data):
    """(name, fmt, offset, value) of every one-field corruption."""
    size = len(data)
    interp, load = phdr_of(data, PT_INTERP), phdr_of(data, PT_LOAD)
    return [
        ('type-rel', '<H', EHDR_TYPE, 1),                 # ET_REL
        ('machine', '<H', EHDR_MACHINE, 3),               # EM_386
        ('phentsize', '<H', EHDR_PHENTSIZE, 48),
        ('phnum0', '<H', EHDR_PHNUM, 0),
        ('phoff-eof', '<Q', EHDR_PHOFF, size + 4096),
        ('phoff-huge', '<Q', EHDR_PHOFF, 2**64 - 8),      # wraps when added
        ('interp-long', '<Q', interp + PH_FILESZ, 1 << 20),
        ('interp-nonul', '<Q', interp + PH_FILESZ, 10),   # cut inside the path
        ('interp-eof', '<Q', interp + PH_OFFSET, size + 100),
        ('load-filesz', '<Q', load + PH_FILESZ, 2**63),   # Pagoda only: see t_proc.c
        ('load-offset', '<Q', load + PH_OFFSET, 2**64 - 4096),
    ]


def main():
    src, out = sys.argv[1], sys.argv[2]
    data = open(src, 'rb').read()
    os.makedirs(out, exist_ok=True)
    todo = [(n, bytearray(data), f, o, v) for n, f, o, v in variants(data)]
    for name, d, fmt, off, val in todo:
        struct.pack_into(fmt, d, off, val)
    todo.append(('truncated', bytearray(data[:300]), None, 0, 0))  # phdrs cut off
    for name, d, *_ in todo:
        path = os.path.join(out, name)
        with open(path, 'wb') as f:
            f.write(d)
        os.chmod(path, 0o755)


if __name__ == '__main__':
    main()
