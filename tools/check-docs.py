#!/usr/bin/env python3
"""tools/check-docs.py -- the names the docs quote still exist in the code.

Every `code span` of README.md and docs/*.md is scanned for
  - repository paths (mm/fault.c, tools/qemu.sh, ...): the file must exist;
  - C-style names with an underscore (pgt_map_fault, lazyfree_lock, ...):
    the name must appear somewhere in the sources (C, assembly, Python,
    shell, make files, linker script, test lists).
A name the docs quote from another code base (Linux's try_to_unmap_one,
QEMU's notdirty_write) is listed in tools/docs-foreign-names.txt, one per
line with where it comes from. A renamed function that a page still names
is what this catches: the docs drift from the code one rename at a time.

Usage: check-docs.py [FILE...]   (default README.md docs/*.md); exit 1 and
one line per stale name when any is found. `check-docs.py --self-test`
checks the scanner itself. Run by `make test` (tests/scripts.txt).
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FOREIGN = os.path.join(ROOT, "tools", "docs-foreign-names.txt")
PATH_RE = re.compile(r"\b((?:mm|kernel|lib|arch|user|tools|tests|libc|docs|fs|drivers)/[\w./-]+"
                     r"\.(?:c|h|py|sh|asm|md|mk|txt|inc|ld))\b")
NAME_RE = re.compile(r"\b([a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9])\b")
SPAN_RE = re.compile(r"`([^`\n]+)`")


SOURCE_SUFFIXES = (".c", ".h", ".asm", ".inc", ".py", ".sh", ".mk", ".txt", ".ld", ".gdb")


def source_files():
    """The tracked sources (git), or every source file outside build trees."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [os.path.relpath(os.path.join(d, f), ROOT)
               for d, dirs, files in os.walk(ROOT)
               if not os.path.relpath(d, ROOT).startswith(("build", ".git"))
               for f in files]
    return [f for f in out if f.endswith(SOURCE_SUFFIXES) or os.path.basename(f) == "Makefile"]


def source_text():
    """Everything the names may be found in."""
    parts = []
    for f in source_files():
        with open(os.path.join(ROOT, f), errors="replace") as fh:
            parts.append(fh.read())
    return "\n".join(parts)


def foreign_names():
    names = set()
    with open(FOREIGN) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                names.add(line.split()[0])
    return names


def stale_names(doc_text, exists, known, foreign):
    """The quoted paths that do not exist and names the code lacks."""
    stale = set()
    for span in SPAN_RE.findall(doc_text):
        for path in PATH_RE.findall(span):
            if "NAME" not in path and "SCENARIO" not in path and not exists(path):
                stale.add(path)
        for name in NAME_RE.findall(span):
            if len(name) >= 6 and name not in foreign and name not in known:
                stale.add(name)
    return stale


def self_test():
    known = "pgt_map_fault lazyfree_lock"
    exists = lambda p: p == "mm/fault.c"  # noqa: E731
    doc = ("`pgt_map_fault` `mm/fault.c` `mm/gone.c` `old_function()` `try_to_unmap_one`"
           " `tests/gdb/SCENARIO.py` plain old_words outside spans")
    got = stale_names(doc, exists, known, {"try_to_unmap_one"})
    want = {"mm/gone.c", "old_function"}
    if got != want:
        print(f"check-docs self-test: got {sorted(got)}, want {sorted(want)}")
        return 1
    print("check-docs self-test: ok")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    files = argv[1:] or [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "*.md")))
    if self_test():
        return 1
    known = source_text()
    foreign = foreign_names()
    exists = lambda p: os.path.exists(os.path.join(ROOT, p))  # noqa: E731
    problems = 0
    for f in files:
        with open(f) as fh:
            stale = stale_names(fh.read(), exists, known, foreign)
        for name in sorted(stale):
            print(f"{os.path.relpath(f, ROOT)}: `{name}` is not in the code "
                  f"(renamed? else list it in tools/docs-foreign-names.txt)")
            problems += 1
    print(f"check-docs: {len(files)} pages, {problems} stale name(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
