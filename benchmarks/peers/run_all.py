#!/usr/bin/env python3
"""Runs the seed-003 benchmark in Tessera and in the peers, in one go, and writes the
comparison: a markdown table, JSON and a plot (time per configuration, log scale).

    /usr/bin/python3 benchmarks/peers/run_all.py --preset main          # ~1 min on 2 cores
    /usr/bin/python3 benchmarks/peers/run_all.py --preset issue --update-docs docs/benchmarks.md

A configuration is N:CHUNK[:PEERS[:VARIANTS[:REPEAT[:THREADS]]]]
    PEERS     '+'-joined subset of dask-threads, dask-single, numpy, numpy-chunked, or
              'all' (default) or 'none' (Tessera only)
    VARIANTS  letters among a, b, c, d (default: --variants)
    REPEAT    timed runs per row (default: --repeat)
    THREADS   Tessera host threads, '+'-joined, 0 = all (default: --threads)
e.g. --config 20000:2000 --config 100000:10000:none:ab:1:0

Outputs under --out (default <build dir>/seed003): seed003.json (every row, machine, commands), seed003.md (the docs
section), seed003.svg and seed003.png (the plot). --update-docs FILE replaces the text between
the markers <!-- seed003:begin --> and <!-- seed003:end --> in FILE with seed003.md and copies
the plot next to it (img/seed003.svg), so re-running the published table is one command.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PEERS = ["dask-threads", "dask-single", "numpy", "numpy-chunked"]
VARIANT_TEXT = {
    "a": "(x + 1)[::2, ::2].mean()",
    "b": "(x + 1).mean()",
    "c": "(x + 1).mean() on a persisted x",
    "c:persist": "persist x (generate into memory)",
    "d": "(x + 1).mean() with x = full(10.0), no random numbers",
}
PRESETS = {
    # The README's main job: about a minute on a 2-core machine, peers included.
    "main": dict(configs=["10000:1000:dask-threads+dask-single+numpy:abc:3"], threads="0"),
    # The measurements: N = 20000 against every peer, then the 80 GB lazy array alone.
    "issue": dict(configs=["20000:2000:all:abcd:3", "100000:10000:none:ab:1:0"], threads="1,0"),
    # A smoke test of the whole pipeline (seconds).
    "quick": dict(configs=["2000:500:all:abcd:2"], threads="0"),
}
MARK_BEGIN = "<!-- seed003:begin -->"
MARK_END = "<!-- seed003:end -->"


def has_modules(python):
    r = subprocess.run([python, "-c", "import numpy, dask.array"], capture_output=True)
    return r.returncode == 0


def default_python():
    if os.path.exists("/usr/bin/python3") and has_modules("/usr/bin/python3"):
        return "/usr/bin/python3"
    return sys.executable


def find_binary(build_dir):
    cands = [build_dir] if build_dir else [os.path.join(REPO, d) for d in
                                            ("build-bench", "build", "build-release")]
    for d in cands:
        p = os.path.join(d, "benchmarks", "bench_seed003")
        if os.access(p, os.X_OK):
            return p
    return None


def parse_config(spec, a):
    parts = spec.split(":")
    if len(parts) < 2:
        raise SystemExit(f"--config {spec!r}: expected N:CHUNK[:PEERS[:VARIANTS[:REPEAT[:THREADS]]]]")
    n, chunk = int(parts[0]), int(parts[1])
    peers = parts[2] if len(parts) > 2 and parts[2] else "all"
    peers = PEERS if peers == "all" else [] if peers == "none" else peers.split("+")
    for p in peers:
        if p not in PEERS:
            raise SystemExit(f"--config {spec!r}: unknown peer {p!r} ({', '.join(PEERS)})")
    variants = parts[3] if len(parts) > 3 and parts[3] else a.variants.replace(",", "")
    repeat = int(parts[4]) if len(parts) > 4 and parts[4] else a.repeat
    threads = parts[5].replace("+", ",") if len(parts) > 5 and parts[5] else None
    return dict(n=n, chunk=min(chunk, n), peers=peers, variants=variants, repeat=repeat,
                threads=threads)


def run(cmd, log):
    rel = [os.path.relpath(c, REPO) if c.startswith(REPO + os.sep) else c for c in cmd]
    log.append(" ".join(shlex.quote(c) for c in rel))
    print("$ " + log[-1], file=sys.stderr, flush=True)
    return subprocess.run(cmd, stdout=subprocess.PIPE, text=True)


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+local changes" if dirty else "")
    except OSError:
        return "unknown"


# ----------------------------------------------------------------------------- formatting


def fmt_s(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s"


def label(r):
    if r["tool"] == "tessera":
        return f"Tessera {r['backend']}"
    if r["tool"] == "dask":
        return f"Dask {r['backend']}"
    return "NumPy" + (" chunked loop" if r["backend"] == "numpy-chunked" else " whole array")


def dask_ref(rows, r):
    for q in rows:
        if (q["tool"] == "dask" and q["backend"] == "threads" and q["variant"] == r["variant"]
                and q["n"] == r["n"] and q["cfg_chunk"] == r["cfg_chunk"] and "skipped" not in q):
            return q["seconds_best"]
    return None


def table(rows):
    out = ["| variant | tool / backend | workers | N | chunk | best | median | CPU | elements/s "
           "| vs Dask threads | result | peak RSS MiB |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        head = (f"| {r['variant']} | {label(r)} | {r.get('workers') or '-'} | {r['n']} "
                f"| {r['chunk'] if r['backend'] != 'numpy' else 'whole'} |")
        if "skipped" in r:
            out.append(head + f" skipped: {r['skipped']} | | | | | | |")
            continue
        ref = dask_ref(rows, r)
        sp = f"{ref / r['seconds_best']:.3g}x" if ref else "-"
        res = "-" if r.get("result") is None else f"{r['result']:.8f}"
        rss = f"{r['peak_rss_mib']:.0f}" if r.get("peak_rss_mib") is not None else "-"
        out.append(head + f" {fmt_s(r['seconds_best'])} | {fmt_s(r['seconds_median'])} | "
                   f"{fmt_s(r.get('cpu_seconds'))} | "
                   f"{r['elements_per_s']:.3g} | {sp} | {res} | {rss} |")
    return "\n".join(out)


def goals(rows):
    lines = []
    targets = {"a": 50, "b": 15}
    for cfg in sorted({(r["n"], r["cfg_chunk"]) for r in rows}):
        for v, goal in targets.items():
            ts = [r for r in rows if r["tool"] == "tessera" and r["variant"] == v
                  and (r["n"], r["cfg_chunk"]) == cfg and "skipped" not in r]
            if not ts:
                continue
            best = min(ts, key=lambda r: r["seconds_best"])
            ref = dask_ref(rows, best)
            if ref:
                sp = ref / best["seconds_best"]
                w = best["workers"]
                cpu = ""
                dref = [q for q in rows if q["tool"] == "dask" and q["backend"] == "threads"
                        and q["variant"] == v and (q["n"], q["cfg_chunk"]) == cfg
                        and "skipped" not in q and q.get("cpu_seconds")]
                tcpu = min((r.get("cpu_seconds") or float("inf")) for r in ts)
                if dref and tcpu < float("inf"):
                    cpu = (f"; CPU seconds {dref[0]['cpu_seconds']:.3g} vs {tcpu:.3g}: "
                           f"{dref[0]['cpu_seconds'] / tcpu:.1f}x")
                lines.append(f"- N = {cfg[0]}, chunk {cfg[1]}, ({v}): Tessera "
                             f"{fmt_s(best['seconds_best'])} ({w} worker{'s' * (w != 1)}) vs "
                             f"Dask threads {fmt_s(ref)}: {sp:.1f}x wall-clock (issue goal"
                             f"{'' if cfg == (20000, 2000) else ' for N = 20000'} >= "
                             f"{goal}x: {'met' if sp >= goal else 'not met'}){cpu}")
        big = [r for r in rows if r["tool"] == "tessera" and (r["n"], r["cfg_chunk"]) == cfg
               and "skipped" not in r and r.get("peak_rss_mib") is not None]
        if big and cfg[0] >= 100000:
            rss = max(r["peak_rss_mib"] for r in big)
            lines.append(f"- N = {cfg[0]}, chunk {cfg[1]} ({8 * cfg[0] ** 2 / 1e9:.0f} GB lazy "
                         f"array): Tessera peak RSS {rss:.0f} MiB (issue goal < 1 GB: "
                         f"{'met' if rss < 1024 else 'not met'})")
    return "\n".join(lines)


def plot(rows, path_base):
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: a small SVG
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"plot skipped: matplotlib not importable ({e})", file=sys.stderr)
        return []
    ok = [r for r in rows if "skipped" not in r]
    if not ok:
        return []
    colors = {"tessera": "#1b7837", "dask": "#2166ac", "numpy": "#b2182b"}
    ok.sort(key=lambda r: (r["n"], r["cfg_chunk"], r["variant"], -r["seconds_best"]))
    labels = [f"N={r['n']} ({r['variant']}) {label(r)}"
              + (f" x{r['workers']}" if r["tool"] != "numpy" else "") for r in ok]
    fig, ax = plt.subplots(figsize=(9, 0.26 * len(ok) + 1.4))
    y = list(range(len(ok)))[::-1]
    ax.barh(y, [r["seconds_best"] for r in ok], color=[colors[r["tool"]] for r in ok])
    for yi, r in zip(y, ok):
        ax.text(r["seconds_best"] * 1.08, yi, fmt_s(r["seconds_best"]), va="center", fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xscale("log")
    ax.set_xlim(min(r["seconds_best"] for r in ok) / 2, max(r["seconds_best"] for r in ok) * 6)
    ax.set_xlabel("seconds, best of repeat (log scale; shorter is faster)")
    ax.set_title("Seed 003: x = normal(10, 1, (N, N)); (a) (x+1)[::2,::2].mean(), (b) (x+1).mean(),"
                 "\n(c) (b) on persisted x, (d) (b) on full(10.0)", fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    outs = []
    for ext in ("svg", "png"):
        p = f"{path_base}.{ext}"
        fig.savefig(p, dpi=110, metadata={"Date": None} if ext == "svg" else None)
        outs.append(p)
    plt.close(fig)
    return outs


def section(rows, machine, commands, started, img):
    m = machine
    lines = [MARK_BEGIN,
             f"_Generated by `benchmarks/peers/run_all.py` on {started} (UTC); do not edit by hand._",
             "",
             f"Machine: {m.get('nproc')} CPUs ({m.get('cpu_model')}), "
             f"{(m.get('ram_bytes') or 0) / 2 ** 30:.1f} GiB RAM. Tessera {m.get('tessera_rev')} "
             f"({m.get('compiler', '?')}); {m.get('peer_versions', 'peers not run')}.",
             f"Load average (1 min) at start / end of the run: {m.get('loadavg_start', '?')} / "
             f"{m.get('loadavg_end', '?')} on {m.get('nproc')} CPUs; above the CPU count other "
             "processes were competing and wall-clock times are inflated: compare the CPU column.",
             "",
             "Commands:", "", "```"] + commands + ["```", "",
             "Variants: " + "; ".join(f"({k}) `{v}`" if len(k) == 1 else f"{k}: {v}"
                                      for k, v in VARIANT_TEXT.items()) + ".",
             "elements/s = elements entering the mean (ceil(N/2)^2 for (a), N^2 otherwise; N^2 "
             "generated for c:persist) / best time. Peak RSS is the process's ru_maxrss "
             "(Tessera: one process per configuration, rows in order, so it is a running peak; "
             "peers: one process per row). CPU = user + system CPU seconds of the fastest run, all "
             "threads. `vs Dask threads` = Dask threaded best / row best.",
             "", table(rows), ""]
    g = goals(rows)
    if g:
        lines += ["Against the issue's goals:", "", g, ""]
    if img:
        lines += [f"![seed 003 times]({img})", ""]
    lines.append(MARK_END)
    return "\n".join(lines)


def update_docs(path, text):
    doc = open(path).read() if os.path.exists(path) else ""
    if MARK_BEGIN in doc and MARK_END in doc:
        i, j = doc.index(MARK_BEGIN), doc.index(MARK_END) + len(MARK_END)
        doc = doc[:i] + text + doc[j:]
    else:
        doc = doc.rstrip() + "\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(doc)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), help="a named set of configurations")
    p.add_argument("--config", action="append", default=[],
                   help="N:CHUNK[:PEERS[:VARIANTS[:REPEAT[:THREADS]]]]")
    p.add_argument("--variants", default="a,b,c")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", help="Tessera host threads, comma list, 0 = all (default 0)")
    p.add_argument("--dask-threads", type=int, default=0, help="Dask threaded workers, 0 = all")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--python", default=None, help="Python with numpy/dask/matplotlib "
                   "(default: /usr/bin/python3 when it has them)")
    p.add_argument("--binary", help="path to bench_seed003")
    p.add_argument("--build-dir", help="CMake build dir holding benchmarks/bench_seed003")
    p.add_argument("--out", help="output folder (default: <build dir>/seed003)")
    p.add_argument("--peer-timeout", type=float, default=None, help="seconds per peer row")
    p.add_argument("--update-docs", metavar="FILE", help="replace the seed003 section in FILE")
    p.add_argument("--from-json", metavar="FILE",
                   help="re-render a previous run's seed003.json (table, plot, docs) without running")
    a = p.parse_args()
    python = a.python or default_python()
    if os.path.realpath(python) != os.path.realpath(sys.executable) and not os.environ.get(
            "SEED003_REEXEC"):
        try:
            import matplotlib  # noqa: F401  (this interpreter can plot: stay)
        except ImportError:
            os.environ["SEED003_REEXEC"] = "1"  # plot with the peers' Python
            os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    if a.from_json:
        a.out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.from_json)), "rendered")
        return render(a, **json.load(open(a.from_json)))

    configs = list(a.config)
    threads = a.threads
    if a.preset:
        configs = PRESETS[a.preset]["configs"] + configs
        threads = threads or PRESETS[a.preset]["threads"]
    threads = threads or "0"
    if not configs:
        configs = ["20000:2000"]
    configs = [parse_config(c, a) for c in configs]
    binary = a.binary or find_binary(a.build_dir)
    if not binary:
        raise SystemExit("bench_seed003 not found; build it first:\n"
                         "  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && "
                         "cmake --build build --target bench_seed003\n"
                         "then pass --build-dir build (or --binary PATH)")
    a.out = a.out or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(binary))),
                                  "seed003")
    os.makedirs(a.out, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    commands = [" ".join(shlex.quote(x) for x in [python] + sys.argv)]
    log, rows, machine, versions = [], [], {}, {}
    t_all = time.perf_counter()
    load0 = loadavg()

    for cfg in configs:
        n, c = cfg["n"], cfg["chunk"]
        tj = os.path.join(a.out, f"tessera_{n}_{c}.json")
        r = run([binary, "--n", str(n), "--chunk", str(c), "--variant", ",".join(cfg["variants"]),
                 "--threads", cfg["threads"] or threads, "--repeat", str(cfg["repeat"]), "--seed", str(a.seed),
                 "--json", tj], log)
        if r.returncode != 0:
            raise SystemExit(f"bench_seed003 failed with exit code {r.returncode}")
        d = json.load(open(tj))
        machine.update(d["machine"])
        for row in d["rows"]:
            row["tool"] = "tessera"
            row["cfg_chunk"] = c
            if "skipped" not in row:
                row.setdefault("elements_per_s", row["elements"] / row["seconds_best"])
            rows.append(row)
        if cfg["peers"]:
            pj = os.path.join(a.out, f"peers_{n}_{c}.json")
            cmd = [python, os.path.join(HERE, "seed003_dask.py"), "--n", str(n), "--chunk", str(c),
                   "--variant", ",".join(cfg["variants"]), "--peers", ",".join(cfg["peers"]),
                   "--threads", str(a.dask_threads), "--repeat", str(cfg["repeat"]),
                   "--seed", str(a.seed), "--json", pj]
            if a.peer_timeout:
                cmd += ["--timeout", str(a.peer_timeout)]
            r = run(cmd, log)
            if r.returncode != 0:
                raise SystemExit(f"seed003_dask.py failed with exit code {r.returncode}")
            d = json.load(open(pj))
            for row in d["rows"]:
                row["cfg_chunk"] = c
                if row.get("version"):
                    versions[row["tool"]] = row["version"]
                rows.append(row)

    vorder = {v: i for i, v in enumerate(["a", "b", "d", "c:persist", "c"])}
    torder = {"tessera": 0, "dask": 1, "numpy": 2}
    rows.sort(key=lambda r: (r["n"], r["cfg_chunk"], vorder.get(r["variant"], 9),
                             torder.get(r["tool"], 9), r["backend"], -(r.get("workers") or 0)))
    machine["tessera_rev"] = git_rev()
    machine["loadavg_start"], machine["loadavg_end"] = load0, loadavg()
    if versions:
        machine["peer_versions"] = ", ".join(f"{('NumPy' if k == 'numpy' else 'Dask')} {v}"
                                             for k, v in sorted(versions.items(), reverse=True))
    machine["compiler"] = "g++ " + machine["compiler"] if machine.get("compiler", "")[:1].isdigit() \
        else machine.get("compiler", "?")
    render(a, started_utc=started, machine=machine, commands=log, invocation=commands, rows=rows,
           seconds=time.perf_counter() - t_all)


def loadavg():
    try:
        return float(open("/proc/loadavg").read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def render(a, started_utc, machine, commands, invocation, rows, seconds=None, **_):
    """Writes seed003.md/.json and the plot under a.out (and the docs section); prints."""
    os.makedirs(a.out, exist_ok=True)
    started, log = started_utc, commands
    imgs = plot(rows, os.path.join(a.out, "seed003"))
    img_rel = None
    if a.update_docs and imgs:
        dst_dir = os.path.join(os.path.dirname(os.path.abspath(a.update_docs)), "img")
        os.makedirs(dst_dir, exist_ok=True)
        shutil.copy(imgs[0], os.path.join(dst_dir, "seed003.svg"))
        img_rel = "img/seed003.svg"
    elif imgs:
        img_rel = os.path.basename(imgs[0])
    text = section(rows, machine, log, started, img_rel)
    with open(os.path.join(a.out, "seed003.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(a.out, "seed003.json"), "w") as f:
        json.dump(dict(benchmark="seed003", started_utc=started, machine=machine,
                       commands=log, invocation=invocation, rows=rows), f, indent=1)
    if a.update_docs:
        update_docs(a.update_docs, text)

    print(table(rows))
    g = goals(rows)
    if g:
        print("\n" + g)
    took = f" in {seconds:.0f} s" if seconds is not None else ""
    print(f"\n{len(rows)} rows{took}; wrote "
          f"{os.path.join(a.out, 'seed003.md')}, seed003.json" + (", plot " + ", ".join(
              os.path.basename(i) for i in imgs) if imgs else "")
          + (f"; updated {a.update_docs}" if a.update_docs else ""))


if __name__ == "__main__":
    main()
