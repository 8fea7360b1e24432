#!/usr/bin/env python3
"""attn_trace.py LOG — the phase trace of the attention forward (jit.sdpa_trace 1) summarised.

bench_attention with `--knobs jit.sdpa_trace=1` prints, besides its table, one line per
computing warpgroup and work tile from the blocks on multiprocessors 0 and 1:
    HDT sm block warpgroup item tiles block_start t0 t1 t2 t3
(clocks of that multiprocessor: t0 the work tile's start, t1 its first Q·Kᵀ landed, t2 its last
P·V landed, t3 O stored). Each run of HDT lines before a table line belongs to that table line
(one mask of one config). Per run this prints the medians, in clocks and in tiles (one tile =
the median loop time a K/V tile):
    start   t0 - block_start of a block's first work tile (barriers, setmaxnreg, roles)
    first   t1 - t0: Q and the first K/V tile arrived and the first Q·Kᵀ done
    loop    (t2 - t1) / (tiles - 1): a K/V tile in the steady loop
    end     t3 - t2: O normalised and stored
    gap     the next work tile's t0 (or the next block's start) - this one's t3 on the same
            multiprocessor, within a launch (it includes the device printf of the trace)
    o       (first + end + gap + start) / loop - 1: the work tile's cost beyond its tiles
"""
import statistics
import sys


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def summarise(label, recs):
    # recs: (sm, block, wg, item, tiles, bstart, t0, t1, t2, t3)
    firsts, loops, ends, gaps, starts = [], [], [], [], []
    by_sm = {}
    for r in recs:
        sm, blk, wg, item, tiles, bs, t0, t1, t2, t3 = r
        if tiles < 2:
            continue
        firsts.append(t1 - t0)
        loops.append((t2 - t1) / (tiles - 1))
        ends.append(t3 - t2)
        if item == 0:
            starts.append(t0 - bs)
        by_sm.setdefault((sm, wg), []).append(r)
    for seq in by_sm.values():
        seq.sort(key=lambda r: r[6])
        for a, b in zip(seq, seq[1:]):
            nxt = b[6] if b[1] == a[1] else b[5]  # next work tile of the block, else the next block's start
            gap = nxt - a[9]
            if 0 <= gap < 200000:  # within one launch
                gaps.append(gap)
    tile = med(loops)
    parts = {"start": med(starts), "first": med(firsts), "end": med(ends), "gap": med(gaps)}
    o = (parts["first"] + parts["end"] + parts["gap"] + parts["start"]) / tile - 1
    cells = "  ".join(f"{k} {v:8.0f} ({v / tile:4.2f})" for k, v in parts.items())
    print(f"{label[:60]:60s} n={len(loops):5d} loop {tile:7.0f}  {cells}  o={o:4.2f}")


def main():
    recs, label = [], None
    for line in open(sys.argv[1], errors="replace"):
        if line.startswith("HDT "):
            f = line.split()
            recs.append(tuple(int(x) for x in f[1:]))
            continue
        if recs and line.strip():
            summarise(line.strip(), recs)
            recs = []
    if recs:
        summarise("(trailing)", recs)


if __name__ == "__main__":
    main()
