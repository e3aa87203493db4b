"""Pagoda's gdb helpers: pg- commands for page tables, frames, processes.

Importing the package registers every command (tools/gdb/pagoda-gdb.py does
it). Modules, one job each:
  core      command base class, errors, symbol/type lookups
  headers   integer #defines read from the kernel's C headers
  layout    memory map (memlayout.h), physical memory via the direct map, CR3
  pte       page-table entry bits and levels
  paging    walking page tables
  walk      pg-walk, pg-ptdump
  draw      pg-draw (Graphviz pictures of page-table trees)
  frames    pg-page (the struct page frame database)
  proc      pg-ps, pg-vmas
  lazyfree  pg-lazyfree
  lru       pg-lru (the replacement lists)
  cache     pg-cache (page caches and their pages)
  rmap      pg-mappers (who maps an object's pages: the reverse map)
  disk      pg-disk (disks, their counters, the requests in flight)
  cpus      pg-cpus
  pvsites   pg-pvsites
  syms      pg-syms, pg-bt
  session   pg-help, pg-log, pg-hello
  names     the kernel names the helpers depend on
"""
from . import walk, draw, frames, proc, lazyfree, lru, cache, rmap, disk, pvsites, syms, session, cpus  # noqa: F401
