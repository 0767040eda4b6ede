#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which source files of the library call which (from the built objects' symbol
tables), with the cycles among them: the figures issue 26 asks for.

For every object file under the build's libb2 object directories, `nm` gives the
functions it defines and the ones it calls; a call to a function another file of
the library defines is an edge between the two files. Printed: per layer folder
(or for --folder only), the number of files, the connected file pairs out of the
possible ones, the edges, and every cycle (strongly connected group of files);
with --layers, the edges between layer folders.

    /usr/bin/python3 scripts/layer_graph.py [--build build] [--folder frame] [--edges]
    /usr/bin/python3 scripts/layer_graph.py [--build build] --tools [--edges] [--check]

ctest `layer_graph_frame` runs it with --folder frame --layers --check: the frame
layer's files call each other without a cycle, and no two layers call each other.
With --layers, the frame layer's own sub-layers (FRAME_SUBLAYERS, lowest first:
the folders frame/format, frame/store, frame/object) are checked too: a file
calls only files of its own or a lower sub-layer. (What a sub-layer may include
is the build's wall: each folder compiles with its own include path.)

With --tools, the same for the programs instead: the files of tools/b2/ (the b2
program and its support library) and of bench/ (b2bench, when built). ctest
`layer_graph_tools` runs it with --check: no cycle among those files, and the
commands are leaves: no symbol a cmd_*.c defines is used by any file but main.c.
"""
import argparse
import glob
import itertools
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The frame layer's sub-layers, lowest first: the folders under libb2/frame/.
# object -> store -> format -> chunk/.
FRAME_SUBLAYERS = ["format", "store", "object"]


def check_frame_sublayers(fs, inner, sub):
    """Print the edges between the frame layer's sub-layers (sub: file -> folder);
    return the violations."""
    bad = 0
    rank = {f: FRAME_SUBLAYERS.index(sub[f]) for f in fs}
    between = {}
    for f in fs:
        for g in inner[f]:
            if rank[f] != rank[g]:
                between.setdefault((rank[f], rank[g]), []).append((f, g))
    for name_rank, name in enumerate(FRAME_SUBLAYERS):
        n = sum(1 for f in fs if rank[f] == name_rank)
        print("frame sub-layer %s: %d file(s)" % (name, n))
    for (x, y), es in sorted(between.items()):
        up = x < y
        print("frame sub-layer %s -> %s: %d call edge(s)%s" % (
            FRAME_SUBLAYERS[x], FRAME_SUBLAYERS[y], len(es), "  UPWARD" if up else ""))
        if up:
            for f, g in es:
                print("  upward: %s -> %s" % (f.split("/")[1], g.split("/")[1]))
            bad += len(es)
    return bad


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtDdBbRr":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def sccs(nodes, edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def tools_objects(build):
    """{"tools/NAME" or "bench/NAME": object path} of the programs' files."""
    objs = {}
    for pat in (os.path.join(build, "tools", "CMakeFiles", "*.dir", "b2", "*.c.o"),
                os.path.join(build, "bench", "CMakeFiles", "b2bench.dir", "*.c.o")):
        for o in glob.glob(pat):
            top = "bench" if os.sep + "bench" + os.sep + "CMakeFiles" in o else "tools"
            base = os.path.basename(o)[:-4]
            src = os.path.join(REPO, "bench" if top == "bench" else "tools/b2", base + ".c")
            if os.path.exists(src):  # not a stale object of a removed file
                objs[top + "/" + base] = o
    return objs


def check_tools(build, show_edges):
    """Print the programs' call graph figures; return the violations (cycles and
    uses of a command's symbols outside main.c)."""
    objs = tools_objects(build)
    if not objs:
        sys.exit("no objects under %s/tools (build b2 first)" % build)
    files, owner = {}, {}
    for name, o in sorted(objs.items()):
        files[name] = symbols(o)
        for sym in files[name][0]:
            owner.setdefault(sym, name)
    edges, bad = {}, 0
    for f, (_d, used) in files.items():
        for sym in sorted(used):
            g = owner.get(sym)
            if not g or g == f:
                continue
            edges.setdefault(f, set()).add(g)
            base = g.split("/")[1]
            if base.startswith("cmd_") and f.split("/")[1] != "main":
                print("  command not a leaf: %s uses %s of %s" % (f, sym, g))
                bad += 1
    fs = sorted(files)
    cyc = [c for c in sccs(fs, edges) if len(c) > 1]
    pairs = {frozenset((f, g)) for f in fs for g in edges.get(f, ())}
    print("tools/ and bench/: %d files, %d file pairs connected, %d edges, %d cycle group(s)" % (
        len(fs), len(pairs), sum(len(v) for v in edges.values()), len(cyc)))
    for c in cyc:
        print("  cycle: " + " <-> ".join(c))
    if show_edges:
        for f in fs:
            for g in sorted(edges.get(f, ())):
                print("  %s -> %s" % (f, g))
    return bad + len(cyc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--folder", default=None, help="one layer folder (e.g. frame)")
    ap.add_argument("--edges", action="store_true", help="print every edge")
    ap.add_argument("--layers", action="store_true", help="edges between layer folders")
    ap.add_argument("--tools", action="store_true",
                    help="the programs (tools/b2, bench) instead of the library")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a printed folder has a cycle or two layers call each other")
    a = ap.parse_args()
    if a.tools:
        bad = check_tools(a.build, a.edges)
        if a.check and bad:
            print("FAIL: %d violation(s)" % bad)
            return 1
        return 0
    # <target>.dir/<layer>/x.c.o, and the frame layer's <target>.dir/frame/<sub>/x.c.o
    objs = glob.glob(os.path.join(a.build, "libb2", "CMakeFiles", "*.dir", "*", "*.c.o"))
    frame_objs = glob.glob(os.path.join(a.build, "libb2", "CMakeFiles", "*.dir", "frame",
                                        "*", "*.c.o"))
    if not objs and not frame_objs:
        sys.exit("no objects under %s/libb2 (build first)" % a.build)
    files, owner, sub = {}, {}, {}
    for o in objs + frame_objs:
        folder = os.path.basename(os.path.dirname(o))
        base = os.path.basename(o)[:-2]  # x.c
        if o in frame_objs:
            if folder not in FRAME_SUBLAYERS or not os.path.exists(
                    os.path.join(REPO, "libb2", "frame", folder, base)):
                continue  # a stale object of a moved or removed file
            sub["frame/" + base[:-2]] = folder
            folder = "frame"
        elif folder == "frame":
            continue  # an object from before frame/ had its sub-layer folders
        name = folder + "/" + base[:-2]
        files[name] = symbols(o)
        for s in files[name][0]:
            owner.setdefault(s, name)
    edges = {}
    for f, (_d, used) in files.items():
        for s in used:
            g = owner.get(s)
            if g and g != f:
                edges.setdefault(f, set()).add(g)
    folders = sorted({f.split("/")[0] for f in files}) if not a.folder else [a.folder]
    bad = 0
    for folder in folders:
        fs = sorted(f for f in files if f.split("/")[0] == folder)
        inner = {f: {g for g in edges.get(f, ()) if g in fs} for f in fs}
        pairs = {frozenset((f, g)) for f in fs for g in inner[f]}
        possible = len(fs) * (len(fs) - 1) // 2
        cyc = [c for c in sccs(fs, inner) if len(c) > 1]
        print("%s/: %d files, %d of %d file pairs connected, %d edges, %d cycle group(s)" % (
            folder, len(fs), len(pairs), possible, sum(len(v) for v in inner.values()), len(cyc)))
        bad += len(cyc)
        for c in cyc:
            print("  cycle: " + " <-> ".join(x.split("/")[1] for x in c))
        if a.layers and folder == "frame":
            bad += check_frame_sublayers(fs, inner, sub)
        if a.edges:
            for f in fs:
                for g in sorted(inner[f]):
                    print("  %s -> %s" % (f.split("/")[1], g.split("/")[1]))
    if a.layers:
        lay = {}
        for f, gs in edges.items():
            for g in gs:
                x, y = f.split("/")[0], g.split("/")[0]
                if x != y:
                    lay.setdefault((x, y), set()).add((f, g))
        for (x, y), es in sorted(lay.items()):
            print("layer %s -> %s: %d call edge(s)" % (x, y, len(es)))
        for x, y in itertools.combinations(sorted({k for p in lay for k in p}), 2):
            if (x, y) in lay and (y, x) in lay:
                print("  both ways: %s <-> %s" % (x, y))
                bad += 1
    if a.check and bad:
        print("FAIL: %d cycle(s)" % bad)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
