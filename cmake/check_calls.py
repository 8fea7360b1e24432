#!/usr/bin/env python3
"""check_calls.py — no two files of one module that call each other in a loop.

Usage: check_calls.py BUILD_DIR SOURCE_DIR [NM]

Reads the library's module objects (BUILD_DIR/CMakeFiles/hipdnn_<module>.dir/<module>/*.c.o,
the object libraries of CMakeLists.txt; an object whose source is gone from SOURCE_DIR is a
leftover of an earlier build and skipped) with `nm`: a file uses another when it references a
symbol the other defines (a call, or a function or table named in an initializer). Within each
module, every strongly connected set of two or more files is a loop; each is printed with the
symbols along it, and the exit status is 1. Cross-module references are not loops here (the
include check, check_includes.py, keeps the modules one-way). Python 3 standard library only.
"""
import collections
import glob
import os
import subprocess
import sys


def symbols(nm, obj):
    defined, used = set(), set()
    out = subprocess.run([nm, obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRBCV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def loops(nodes, edges):
    """Tarjan's strongly connected components of size > 1."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(argv):
    build, source = argv[1], argv[2]
    nm = argv[3] if len(argv) > 3 else "nm"
    dirs = sorted(glob.glob(os.path.join(build, "CMakeFiles", "hipdnn_*.dir")))
    found, files = 0, 0
    for d in dirs:
        module = os.path.basename(d)[len("hipdnn_"):-len(".dir")]
        objs = [o for o in sorted(glob.glob(os.path.join(d, module, "*.c.o")))
                if os.path.exists(os.path.join(source, module, os.path.basename(o)[:-len(".o")]))]
        if not objs:
            continue
        defs, uses = {}, {}
        for o in objs:
            name = module + "/" + os.path.basename(o)[:-len(".o")]
            defined, used = symbols(nm, o)
            for s in defined:
                defs[s] = name
            uses[name] = used
        files += len(objs)
        edges = collections.defaultdict(set)
        via = collections.defaultdict(set)
        for f, used in uses.items():
            for s in used:
                g = defs.get(s)
                if g is not None and g != f:
                    edges[f].add(g)
                    via[(f, g)].add(s)
        for comp in loops(uses.keys(), edges):
            found += 1
            print(f"loop in {module}/: {' <-> '.join(comp)}")
            for f in comp:
                for g in sorted(edges[f] & set(comp)):
                    print(f"  {f} -> {g}: {', '.join(sorted(via[(f, g)])[:6])}")
    if files == 0:
        print(f"check_calls: no module objects under {build}/CMakeFiles (build the library first)")
        return 1
    print(f"check_calls: {files} files, {found} loop(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
