#!/usr/bin/env python3
"""ncu_sass_sum.py — one kernel's SASS page from Nsight Compute (`ncu --import R --page source
--print-source sass --csv > F.csv`) summed up, so two kernels can be set side by side: instructions
executed by opcode, warp-stall samples by reason, and the lines with the most stall samples.
Usage: ncu_sass_sum.py A.csv [B.csv ...] [--top N]"""
import csv
import sys
from collections import Counter


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    cols = rows[head]
    return cols, [r for r in rows[head + 1:] if len(r) == len(cols)]


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


def summary(path, top):
    cols, rows = load(path)
    ix = {c: i for i, c in enumerate(cols)}
    ops, stalls, lines = Counter(), Counter(), []
    reasons = [c for c in cols if c.startswith("stall_") and "Not Issued" not in c]
    for r in rows:
        n = num(r[ix["Instructions Executed"]])
        op = r[ix["Source"]].split()[0] if r[ix["Source"]].split() else "?"
        if op.startswith("@"):
            op = r[ix["Source"]].split()[1]
        ops[op.split(".")[0]] += n
        samples = num(r[ix["Warp Stall Sampling (All Samples)"]])
        for c in reasons:
            stalls[c[6:]] += num(r[ix[c]])
        lines.append((samples, r[ix["Address"]], r[ix["Source"]][:70], n))
    total = sum(ops.values())
    print(f"== {path}: {total / 1e6:.2f} M warp instructions executed, {sum(stalls.values()):.0f} stall samples")
    print("  opcodes (M): " + ", ".join(f"{o} {v / 1e6:.2f}" for o, v in ops.most_common(top)))
    print("  stalls: " + ", ".join(f"{o} {v:.0f}" for o, v in stalls.most_common(10)))
    for s, a, src, n in sorted(lines, reverse=True)[:top]:
        print(f"  {s:8.0f} samples  {n / 1e3:9.1f} K exec  {a}  {src}")


if __name__ == "__main__":
    top = 16
    args = sys.argv[1:]
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    for p in args:
        summary(p, top)
