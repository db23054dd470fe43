#!/usr/bin/env python3
"""Runs the seed-003 benchmark in Tessera and in the peers, in one go, and writes the
comparison: a markdown table, JSON and a plot (time per configuration, log scale).

    /usr/bin/python3 benchmarks/peers/run_all.py --preset main          # ~1 min on 2 cores
    /usr/bin/python3 benchmarks/peers/run_all.py --preset issue --update-docs docs/benchmarks.md
    /usr/bin/python3 benchmarks/peers/run_all.py --build-dir build-rel --user-build-dir build-user
                                                  # both builds' rows in one table

A configuration is N:CHUNK[:PEERS[:VARIANTS[:REPEAT[:THREADS]]]]
    PEERS     '+'-joined subset of dask-threads, dask-single, dask-current,
              dask-current-randomstate, jax, numpy, numpy-chunked, or
              'all' (default) or 'none' (Tessera only); PEER/LETTERS runs that peer on those
              of the configuration's variants only (e.g. jax/ab)
    VARIANTS  letters among a, b, c, d (default: --variants)
    REPEAT    timed runs per row (default: --repeat)
    THREADS   Tessera host threads, '+'-joined, 0 = all (default: --threads)
e.g. --config 20000:2000 --config 100000:10000:none:ab:1:0

Peers: Debian's Dask 2022.12 and NumPy (dask-threads, dask-single, numpy, numpy-chunked) run with
--python (/usr/bin/python3); current Dask from PyPI (dask-current: default_rng,
dask-current-randomstate: RandomState, both threaded) and JAX on CPU (jax: one jax.jit per
variant, float64) run with --venv-python (<repo>/.venv/bin/python, which
scripts/install-deps.sh --peers makes). `vs fastest peer` = the best time of the fastest peer row
of the same variant and configuration / this row's best time.

Tessera: one or more builds of bench_seed003, each a row group labelled by how it was built
(read from its CMakeCache.txt): --build-dir DIR (or --binary PATH), --user-build-dir DIR (a second
build, e.g. a plain Release without -march=native), or --tessera LABEL=DIR, repeatable.

Outputs under --out (default <build dir>/seed003): seed003.json (every row, machine, commands), seed003.md (the docs
section), seed003.svg and seed003.png (the plot). --update-docs FILE replaces the text between
the markers <!-- seed003:begin --> and <!-- seed003:end --> in FILE with seed003.md and copies
the plot next to it (img/seed003.svg), so re-running the published table is one command.
"""
import argparse
import json
import re
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PEERS = ["dask-threads", "dask-single", "dask-current", "dask-current-randomstate", "jax", "numpy",
         "numpy-chunked"]
VARIANT_TEXT = {
    "a": "(x + 1)[::2, ::2].mean()",
    "b": "(x + 1).mean()",
    "c": "(x + 1).mean() on a persisted x",
    "c:persist": "persist x (generate into memory)",
    "d": "(x + 1).mean() with x = full(10.0), no random numbers",
}
PRESETS = {
    # The README's main job: about a minute on a 2-core machine, peers included: Debian's Dask
    # (threads) and current Dask (default_rng) on a, b, c; JAX and NumPy on a, b (their whole-
    # array persist + (c) rows and dask-single are in the issue preset only; JAX's (c) rows with
    # their warm-up calls alone took 20 s of 90 s at N = 10000).
    "main": dict(configs=["10000:1000:dask-threads+dask-current+jax/ab+numpy/ab:abc:3"],
                 threads="0"),
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


def find_binary(build_dir, wait=0.0):
    """bench_seed003 under build_dir (or the usual build folders); waits up to `wait` seconds
    for a binary that is missing (being relinked by a concurrent build)."""
    cands = [build_dir] if build_dir else [os.path.join(REPO, d) for d in
                                            ("build-bench", "build", "build-release")]
    t_end = time.monotonic() + wait
    while True:
        for d in cands:
            p = os.path.join(d, "benchmarks", "bench_seed003")
            if os.access(p, os.X_OK):
                return p
        if time.monotonic() >= t_end:
            return None
        time.sleep(2)


def cmake_cache(build_dir):
    out = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if ":" in line and "=" in line and not line.startswith(("//", "#")):
                    k, v = line.rstrip("\n").split("=", 1)
                    out[k.split(":")[0]] = v
    except OSError:
        pass
    return out


def build_label(build_dir):
    """'-march=native build' or 'plain Release build, no -march' from the CMake cache."""
    c = cmake_cache(build_dir)
    if not c:
        return os.path.basename(os.path.normpath(build_dir)) + " build"
    bt = c.get("CMAKE_BUILD_TYPE") or "default"
    flags = (c.get("CMAKE_CXX_FLAGS", "") + " " + c.get(f"CMAKE_CXX_FLAGS_{bt.upper()}", ""))
    native = c.get("TESSERA_NATIVE", "").upper() in ("ON", "1", "TRUE", "YES")
    if native or "-march=native" in flags:
        return "-march=native build" if bt == "Release" else f"{bt} -march=native build"
    if "-march" in flags:
        return f"{bt} build, {[f for f in flags.split() if f.startswith('-march')][0]}"
    return f"plain {bt} build, no -march"


def build_info(build_dir):
    c = cmake_cache(build_dir)
    bt = c.get("CMAKE_BUILD_TYPE", "")
    flags = " ".join(x for x in (c.get("CMAKE_CXX_FLAGS", ""),
                                 c.get(f"CMAKE_CXX_FLAGS_{bt.upper()}", "") if bt else "") if x)
    return dict(build_type=bt or None, cxx_flags=flags or None,
                tessera_native=c.get("TESSERA_NATIVE"))


def parse_config(spec, a):
    parts = spec.split(":")
    if len(parts) < 2:
        raise SystemExit(f"--config {spec!r}: expected N:CHUNK[:PEERS[:VARIANTS[:REPEAT[:THREADS]]]]")
    n, chunk = int(parts[0]), int(parts[1])
    peers = parts[2] if len(parts) > 2 and parts[2] else "all"
    peers = PEERS if peers == "all" else [] if peers == "none" else peers.split("+")
    variants = parts[3] if len(parts) > 3 and parts[3] else a.variants.replace(",", "")
    only = {}  # peer -> its variants, from PEER/LETTERS (default: the configuration's)
    for i, p in enumerate(peers):
        if "/" in p:
            p, vs = p.split("/", 1)
            peers[i] = p
            only[p] = "".join(v for v in variants if v in vs)
        if p not in PEERS:
            raise SystemExit(f"--config {spec!r}: unknown peer {p!r} ({', '.join(PEERS)})")
    repeat = int(parts[4]) if len(parts) > 4 and parts[4] else a.repeat
    threads = parts[5].replace("+", ",") if len(parts) > 5 and parts[5] else None
    groups = {}  # variants -> peers: one seed003_dask.py run each
    for p in peers:
        if only.get(p, variants):
            groups.setdefault(only.get(p, variants), []).append(p)
    return dict(n=n, chunk=min(chunk, n), peers=peers, variants=variants, repeat=repeat,
                threads=threads, peer_groups=list(groups.items()))


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


def peer_of(r):
    """The peer name of a row (rows of older JSON files have only tool and backend)."""
    if r.get("peer"):
        return r["peer"]
    if r["tool"] == "dask":
        return {"threads": "dask-threads", "single-threaded": "dask-single",
                "cupy+threads": "dask-cupy"}.get(r["backend"], "dask-" + r["backend"])
    if r["tool"] == "numpy":
        return r["backend"]
    return r["tool"]


def short_version(v):
    return re.sub(r"\+[^,\s]*", "", v or "")  # 2022.12.1+dfsg -> 2022.12.1


def label(r):
    if r["tool"] == "tessera":
        return f"Tessera {r['backend']}" + (f" ({r['build']})" if r.get("build") else "")
    v = short_version(r.get("version"))
    v = f" {v}" if v else ""
    p = peer_of(r)
    if r["tool"] == "dask":
        if r["backend"] == "cupy+threads":
            return f"Dask{v} cupy+threads"
        return f"Dask{v} {r['backend']} ({r.get('rng') or 'RandomState'})"
    if r["tool"] == "jax":
        return f"JAX{v} CPU jit"
    if r["tool"] == "cupy":
        return f"CuPy{v} whole array"
    return f"NumPy{v}" + (" chunked loop" if p == "numpy-chunked" else " whole array")


def whole(r):  # rows without chunks: the whole array at once
    return peer_of(r) in ("numpy", "jax", "cupy")


def same_cell(q, r):
    return (q["variant"] == r["variant"] and q["n"] == r["n"]
            and q["cfg_chunk"] == r["cfg_chunk"] and "skipped" not in q)


def fastest_peer(rows, r):
    """The fastest peer row (any peer, not Tessera) of r's variant and configuration. JAX's (d)
    is left out: XLA folds the mean of a filled array to scalar arithmetic (see notes())."""
    ps = [q for q in rows if q["tool"] != "tessera" and same_cell(q, r)
          and not (q["tool"] == "jax" and q["variant"] == "d")]
    return min(ps, key=lambda q: q["seconds_best"]) if ps else None


def dask_ref(rows, r):  # Debian's Dask, threaded: the reference of earlier tables
    for q in rows:
        if q["tool"] == "dask" and peer_of(q) == "dask-threads" and same_cell(q, r):
            return q
    return None


def table(rows):
    out = ["| variant | tool / backend | workers | N | chunk | best | median | CPU | elements/s "
           "| vs fastest peer | result | peak RSS MiB |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        head = (f"| {r['variant']} | {label(r)} | {r.get('workers') or '-'} | {r['n']} "
                f"| {'whole' if whole(r) else r['chunk']} |")
        if "skipped" in r:
            out.append(head + f" skipped: {r['skipped']} | | | | | | |")
            continue
        ref = fastest_peer(rows, r)
        sp = f"{ref['seconds_best'] / r['seconds_best']:.3g}x" if ref else "-"
        res = "-" if r.get("result") is None else f"{r['result']:.8f}"
        rss = f"{r['peak_rss_mib']:.0f}" if r.get("peak_rss_mib") is not None else "-"
        out.append(head + f" {fmt_s(r['seconds_best'])} | {fmt_s(r['seconds_median'])} | "
                   f"{fmt_s(r.get('cpu_seconds'))} | "
                   f"{r['elements_per_s']:.3g} | {sp} | {res} | {rss} |")
    return "\n".join(out)


GOALS = {"a": 30, "b": 12}  # issue 20: Tessera vs the fastest peer at N = 20000, chunk 2000


def builds_of(rows):
    out = []
    for r in rows:
        if r["tool"] == "tessera" and r.get("build") not in out:
            out.append(r.get("build"))
    return out


def goals(rows):
    lines = []
    builds = builds_of(rows)
    for cfg in sorted({(r["n"], r["cfg_chunk"]) for r in rows}):
        for v, goal in GOALS.items():
            for b in builds:
                ts = [r for r in rows if r["tool"] == "tessera" and r.get("build") == b
                      and r["variant"] == v and (r["n"], r["cfg_chunk"]) == cfg
                      and "skipped" not in r]
                if not ts:
                    continue
                best = min(ts, key=lambda r: r["seconds_best"])
                ref = fastest_peer(rows, best)
                if not ref:
                    continue
                sp = ref["seconds_best"] / best["seconds_best"]
                w = best["workers"]
                tcpu = min((r.get("cpu_seconds") or float("inf")) for r in ts)
                cpu = ""
                if ref.get("cpu_seconds") and tcpu < float("inf"):
                    cpu = (f"; CPU seconds {ref['cpu_seconds']:.3g} vs {tcpu:.3g}: "
                           f"{ref['cpu_seconds'] / tcpu:.1f}x")
                old = dask_ref(rows, best)
                old = (f"; vs {label(old)} {fmt_s(old['seconds_best'])}: "
                       f"{old['seconds_best'] / best['seconds_best']:.1f}x"
                       if old and old is not ref else "")
                who = "Tessera " + best["backend"] + (f" ({b})" if b else "")
                lines.append(f"- N = {cfg[0]}, chunk {cfg[1]}, ({v}): {who} "
                             f"{fmt_s(best['seconds_best'])} ({w} worker{'s' * (w != 1)}) vs the "
                             f"fastest peer, {label(ref)}, {fmt_s(ref['seconds_best'])}: "
                             f"{sp:.1f}x wall-clock (issue goal"
                             f"{'' if cfg == (20000, 2000) else ' for N = 20000, chunk 2000'} "
                             f">= {goal}x vs the fastest peer: "
                             f"{'met' if sp >= goal else 'not met'}){cpu}{old}")
        for b in builds:
            big = [r for r in rows if r["tool"] == "tessera" and r.get("build") == b
                   and (r["n"], r["cfg_chunk"]) == cfg and "skipped" not in r
                   and r.get("peak_rss_mib") is not None]
            if big and cfg[0] >= 100000:
                rss = max(r["peak_rss_mib"] for r in big)
                who = "Tessera" + (f" ({b})" if b else "")
                lines.append(f"- N = {cfg[0]}, chunk {cfg[1]} ({8 * cfg[0] ** 2 / 1e9:.0f} GB "
                             f"lazy array): {who} peak RSS {rss:.0f} MiB (issue goal < 1 GB: "
                             f"{'met' if rss < 1024 else 'not met'})")
    return "\n".join(lines)


def notes(rows):
    """JAX's compile times (kept out of its rows' times) and what XLA made of (d)."""
    lines = []
    for cfg in sorted({(r["n"], r["cfg_chunk"]) for r in rows}):
        js = [r for r in rows if r["tool"] == "jax" and (r["n"], r["cfg_chunk"]) == cfg
              and r.get("compile_seconds") is not None]
        if js:
            lines.append(f"- JAX, N = {cfg[0]}: the times exclude compilation; jax.jit lower + "
                         "compile (then the first, untimed call) took " + ", ".join(
                             f"({r['variant']}) {fmt_s(r['compile_seconds'])} "
                             f"(+{fmt_s(r.get('first_call_seconds'))})" for r in js) + ".")
    if any(r["tool"] == "jax" and r["variant"] == "d" and "skipped" not in r for r in rows):
        lines.append("- JAX (d): XLA simplifies the mean of a broadcast scalar to arithmetic on "
                     "the scalar (`v + 1`), so no array is built and its elements/s is not a "
                     "throughput; it is left out of `vs fastest peer`.")
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
    colors = {"tessera": "#1b7837", "dask": "#2166ac", "numpy": "#b2182b", "jax": "#e08214",
              "cupy": "#762a83"}
    light = {"tessera": "#7fbf7b", "dask": "#92c5de"}  # a second build, current Dask
    builds = builds_of(rows)

    def color(r):
        second = (r["tool"] == "tessera" and r.get("build") in builds[1:]) or (
            r["tool"] == "dask" and peer_of(r).startswith("dask-current"))
        return (light if second else colors).get(r["tool"], "#777777")
    ok.sort(key=lambda r: (r["n"], r["cfg_chunk"], r["variant"], -r["seconds_best"]))
    labels = [f"N={r['n']} ({r['variant']}) {label(r)}"
              + (f" x{r['workers']}" if r["tool"] != "numpy" and r.get("workers") else "")
              for r in ok]
    fig, ax = plt.subplots(figsize=(9, 0.26 * len(ok) + 1.4))
    y = list(range(len(ok)))[::-1]
    ax.barh(y, [r["seconds_best"] for r in ok], color=[color(r) for r in ok])
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
             ] + ([f"Tessera builds: {m['tessera_builds']}."] if m.get("tessera_builds") else []) + [
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
             "threads. `vs fastest peer` = best time of the fastest peer row (any peer, not "
             "Tessera) of the same variant and configuration / row best: above 1x the row beat "
             "every peer. JAX rows are one jax.jit of the whole variant (compiled before the "
             "timed runs; no chunks), Dask rows use the random generator in parentheses.",
             "", table(rows), ""]
    nt = notes(rows)
    if nt:
        lines += [nt, ""]
    g = goals(rows)
    if g:
        lines += ["Against the issue's goals (issue 20: vs the fastest peer in the same run):",
                  "", g, ""]
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
    p.add_argument("--python", default=None, help="Python with numpy/dask/matplotlib for the "
                   "Debian peers (default: /usr/bin/python3 when it has them)")
    p.add_argument("--venv-python", default=os.path.join(REPO, ".venv", "bin", "python"),
                   help="Python of the dask-current, dask-current-randomstate and jax peers "
                   "(default: <repo>/.venv/bin/python, from scripts/install-deps.sh --peers)")
    p.add_argument("--binary", help="path to bench_seed003")
    p.add_argument("--build-dir", help="CMake build dir holding benchmarks/bench_seed003")
    p.add_argument("--user-build-dir", metavar="DIR",
                   help="a second build of bench_seed003 (e.g. plain Release, no -march=native) "
                   "whose rows join the table, labelled by how it was built")
    p.add_argument("--tessera", action="append", default=[], metavar="LABEL=DIR",
                   help="a Tessera build to run, its rows labelled 'Tessera host (LABEL)'; "
                   "repeatable; DIR is a build dir or the bench_seed003 path")
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
    builds = tessera_builds(a)
    machine = {}
    if len(builds) > 1 or a.user_build_dir or a.tessera:
        machine["tessera_builds"] = "; ".join(
            f"{b['label']}: {os.path.relpath(b['dir'], REPO) if b['dir'].startswith(REPO) else b['dir']}"
            + (f" ({b['build_type']}" + (f", flags {b['cxx_flags']!r}" if b['cxx_flags']
                                         else "")
               + (f", TESSERA_NATIVE={b['tessera_native']}" if b['tessera_native'] else "") + ")"
               if b["build_type"] else "") for b in builds)
    a.out = a.out or os.path.join(builds[0]["dir"], "seed003")
    os.makedirs(a.out, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    commands = [" ".join(shlex.quote(x) for x in [python] + sys.argv)]
    log, rows, versions = [], [], {}
    t_all = time.perf_counter()
    load0 = loadavg()

    compilers = []
    for cfg in configs:
        n, c = cfg["n"], cfg["chunk"]
        for bi, b in enumerate(builds):
            tag = "" if bi == 0 else f"{bi + 1}_"
            tj = os.path.join(a.out, f"tessera_{tag}{n}_{c}.json")
            binary = b["binary"] if os.access(b["binary"], os.X_OK) else \
                find_binary(os.path.dirname(os.path.dirname(b["binary"])), wait=120)
            if not binary:
                raise SystemExit(f"{b['binary']} disappeared (a rebuild?) and did not come back")
            r = run([binary, "--n", str(n), "--chunk", str(c),
                     "--variant", ",".join(cfg["variants"]),
                     "--threads", cfg["threads"] or threads, "--repeat", str(cfg["repeat"]),
                     "--seed", str(a.seed), "--json", tj], log)
            if r.returncode != 0:
                raise SystemExit(f"{binary} failed with exit code {r.returncode}")
            d = json.load(open(tj))
            machine.update(d["machine"])
            if d["machine"].get("compiler") and d["machine"]["compiler"] not in compilers:
                compilers.append(d["machine"]["compiler"])
            for row in d["rows"]:
                row["tool"] = "tessera"
                row["cfg_chunk"] = c
                if b["label"]:
                    row["build"] = b["label"]
                row["build_dir"] = b["dir"]
                if "skipped" not in row:
                    row.setdefault("elements_per_s", row["elements"] / row["seconds_best"])
                rows.append(row)
        for gi, (pvariants, gpeers) in enumerate(cfg["peer_groups"]):
            pj = os.path.join(a.out, f"peers_{n}_{c}{f'_{gi + 1}' if gi else ''}.json")
            cmd = [python, os.path.join(HERE, "seed003_dask.py"), "--n", str(n), "--chunk", str(c),
                   "--variant", ",".join(pvariants), "--peers", ",".join(gpeers),
                   "--threads", str(a.dask_threads), "--repeat", str(cfg["repeat"]),
                   "--seed", str(a.seed), "--venv-python", a.venv_python, "--json", pj]
            if a.peer_timeout:
                cmd += ["--timeout", str(a.peer_timeout)]
            r = run(cmd, log)
            if r.returncode != 0:
                raise SystemExit(f"seed003_dask.py failed with exit code {r.returncode}")
            d = json.load(open(pj))
            for row in d["rows"]:
                row["cfg_chunk"] = c
                if row.get("version"):
                    name = {"dask": "Dask", "numpy": "NumPy", "jax": "JAX",
                            "cupy": "CuPy"}.get(row["tool"], row["tool"])
                    py = row.get("python") or python
                    py = os.path.relpath(py, REPO) if py.startswith(REPO + os.sep) else py
                    versions.setdefault(py, {})[f"{name} {row['version']}"] = 1
                rows.append(row)

    vorder = {v: i for i, v in enumerate(["a", "b", "d", "c:persist", "c"])}
    border = {b["label"]: i for i, b in enumerate(builds)}
    porder = {p: i for i, p in enumerate(PEERS)}
    rows.sort(key=lambda r: (r["n"], r["cfg_chunk"], vorder.get(r["variant"], 9),
                             r["tool"] != "tessera", border.get(r.get("build"), 0),
                             porder.get(peer_of(r), 99), r["backend"],
                             -(r.get("workers") or 0)))
    machine["tessera_rev"] = git_rev()
    machine["loadavg_start"], machine["loadavg_end"] = load0, loadavg()
    if versions:
        machine["peer_versions"] = "; ".join(f"{', '.join(v)} ({py})"
                                             for py, v in versions.items())
    machine["compiler"] = " / ".join(("g++ " + x if x[:1].isdigit() else x)
                                     for x in compilers) or machine.get("compiler", "?")
    render(a, started_utc=started, machine=machine, commands=log, invocation=commands, rows=rows,
           seconds=time.perf_counter() - t_all)


def tessera_builds(a):
    """[{label, binary, dir, ...}] from --tessera LABEL=DIR, --build-dir/--binary and
    --user-build-dir (in that order after the --tessera ones)."""
    specs = []  # (label or None for automatic, dir or binary path)
    for t in a.tessera:
        if "=" not in t:
            raise SystemExit(f"--tessera {t!r}: expected LABEL=DIR")
        lab, d = t.split("=", 1)
        specs.append((lab, d))
    if a.binary:
        specs.insert(0, (None, a.binary))
    elif a.build_dir or not specs:
        specs.insert(0, (None, a.build_dir))
    if a.user_build_dir:
        specs.append((None, a.user_build_dir))
    several = len(specs) > 1
    out = []
    for lab, d in specs:
        if d and os.path.isfile(d):
            binary = os.path.abspath(d)
        else:
            binary = find_binary(os.path.abspath(d) if d else None, wait=120 if d else 0)
        if not binary:
            raise SystemExit(f"bench_seed003 not found{' under ' + d if d else ''}; build it first:\n"
                             "  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && "
                             "cmake --build build --target bench_seed003\n"
                             "then pass --build-dir build (or --binary PATH)")
        bdir = os.path.dirname(os.path.dirname(binary))
        info = build_info(bdir)
        if lab is None and (several or cmake_cache(bdir)):
            lab = build_label(bdir)
        out.append(dict(label=lab or None, binary=binary, dir=bdir, **info))
    labels = [b["label"] for b in out]
    for i, b in enumerate(out):  # two builds with the same automatic label: add the folder
        if labels.count(b["label"]) > 1:
            b["label"] = f"{b['label']}, {os.path.basename(b['dir'])}"
    return out


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
    nt = notes(rows)
    if nt:
        print("\n" + nt)
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
