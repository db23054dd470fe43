#!/usr/bin/env python3
"""Draws a Tessera trace (Chrome trace event JSON, ts::host{.trace = ...}) as an SVG timeline.

    scripts/trace_svg.py trace.json out.svg [--title TEXT] [--width PIXELS]

One row per worker (host threads, CUDA stream slots), one box per chunk task from its start to
its end, coloured by stage, with a time axis in milliseconds and a legend. Standard library only.
"""
import argparse
import html
import json
import math
import sys

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac"]


def nice_step(span, target=8):
    """A round tick step (1, 2, 5 x 10^k) giving about `target` ticks over `span`."""
    if span <= 0:
        return 1.0
    raw = span / target
    k = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * k:
            return m * k
    return 10 * k


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--title", default=None)
    ap.add_argument("--width", type=int, default=900)
    a = ap.parse_args()

    with open(a.trace) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    xs = [e for e in events if e.get("ph") == "X"]
    if not xs:
        sys.exit("no complete ('X') events in " + a.trace)
    pname = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    lanes = sorted({(e["pid"], e["tid"]) for e in xs})
    stages = sorted({e["args"]["stage"] for e in xs})
    stage_name = {}
    for e in xs:
        stage_name.setdefault(e["args"]["stage"], e["name"])

    t0 = min(e["ts"] for e in xs)
    t1 = max(e["ts"] + e["dur"] for e in xs)
    span_ms = max((t1 - t0) / 1000.0, 1e-6)

    left, right, top, row, gap = 130, 20, 50, 26, 6
    plot_w = a.width - left - right
    legend_h = 24
    height = top + len(lanes) * (row + gap) + 40 + legend_h
    x_of = lambda t_us: left + (t_us - t0) / 1000.0 / span_ms * plot_w

    out = []
    w = out.append
    w('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
      'font-size="12">' % (a.width, height))
    w('<rect width="100%" height="100%" fill="white"/>')
    title = a.title or "%d tasks, %d stage%s, %.1f ms" % (len(xs), len(stages),
                                                        "" if len(stages) == 1 else "s", span_ms)
    w('<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>' % (left, html.escape(title)))

    # Time axis and grid.
    step = nice_step(span_ms)
    axis_y = top + len(lanes) * (row + gap)
    tick = 0.0
    while tick <= span_ms + 1e-9:
        x = left + tick / span_ms * plot_w
        w('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, top - 4, x, axis_y))
        w('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%g</text>' % (x, axis_y + 16, tick))
        tick += step
    w('<text x="%d" y="%d" text-anchor="end" fill="#444">ms</text>' % (left - 8, axis_y + 16))

    # One row per lane, one box per task.
    for i, lane in enumerate(lanes):
        y = top + i * (row + gap)
        label = "%s %s" % (pname.get(lane[0], "pid %d" % lane[0]), tname.get(lane, "tid %d" % lane[1]))
        w('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 8, y + row * 0.7, html.escape(label)))
        w('<rect x="%d" y="%d" width="%d" height="%d" fill="#f4f4f4"/>' % (left, y, plot_w, row))
        for e in xs:
            if (e["pid"], e["tid"]) != lane:
                continue
            x0, x1 = x_of(e["ts"]), x_of(e["ts"] + e["dur"])
            colour = PALETTE[stages.index(e["args"]["stage"]) % len(PALETTE)]
            tip = "%s, stage %d, task %d %s: %.3f ms, %d elements" % (
                e["name"], e["args"]["stage"], e["args"]["task"], e["args"].get("box", ""),
                e["dur"] / 1000.0, e["args"].get("elements", 0))
            w('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" stroke="white" '
              'stroke-width="0.5"><title>%s</title></rect>'
              % (x0, y, max(x1 - x0, 0.6), row, colour, html.escape(tip)))

    # Legend: stages.
    ly = axis_y + 36
    x = left
    for s in stages:
        colour = PALETTE[stages.index(s) % len(PALETTE)]
        text = "stage %d: %s" % (s, stage_name[s])
        w('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (x, ly - 10, colour))
        w('<text x="%d" y="%d">%s</text>' % (x + 16, ly, html.escape(text)))
        x += 28 + 7 * len(text)
    w('</svg>')
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
