#!/usr/bin/env python3
"""tools/pictures.py -- split the console output of the pictures scenario
(user/ptpictures.c) into Graphviz files and render them (make pictures).

    tools/pictures.py SERIAL_LOG OUTDIR [--docs DIR]

Every section
    #### picture NN NAME pids P,Q | TITLE
    digraph pagetables { ... }
    #### end NN
becomes OUTDIR/NN-NAME.dot and OUTDIR/NN-NAME.png (Graphviz's dot); with
--docs the PNGs are also copied to DIR (docs/pictures/, committed). Fails
(exit 1) when the log has no pictures, a section has no end, or the run did
not reach "#### done". sections() is what tests/gdb/ptdraw.py reads.
"""
import os
import re
import shutil
import subprocess
import sys

START = re.compile(r"^#### picture (\d+) (\S+) pids (\S+) \| (.*)$")
END = "#### end %s"
DONE = "#### done"


def sections(text):
    """[{number, name, pids, title, dot, complete}] of a console log, in order."""
    found, cur = [], None
    for line in text.replace("\r", "").split("\n"):
        m = START.match(line)
        if m:
            cur = dict(number=m.group(1), name=m.group(2), title=m.group(4), dot="", complete=False,
                       pids=[int(p) for p in m.group(3).split(",")])
            found.append(cur)
        elif cur is not None and line == END % cur["number"]:
            cur["complete"], cur = True, None
        elif cur is not None:
            cur["dot"] += line + "\n"
    return found


def render(dot_path, png_path):
    subprocess.run(["dot", "-Tpng", "-Gdpi=80", "-o", png_path, dot_path], check=True)


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--docs"):
        sys.exit(__doc__.strip().split("\n\n")[1])
    log, outdir = argv[1], argv[2]
    text = open(log, errors="replace").read()
    found = sections(text)
    if not found or not all(s["complete"] for s in found) or DONE not in text:
        sys.exit("pictures: %s: the scenario did not finish (%d sections); see the log" % (log, len(found)))
    os.makedirs(outdir, exist_ok=True)
    for s in found:
        base = os.path.join(outdir, "%s-%s" % (s["number"], s["name"]))
        with open(base + ".dot", "w") as f:
            f.write(s["dot"])
        render(base + ".dot", base + ".png")
        print("pictures: %s.png  (%s)" % (base, s["title"]))
        if len(argv) == 5:
            os.makedirs(argv[4], exist_ok=True)
            shutil.copy(base + ".png", os.path.join(argv[4], "scenario-%s-%s.png" % (s["number"], s["name"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
