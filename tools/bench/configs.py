"""tools/bench/configs.py -- the Pagoda configurations `make bench` boots, and
what each one runs: only the programs its tables need.

  ptshare=off|fork|all|pd    page-table sharing (kernel option): lmbench, forkrss,
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
                             prints BENCH kfork lines instead of starting init (1 MiB
                             to 1 GiB address spaces: it gets its own memory size)

Configurations are named as their columns are (without "pagoda "); a group name
(ptshare, pv, purge, kfork) stands for all of its configurations.
"""
import collections
import shlex

Config = collections.namedtuple("Config", "name group words suite kernel estimate once")

# The suite's arguments per group: which programs, with which extra arguments.
PTSHARE_ARGS = ["--only", "lat_syscall,lat_proc,lat_pagefault,forkrss,madvbench,ebizzy,"
                "ptshare_stat"]
PV_ARGS = ["--only", "lat_syscall,lat_proc"]
PURGE_ARGS = ["--only", "mallocbench,ebizzy", "--args", "ebizzy=-m,malloc"]

# What init runs in a bench=fork boot: only reached when the kernel ignored
# bench=fork (it runs its benchmark, kernel/forkbench/bootmode.c, and exits QEMU).
KFORK_FALLBACK = ["--init", "echo BENCHSTART kfork; echo BENCHPROG kfork; "
                  "echo BENCHFAIL kfork the kernel ignored bench=fork; echo BENCHDONE"]

# estimate: seconds one boot takes on a quiet 2-core host with the default
# options (boot included), for the plan and the first round's time left.
# once: boots in the first round only -- the in-kernel fork benchmark repeats
# its runs itself and compares strategies within one boot (by factors of 10
# to 1000), and its 1 GiB copies make it the longest boot.
CONFIGS = [
    Config("ptshare=off", "ptshare", "ptshare=off", PTSHARE_ARGS, "", 42, False),
    Config("ptshare=fork", "ptshare", "ptshare=fork", PTSHARE_ARGS, "", 40, False),
    Config("ptshare=all", "ptshare", "ptshare=all", PTSHARE_ARGS, "", 40, False),
    Config("ptshare=pd", "ptshare", "ptshare=pd", PTSHARE_ARGS, "", 40, False),
    Config("PARAVIRT=0", "pv", "", PV_ARGS, "nopv", 9, False),
    Config("pv=indirect", "pv", "pv=indirect", PV_ARGS, "", 9, False),
    Config("pv=patched", "pv", "pv=patched", PV_ARGS, "", 9, False),
] + [Config("MALLOC_PURGE=" + p, "purge", "MALLOC_PURGE=" + p, PURGE_ARGS, "", 14, False)
     for p in ("free", "dontneed", "munmap", "none")] + [
    Config("bench=fork", "kfork", "bench=fork", KFORK_FALLBACK, "", 50, True),
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


def systems(configs, build, nopv_build, mem, kfork_opts, kfork_mem):
    """(column name, boot command, estimated seconds, once) per configuration: each
    boots with tools/bench/pagoda.sh (prepared beforehand) the way bench-linux
    boots Pagoda, with `mem` of RAM; the bench=fork boot gets kfork_mem and
    the extra kernel options kfork_opts."""
    out = []
    for c in configs:
        kfork = c.group == "kfork"
        words = c.words + (" " + kfork_opts if kfork and kfork_opts else "")
        cmd = ["tools/bench/pagoda.sh", "boot", build, kfork_mem if kfork else mem,
               words.strip()] + c.suite
        env = "PAGODA_KERNEL=%s " % shlex.quote(nopv_build + "/kernel.elf") if c.kernel else ""
        out.append(("pagoda " + c.name, env + " ".join(map(shlex.quote, cmd)), c.estimate,
                    c.once))
    return out

# The tables `make bench` prints, in this order (tables.py).
TABLES = ["ptshare", "ptshare_pages", "forkrss", "ebizzy", "ptshare_micro", "paravirt",
          "malloc_purge", "kfork", "kfork_parts"]
