#!/usr/bin/env python3
"""tests/deps/deps_test.py -- packages are checked before anything compiles
(tools/deps.mk, issue 13), without touching this machine's packages: a fake
dpkg-query and id come first in PATH, DPKG_STATUS is a scratch file and every
make uses a scratch build directory under $BUILD/test/deps.

1. first and once: for each entry point (make, make run, test, debug, unit,
   bench, bench-linux, PARAVIRT=0, CROSS=x86_64-elf-) with every package
   missing and not root, `make -j2` fails after printing exactly one apt-get
   line naming the packages of that goal's groups, and no compiler or tool
   ran (fake gcc, nasm, ... record any call, at parse time included);
2. every recipe waits for every stamp: in make's database (make -pn) of each
   entry point from an empty build directory, every target with a recipe
   has all the goal's stamps among its prerequisites, directly or through
   others -- whatever order make picks under -j;
3. re-validation: with every package present `make deps` makes the seven
   stamps; a second `make deps` asks dpkg-query nothing; after dpkg's status
   file changes (a package was removed) the next make reports it.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.abspath(os.path.join(os.environ.get("BUILD", os.path.join(ROOT, "build")),
                                    "test", "deps"))
FAKE = os.path.join(WORK, "bin")
CALLS = os.path.join(WORK, "tool-calls")      # one line per fake tool run
DPKG_CALLS = os.path.join(WORK, "dpkg-calls")  # one line per dpkg-query run
MISSING = os.path.join(WORK, "missing")        # packages the fake dpkg lacks; * = all
STATUS = os.path.join(WORK, "dpkg-status")
TOOLS = ("gcc cc nasm ld as ar nm objcopy objdump musl-gcc pkg-config grub-mkrescue xorriso "
         "qemu-system-x86_64 gdb python3 x86_64-elf-gcc x86_64-elf-ld x86_64-elf-nm "
         "x86_64-elf-objcopy x86_64-elf-objdump").split()

# (make arguments, packages the apt-get line must name, packages it must not)
ENTRY_POINTS = [
    ([], "gcc nasm binutils newlib-source musl-tools", "qemu-system-x86 check gdb"),
    (["run"], "gcc nasm musl-tools qemu-system-x86", "check gdb gnuplot-nox"),
    (["test"], "gcc nasm newlib-source musl-tools qemu-system-x86 check pkg-config gdb python3 "
     "e2fsprogs graphviz", "gnuplot-nox"),
    (["debug"], "gcc qemu-system-x86 gdb", "gnuplot-nox graphviz"),
    (["unit"], "gcc check pkg-config e2fsprogs", "qemu-system-x86 newlib-source musl-tools"),
    (["bench"], "gcc newlib-source musl-tools qemu-system-x86 gnuplot-nox", "check gdb"),
    (["bench-linux"], "gcc musl-tools qemu-system-x86 gnuplot-nox cpio", "check gdb"),
    (["PARAVIRT=0"], "gcc nasm newlib-source musl-tools", "qemu-system-x86 check"),
    (["CROSS=x86_64-elf-"], "gcc nasm newlib-source musl-tools", "qemu-system-x86 check"),
]

failures = []


def check(ok, what):
    print(("ok - " if ok else "FAIL - ") + what)
    if not ok:
        failures.append(what)


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def setup():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(FAKE)
    for t in TOOLS:
        write(os.path.join(FAKE, t), '#!/bin/sh\necho "$0 $*" >> "%s"\nexit 1\n' % CALLS, 0o755)
    write(os.path.join(FAKE, "id"), "#!/bin/sh\necho 1000\n", 0o755)
    write(os.path.join(FAKE, "dpkg-query"),
          '#!/bin/sh\necho "$*" >> "%s"\nfor p; do case $p in -*) ;; *)\n'
          '\tgrep -qxF -e "$p" -e "*" "%s" || printf "ii  %%s\\n" "$p";; esac; done\n'
          % (DPKG_CALLS, MISSING), 0o755)
    write(STATUS, "")


def make(build, args, missing):
    """Runs make from the repository in a scratch build directory with the
    fakes; returns (status, stdout, stderr)."""
    write(MISSING, "\n".join(missing) + "\n")
    env = dict(os.environ, PATH=FAKE + ":" + os.environ["PATH"])
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    p = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "B=" + build,
                        "DPKG_STATUS=" + STATUS] + args,
                       capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def files_under(d):
    return sorted(os.path.relpath(os.path.join(r, f), d)
                  for r, _, fs in os.walk(d) for f in fs) if os.path.isdir(d) else []


def test_first_and_once():
    for i, (args, want, unwanted) in enumerate(ENTRY_POINTS):
        name = "make " + " ".join(args) if args else "make"
        build = os.path.join(WORK, "b%d" % i)
        if os.path.exists(CALLS):
            os.remove(CALLS)
        rc, out, err = make(build, ["-j2"] + args, ["*"])
        lines = [ln for ln in (out + err).splitlines() if "apt-get install" in ln]
        check(rc != 0, "%s: fails when packages are missing and not root (status %d)" % (name, rc))
        check(len(lines) == 1, "%s: prints one apt-get line (%d)" % (name, len(lines)))
        named = set(lines[0].split()) if lines else set()
        check(lines and lines[0].startswith("deps: run as root:  apt-get update && apt-get "
                                            "install -y --no-install-recommends "),
              "%s: the line is the exact command: %s" % (name, lines[0] if lines else "none"))
        check(set(want.split()) <= named and not set(unwanted.split()) & named,
              "%s: it names the goal's packages (%s), not others (%s)" % (name, want, unwanted))
        ran = open(CALLS).read().splitlines() if os.path.exists(CALLS) else []
        check(not ran, "%s: no tool ran before the check (%s)" % (name, "; ".join(r[:70] for r in ran[:2])))
        left = files_under(build)
        check(not left, "%s: nothing built, no stamp (%s)" % (name, " ".join(left[:5])))


def database(text):
    """make -p's file entries: {target: (prerequisites, has_recipe)}."""
    files = text.split("\n# Files\n", 1)[1].split("\n# files hash-table stats", 1)[0]
    rules = {}
    for block in files.split("\n\n"):
        lines = block.split("\n")
        head = [ln for ln in lines if ln and ln[0] not in "#\t"
                and not re.match(r"^[^:]+: \S+ [:+?]?= ", ln)]   # not a target's variable
        m = re.match(r"^([^:]+?)::?(?:\s(.*))?$", head[0]) if head else None
        if m:
            rules[m.group(1)] = ((m.group(2) or "").replace("|", " ").split(),
                                 any(ln.startswith("\t") for ln in lines))
    return rules


def closure(rules, target):
    seen, todo = set(), [target]
    while todo:
        t = todo.pop()
        if t not in seen:
            seen.add(t)
            todo.extend(rules.get(t, ([], False))[0])
    return seen


def test_every_recipe_waits():
    for i, (args, _, _) in enumerate(ENTRY_POINTS):
        if args == ["bench"]:   # its recipe is sub-makes (entry points of their own)
            continue
        name = "make " + " ".join(args) if args else "make"
        build = os.path.join(WORK, "p%d" % i)
        rc, out, err = make(build, ["-pn"] + args, [])
        goal = [a for a in args if "=" not in a] or ["all"]
        rules = database(out)
        reach = closure(rules, goal[0])
        stamps = {t for t in reach if "/.deps/" in t}
        late = sorted(t for t in reach - stamps
                      if rules.get(t, ([], False))[1] and not stamps <= closure(rules, t))
        recipes = sum(1 for t in reach if rules.get(t, ([], False))[1])
        built = os.path.join(build, "unit" if goal == ["unit"] else "kernel.elf")
        check(rc == 0 and stamps and any(t.startswith(built) for t in reach) and not late,
              "%s: all %d recipes wait for the stamps %s (not: %s)"
              % (name, recipes, " ".join(sorted(os.path.basename(s) for s in stamps)),
                 " ".join(late[:5]) or "none"))


def test_revalidation():
    build = os.path.join(WORK, "r")
    stamps = os.path.join(build, ".deps")
    rc, out, err = make(build, ["deps"], [])
    check(rc == 0 and sorted(os.listdir(stamps)) ==
          sorted("build newlib musl run test pictures bench".split()),
          "make deps with all packages present makes the seven stamps (%d: %s)" % (rc, err.strip()))
    before = len(open(DPKG_CALLS).read().splitlines())
    rc, out, err = make(build, ["deps"], [])
    after = len(open(DPKG_CALLS).read().splitlines())
    check(rc == 0 and after == before, "up-to-date stamps: no dpkg-query (%d calls)" % (after - before))
    if not os.path.exists(os.path.join(stamps, "build")):
        return
    t = os.stat(os.path.join(stamps, "build")).st_mtime
    for s in os.listdir(stamps):
        os.utime(os.path.join(stamps, s), (t - 100, t - 100))
    os.utime(STATUS, (t - 50, t - 50))   # dpkg rewrote its status: gdb was removed
    rc, out, err = make(build, ["deps"], ["gdb"])
    check(rc != 0 and "apt-get install -y --no-install-recommends gdb\n" in err,
          "after a package change the next make re-checks and reports the removed gdb (%d: %s)"
          % (rc, err.strip().splitlines()[0] if err.strip() else ""))


def main():
    setup()
    test_first_and_once()
    test_every_recipe_waits()
    test_revalidation()
    print("deps: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
