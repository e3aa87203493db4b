"""pagoda.session -- pg-help, pg-log, pg-hello: finding your way around."""
import os
import re

from .core import COMMANDS, Command, PagodaError, out

SERIAL_ENV = "PAGODA_SERIAL_LOG"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")   # GRUB's screen clearing


class PgHelp(Command):
    """List the Pagoda gdb commands (pg-*), one line each.

Usage: pg-help
`help pg-walk` (etc.) gives the full text of one command."""

    NAME = "pg-help"

    def run(self, args):
        for c in sorted(COMMANDS, key=lambda c: c.NAME):
            out("  %-12s %s" % (c.NAME, c.summary()))
        out("Full help: help pg-NAME.  Memory map: docs/overview.md.  Recipes: docs/debugging.md")


class PgLog(Command):
    """Show the end of the kernel's serial console output.

Usage: pg-log [LINES]
tools/debug.sh sends the serial console to a file (environment variable
PAGODA_SERIAL_LOG); this prints its last LINES lines (default 20). What the
kernel printed appears there as soon as the guest runs (continue, next)."""

    NAME = "pg-log"

    def run(self, args):
        if len(args) > 1:
            self.usage_error()
        path = os.environ.get(SERIAL_ENV)
        if not path or not os.path.exists(path):
            raise PagodaError("no serial log (%s is unset; start gdb with make debug)" % SERIAL_ENV)
        with open(path, errors="replace") as f:
            text = ANSI_ESCAPE.sub("", f.read().replace("\r", ""))
        lines = text.rstrip("\n").split("\n")
        n = int(args[0], 0) if args else 20
        for line in lines[-n:]:
            out(line)


class PgHello(Command):
    """Print the how-to-start text that make debug shows.

Usage: pg-hello"""

    NAME = "pg-hello"

    def run(self, args):
        out("Pagoda: QEMU is stopped at the first BIOS instruction (real mode).")
        out("  hbreak kmain / continue    stop in 64-bit kernel code (hbreak: see docs/debugging.md)")
        out("  pg-help                    the pg- commands (pg-walk, pg-ptdump, pg-page, pg-ps ...)")
        out("  pg-log                     the kernel's serial console output so far")
        out("  make console               (in another terminal) type into the guest's console")


PgHelp()
PgLog()
PgHello()
