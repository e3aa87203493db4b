"""pagoda.headers -- constants read from the kernel's own C headers.

The memory map (arch/x86_64/memlayout.h) and the PTE bit names
(arch/x86_64/pte.h) are written down once, in C. Rather than copying them
into Python, the helpers read the `#define NAME value` lines whose value is a
plain integer expression (numbers, <<, |, +, -, parentheses, casts-free, and
names defined earlier), e.g.

    #define KERNEL_VMA 0xffffffff80000000UL
    #define DIRECT_MAP_MAX (1UL << 39)
    #define PTE_COW BIT(9)

Anything else (function-like macros, casts, strings) is skipped.
"""
import os
import re

from .core import REPO_ROOT, PagodaError

_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+(.+?)\s*(?:/\*.*)?$")
_SUFFIX = re.compile(r"\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b")
_BIT = re.compile(r"\bBIT(?:_ULL)?\s*\(")
_SAFE = re.compile(r"^[0-9a-fA-FxX_A-Z\s()<>|&+\-*~]*$")

_cache = {}


def _evaluate(expr, known):
    expr = _BIT.sub("(1 << ", expr.replace("ULL", "").replace("UL", ""))
    expr = _SUFFIX.sub(r"\1", expr)
    if not _SAFE.match(expr):
        return None
    names = set(re.findall(r"\b[A-Z_][A-Z0-9_]*\b", expr)) - {"X"}
    if not names <= set(known):
        return None
    try:
        value = eval(expr, {"__builtins__": {}}, dict(known))
    except Exception:
        return None
    return value if isinstance(value, int) else None


def defines(relpath):
    """{NAME: int} for the integer #defines of REPO_ROOT/relpath; {} if the
    header does not exist (yet). Cached per file modification time."""
    path = os.path.join(REPO_ROOT, relpath)
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return {}
    hit = _cache.get(path)
    if hit and hit[0] == mtime:
        return hit[1]
    known = {}
    with open(path) as f:
        for line in f:
            m = _DEFINE.match(line)
            if m:
                value = _evaluate(m.group(2), known)
                if value is not None:
                    known[m.group(1)] = value
    _cache[path] = (mtime, known)
    return known


def require(relpath, name):
    """One constant from a header, or a PagodaError naming both."""
    value = defines(relpath).get(name)
    if value is None:
        raise PagodaError("no integer #define %s in %s" % (name, relpath))
    return value
