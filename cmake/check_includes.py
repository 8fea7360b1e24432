#!/usr/bin/env python3
"""check_includes.py — the library's module layering, checked on its #include lines.

Usage: check_includes.py ROOT   (the repository root, or a fixture tree shaped like it)

Every library source and header (ROOT/<module>/*.c, *.h, *.def) is read; each
`#include "dir/name"` whose dir is a module must be
  (a) along an allowed edge: the including file's module may use dir (MODULES below), and
  (b) dir's contract: its one contract header, or an op table (*.def) of dir; a module's other
      headers are private to it.
An include without a directory ("hipdnn_backend.h") names a public header of include/ and is
always allowed; a quoted include of any other directory fails. tests/, tools/, bench/ and
examples/ are not checked here (tests may include anything; tools and bench are checked by the
public_only test). Exit status 1 with one line per forbidden include, 0 when there is none.
Python 3 standard library only. The same table is drawn in README.md's "Architecture".
"""
import os
import re
import sys

# module: (contract header, modules it may use). Left may use right, never the reverse.
MODULES = {
    "base": ("base/base.h", []),
    "ir": ("ir/ir.h", ["base"]),
    "codegen": ("codegen/cg.h", ["ir", "base"]),
    "cache": ("cache/kc.h", ["base"]),
    "runtime": ("runtime/rt.h", ["base"]),
    "desc": ("desc/fe_desc.h", ["base"]),
    "graph": ("graph/fe_graph.h", ["desc", "ir", "base"]),
    "serialize": ("serialize/fe_serialize.h", ["graph", "desc", "base"]),
    "engines": ("engines/fe_engines.h",
                ["graph", "desc", "ir", "codegen", "cache", "runtime", "base"]),
    "api": (None, ["engines", "serialize", "graph", "desc", "ir", "codegen", "cache", "runtime",
                   "base"]),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def allowed(module, target):
    """None when `module` may include `target`, else the reason it may not."""
    if "/" not in target:
        return None
    dep = target.split("/", 1)[0]
    if dep == module:
        return None
    if dep not in MODULES:
        return f"{dep}/ is not a library module"
    contract, uses = MODULES[module]
    if dep not in uses:
        return f"{module}/ may not use {dep}/ (allowed: {', '.join(uses) or 'nothing'})"
    if target != MODULES[dep][0] and not target.endswith(".def"):
        return f"{target} is private to {dep}/ (its contract is {MODULES[dep][0]})"
    return None


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    bad = 0
    for module in sorted(MODULES):
        folder = os.path.join(root, module)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    why = m and allowed(module, m.group(1))
                    if why:
                        print(f"{module}/{name}:{n}: forbidden include \"{m.group(1)}\": {why}")
                        bad += 1
    if bad:
        print(f"check_includes: {bad} forbidden include(s); the allowed edges are the table in "
              f"cmake/check_includes.py (README.md, Architecture)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
