"""tools/bench/configs.py -- the Pagoda configurations `make bench` boots, and
what each one runs: only the programs its tables need.

  ptshare=off|fork|all       page-table sharing (kernel option): lmbench, forkrss,
                             page faults, madvise, ebizzy, ptshare_stat (seeds 000,
                             002, 003)
  PARAVIRT=0, pv=indirect|patched
                             the pv_ops variants (a PARAVIRT=0 kernel built in
                             build-nopv/, and a kernel option): lat_syscall and
                             lat_proc (seed 004)
  MALLOC_PURGE=free|dontneed|munmap|none
                             Pagoda malloc's purge policies (an environment variable
                             of the programs): mallocbench, ebizzy malloc mode
  bench=fork                 the in-kernel fork benchmark (kernel option): the kernel
                             prints BENCH kfork lines instead of starting init

Configurations are named as their columns are (without "pagoda "); a group name
(ptshare, pv, purge, kfork) stands for all of its configurations.
"""
import collections
import shlex

Config = collections.namedtuple("Config", "name group words suite kernel estimate")

PTSHARE_PROGS = "lat_syscall,lat_proc,lat_pagefault,forkrss,madvbench,ebizzy,ptshare_stat"
PV_PROGS = "lat_syscall,lat_proc"
PURGE_PROGS = ["--only", "mallocbench,ebizzy", "--args", "ebizzy=-m,malloc"]

# What init runs in a bench=fork boot: only reached when the kernel does not
# know bench=fork (a kernel that does runs its benchmark and exits QEMU).
KFORK_FALLBACK = ["--init", "echo BENCHSTART kfork; echo BENCHPROG kfork; "
                  "echo BENCHSKIP kfork all this kernel ignores bench=fork; echo BENCHDONE"]

# estimate: seconds one boot takes on a quiet 2-core host with the default
# options (boot included), for the plan and the first round's time left.
CONFIGS = [
    Config("ptshare=off", "ptshare", "ptshare=off", ["--only", PTSHARE_PROGS], "", 45),
    Config("ptshare=fork", "ptshare", "ptshare=fork", ["--only", PTSHARE_PROGS], "", 35),
    Config("ptshare=all", "ptshare", "ptshare=all", ["--only", PTSHARE_PROGS], "", 35),
    Config("PARAVIRT=0", "pv", "", ["--only", PV_PROGS], "nopv", 10),
    Config("pv=indirect", "pv", "pv=indirect", ["--only", PV_PROGS], "", 10),
    Config("pv=patched", "pv", "pv=patched", ["--only", PV_PROGS], "", 10),
    Config("MALLOC_PURGE=free", "purge", "MALLOC_PURGE=free", PURGE_PROGS, "", 10),
    Config("MALLOC_PURGE=dontneed", "purge", "MALLOC_PURGE=dontneed", PURGE_PROGS, "", 10),
    Config("MALLOC_PURGE=munmap", "purge", "MALLOC_PURGE=munmap", PURGE_PROGS, "", 10),
    Config("MALLOC_PURGE=none", "purge", "MALLOC_PURGE=none", PURGE_PROGS, "", 10),
    Config("bench=fork", "kfork", "bench=fork", KFORK_FALLBACK, "", 30),
]
GROUPS = ["ptshare", "pv", "purge", "kfork"]


def select(names):
    """The configurations named (or of the groups named), in CONFIGS order;
    SystemExit on an unknown name."""
    known = {c.name for c in CONFIGS} | set(GROUPS)
    bad = [n for n in names if n not in known]
    if bad:
        raise SystemExit("bench: unknown configuration %s (known: %s)"
                         % (", ".join(bad), " ".join(GROUPS + [c.name for c in CONFIGS])))
    return [c for c in CONFIGS if c.name in names or c.group in names]


def systems(configs, build, nopv_build, mem, kfork_opts):
    """(column name, boot command, estimated seconds) per configuration: each
    boots with tools/bench/pagoda.sh (prepared beforehand) the way bench-linux
    boots Pagoda; kfork_opts are extra kernel options of the bench=fork boot."""
    out = []
    for c in configs:
        words = c.words + (" " + kfork_opts if c.group == "kfork" and kfork_opts else "")
        cmd = ["tools/bench/pagoda.sh", "boot", build, mem, words.strip()] + c.suite
        env = "PAGODA_KERNEL=%s " % shlex.quote(nopv_build + "/kernel.elf") if c.kernel else ""
        out.append(("pagoda " + c.name, env + " ".join(map(shlex.quote, cmd)), c.estimate))
    return out

# The tables `make bench` prints, in this order (tables.py).
TABLES = ["ptshare", "ptshare_pages", "forkrss", "ebizzy", "ptshare_micro", "paravirt",
          "malloc_purge", "kfork"]
