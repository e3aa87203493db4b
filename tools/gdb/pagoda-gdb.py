"""tools/gdb/pagoda-gdb.py -- load the Pagoda gdb helpers (tools/gdb/pagoda/).

Sourced by tools/gdb/gdbinit; `source tools/gdb/pagoda-gdb.py` also works on
its own. Re-sourcing reloads the helpers after you edit them.
"""
import importlib
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)

for _name in sorted(m for m in sys.modules if m == "pagoda" or m.startswith("pagoda.")):
    del sys.modules[_name]
importlib.import_module("pagoda")
