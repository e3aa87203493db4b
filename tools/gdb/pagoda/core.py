"""pagoda.core -- what every pg- command shares.

* PagodaError: the one exception a command raises for an expected problem
  (missing symbol, bad argument, unreadable memory). The Command base class
  turns it into a one-line gdb error: no Python traceback, and in batch mode
  the script stops like after any failed gdb command.
* Command: base class; a subclass gives NAME, a docstring (gdb's help text,
  first line = summary) and run(args).
* Expression, symbol and type lookups that fail with a message saying what is
  missing and which part of Pagoda will provide it.
"""
import os

import gdb

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

COMMANDS = []   # every registered Command, for pg-help


class PagodaError(Exception):
    """An expected failure, reported as one line."""


class Command(gdb.Command):
    """Base of all pg- commands. Subclasses set NAME and define run(args)."""

    NAME = None
    COMPLETE = gdb.COMPLETE_EXPRESSION

    def __init__(self):
        super().__init__(self.NAME, gdb.COMMAND_USER, self.COMPLETE)
        COMMANDS.append(self)

    @classmethod
    def summary(cls):
        return (cls.__doc__ or "").strip().split("\n")[0]

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        try:
            self.run(gdb.string_to_argv(arg))
        except PagodaError as e:
            raise gdb.GdbError("%s: %s" % (self.NAME, e))
        except gdb.MemoryError as e:
            raise gdb.GdbError("%s: cannot read memory: %s" % (self.NAME, e))
        except gdb.error as e:
            raise gdb.GdbError("%s: %s" % (self.NAME, e))
        except Exception as e:
            if gdb.parameter("python print-stack") == "full":
                raise
            raise gdb.GdbError("%s: internal error, %s: %s (set python print-stack full "
                               "for the traceback)" % (self.NAME, type(e).__name__, e))

    def run(self, args):
        raise NotImplementedError

    def usage_error(self):
        """Raise the usage line (first line of the help after the summary)."""
        lines = [l.strip() for l in (self.__doc__ or "").strip().split("\n")]
        usage = next((l for l in lines if l.startswith("Usage:")), "see help " + self.NAME)
        raise PagodaError(usage)


def out(text=""):
    """Print one line to gdb's output (which to_string= captures)."""
    gdb.write(text + "\n")


def to_int(expr):
    """Evaluate a gdb expression ('0x1000', '$cr3', 'kmain', 'tf->rip') to an
    integer. A function or array name gives its address."""
    try:
        v = gdb.parse_and_eval(expr) if isinstance(expr, str) else expr
    except gdb.error as e:
        raise PagodaError("cannot evaluate '%s': %s" % (expr, e))
    code = v.type.strip_typedefs().code
    if code in (gdb.TYPE_CODE_FUNC, gdb.TYPE_CODE_ARRAY):
        v = v.address
    return int(v.cast(gdb.lookup_type("unsigned long"))) & 0xffffffffffffffff


def symbol_value(name, provider):
    """The value of kernel global `name`; provider names the part of Pagoda
    that defines it, for the error message when it does not exist (yet)."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None:
        try:
            return gdb.parse_and_eval(name)
        except gdb.error:
            raise PagodaError("symbol '%s' not found in the kernel: %s" % (name, provider))
    return sym.value()


def symbol_exists(name):
    return bool(gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
                or gdb.lookup_symbol(name)[0])


def symbol_address(name):
    """Address of a kernel symbol (C object or function, or an assembly
    label without debug information), or None if there is no such symbol."""
    try:
        return to_int("&" + name)
    except PagodaError:
        return None


def lookup_type(name, provider):
    """gdb.Type for a C type name ('struct page'), or a PagodaError saying
    which part of Pagoda will define it."""
    try:
        return gdb.lookup_type(name)
    except gdb.error:
        raise PagodaError("type '%s' not found in the kernel: %s" % (name, provider))


def has_field(value, name):
    """Does value's struct have member name, directly or inside an anonymous
    struct/union member (C11), which gdb's value[name] also finds?"""
    def search(t):
        for f in t.strip_typedefs().fields():
            if f.name == name or (f.name is None and search(f.type)):
                return True
        return False
    return search(value.type)


def field(value, name, what):
    """value[name], or a PagodaError naming the structure and field."""
    if not has_field(value, name):
        raise PagodaError("%s has no field '%s' (gdb helpers out of date? see "
                          "tools/gdb/pagoda/names.py)" % (what, name))
    return value[name]


def member_offset(t, member):
    """Byte offset of `member` in struct type t, looking inside anonymous
    unions and structs (struct page's link is in one); None if absent."""
    for f in t.fields():
        if f.name == member:
            return f.bitpos // 8
        if f.name is None and f.type.strip_typedefs().code in (gdb.TYPE_CODE_UNION,
                                                               gdb.TYPE_CODE_STRUCT):
            inner = member_offset(f.type.strip_typedefs(), member)
            if inner is not None:
                return f.bitpos // 8 + inner
    return None


def container_of(ptr, type_name, member):
    """The struct type_name whose member `member` lives at address ptr."""
    t = gdb.lookup_type(type_name)
    off = member_offset(t, member)
    if off is None:
        raise PagodaError("%s has no member '%s'" % (type_name, member))
    return gdb.Value(int(ptr) - off).cast(t.pointer()).dereference()


def list_entries(head, type_name, member, limit=1 << 20):
    """Walk a circular doubly-linked list (head->next ... back to head), the
    kernel/list.h shape, yielding the containing structures."""
    head_addr = int(head.address)
    node = head["next"]
    n = 0
    while int(node) != head_addr:
        if int(node) == 0:
            raise PagodaError("list at %#x is broken: NULL next pointer" % head_addr)
        n += 1
        if n > limit:
            raise PagodaError("list at %#x: more than %d entries (a loop?)" % (head_addr, limit))
        yield container_of(node, type_name, member)
        node = node["next"]


def human_size(n):
    """'4 KiB', '2 MiB', '1.5 GiB', '812 B': exact when n is a whole unit."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%d %s" % (n // size, unit) if n % size == 0 else "%.1f %s" % (n / size, unit)
    return "%d B" % n
