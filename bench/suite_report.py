#!/usr/bin/env python3
"""suite_report.py RESULTS.md PLOT.png ATTENTION.md NORMS.md GRAPHS.md — writes the benchmark
suite's section of bench/RESULTS.md (between the "suite:begin" / "suite:end" markers, replaced in
place; appended when absent) from the markdown tables the compare scripts printed in one GPU run
(compare_attention.py, compare.py, compare_graphs.py), and a PNG bar chart of the attention tables:
our TFLOP/s beside PyTorch's FLASH, CUDNN and EFFICIENT backends for every shape, non-causal and
causal. bench/suite.sh runs it on the GPU machine.

The chart uses matplotlib when it is installed; otherwise it is drawn here (bars and a legend of
colour blocks, no text: the caption in RESULTS.md names the series and shapes), written with zlib.
"""
import datetime
import re
import struct
import sys
import zlib

BEGIN, END = "<!-- suite:begin -->", "<!-- suite:end -->"
SERIES = ["ours", "FLASH", "CUDNN", "EFFICIENT"]
COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189)]


def tables(text):
    """The markdown tables in text (header line first), as lists of row-cell lists."""
    out, cur = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r"-+", c) for c in cells):
                cur.append(cells)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def number(cell):
    m = re.match(r"[0-9.]+", cell)
    return float(m.group(0)) if m else 0.0


def attention_bars(text):
    """[(label, [ours, flash, cudnn, efficient])] from compare_attention.py's forward table(s)."""
    bars = []
    for t in tables(text):
        head = [h.lower() for h in t[0]]
        if "flash" not in head or "cudnn" not in head:
            continue
        ours = next(i for i, h in enumerate(head) if h.startswith("ours"))
        cols = [ours, head.index("flash"), head.index("cudnn"), head.index("efficient")]
        for row in t[1:]:
            bars.append((f"{row[0]} {'causal' if row[1] == 'yes' else ''}".strip(), [number(row[c]) for c in cols]))
        break  # the forward table; a backward table follows in the text itself
    return bars


def png_raw(width, height, pixels, path):
    """Writes an RGB image (pixels: rows of bytes) as PNG."""
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def plot_plain(bars, path):
    group, gap, bar, h, top = 4, 14, 10, 400, 40
    width = max(40 + len(bars) * (group * bar + gap), 40 + 30 * group + 20)
    pixels = [bytearray(b"\xff" * (3 * width)) for _ in range(h + 20)]
    peak = max(max(v) for _, v in bars) or 1.0
    for g, (_, vals) in enumerate(bars):
        for s, v in enumerate(vals):
            x0 = 40 + g * (group * bar + gap) + s * bar
            y0 = h - int((h - top) * v / peak)
            for y in range(y0, h):
                for x in range(x0, x0 + bar - 1):
                    pixels[y][3 * x:3 * x + 3] = bytes(COLORS[s])
    for s in range(group):  # legend: one block per series, in SERIES order
        for y in range(8, 20):
            for x in range(40 + 30 * s, 60 + 30 * s):
                pixels[y][3 * x:3 * x + 3] = bytes(COLORS[s])
    png_raw(width, h + 20, pixels, path)


def plot(bars, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plot_plain(bars, path)
        return "drawn without matplotlib: bars in the order ours, FLASH, CUDNN, EFFICIENT"
    fig, ax = plt.subplots(figsize=(14, 5))
    w = 0.2
    for s, name in enumerate(SERIES):
        ax.bar([g + (s - 1.5) * w for g in range(len(bars))], [v[s] for _, v in bars], w, label=name,
               color=[c / 255 for c in COLORS[s]])
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([b for b, _ in bars], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s (bf16)")
    ax.axhline(790, color="gray", linestyle=":", linewidth=1)
    ax.set_title("SDPA forward on the H200: hipdnn-jit vs PyTorch backends (dotted: ~790 TFLOP/s bf16 peak)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return "matplotlib"


def main():
    results, png, att_path, norm_path, graph_path = sys.argv[1:6]
    att, norms, graphs = (open(p).read() for p in (att_path, norm_path, graph_path))
    bars = attention_bars(att)
    how = plot(bars, png) if bars else "no attention table: no chart"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    section = f"""{BEGIN}
## Benchmark suite (bench/suite.sh, one GPU run, {when})

Generated by `bench/suite_report.py` from one call of `bench/suite.sh` on the GPU machine: our
numbers through the public API and PyTorch's in the same process run. Chart: `bench/{png.split('/')[-1]}`
({how}).

### Fused attention (SDPA), bf16, TFLOP/s (4·B·H·S²·D forward, 2.5x that backward, halved for causal; peak ~790)

{att.strip()}

### Fused norm graphs, bf16, GB/s (ceiling 4240 GB/s device copy)

{norms.strip()}

### Whole example graphs (fused vs unfused vs PyTorch)

{graphs.strip()}
{END}"""
    text = open(results).read()
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    open(results, "w").write(text)


if __name__ == "__main__":
    main()
