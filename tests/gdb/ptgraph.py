"""tests/gdb/ptgraph.py -- read back the page-table graphs that pg-draw
(tools/gdb/pagoda/draw.py) and ptdraw (user/ptdraw.c) write, for tests.

    g = ptgraph.parse(dot_text)
    g.nodes   {id: label}            (ids: pidN for processes, tPA for tables)
    g.edges   [(src, dst, dashed)]   in file order
    g.parents(id), g.level(id), g.fields(id)

structure(g) is what both writers must agree on: the set of node lines and
the set of edges (a table page drawn twice, or an edge written twice, shows
up in g.duplicates).
"""
import re

NODE = re.compile(r'^\t(\w+) \[label="([^"]*)"')
EDGE = re.compile(r'^\t(\w+) -> (\w+)(?: \[(.*)\])?;$')


class Graph:
    def __init__(self):
        self.nodes, self.edges, self.duplicates, self.title = {}, [], [], None

    def parents(self, node):
        return [s for s, d, _ in self.edges if d == node]

    def children(self, node):
        return [d for s, d, _ in self.edges if s == node]

    def level(self, node):
        """'PML4', 'PDPT', 'PD', 'PT', or 'pid'."""
        return "pid" if node.startswith("pid") else self.nodes[node].split()[0]

    def fields(self, node):
        """{'present': n, 'share': n, 'cow': n, ...} of a table node."""
        parts = re.split(r"\\n|, ", self.nodes[node])
        return {k: int(v) for k, v in (p.rsplit(" ", 1) for p in parts[1:]) if v.isdigit()}

    def roots_of(self, node):
        """The process nodes from which node is reachable."""
        todo, seen, found = [node], set(), set()
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if n.startswith("pid"):
                found.add(n)
            todo += self.parents(n)
        return found


def parse(text):
    g = Graph()
    for line in text.splitlines():
        m = EDGE.match(line)
        if m:
            e = (m.group(1), m.group(2), "style=dashed" in (m.group(3) or ""))
            if e in g.edges:
                g.duplicates.append(line)
            g.edges.append(e)
            continue
        m = NODE.match(line)
        if m:
            if m.group(1) in g.nodes:
                g.duplicates.append(line)
            g.nodes[m.group(1)] = m.group(2)
            continue
        m = re.match(r'^\tlabel="([^"]*)";$', line)
        if m:
            g.title = m.group(1)
    return g


def structure(g):
    """(node lines, edges) as sets: equal for two pictures of the same state."""
    return set(g.nodes.items()), set(g.edges)
