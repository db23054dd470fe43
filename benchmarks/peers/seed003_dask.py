#!/usr/bin/env python3
"""Seed 003 workload in the peers: Dask (threads, single-threaded) and NumPy.

    x = da.random.normal(10, 1, size=(n, n), chunks=(c, c))
    (a)  (x + 1)[::2, ::2].mean().compute(scheduler=...)      # the seed's code
    (b)  (x + 1).mean()
    (c)  (b) on a persisted in-memory x (persist reported as its own row, "c:persist")
    (d)  (b) with x = full((n, n), 10.0): no random numbers

Peers (--peers, comma list):
    dask-threads   Dask, scheduler='threads' (--threads workers, 0 = Dask's default: all CPUs)
    dask-single    Dask, scheduler='single-threaded'
    numpy          plain NumPy on the whole array (np.random.default_rng(seed).normal); only
                   when x and one temporary fit in --max-mem-fraction of RAM
    numpy-chunked  single-threaded NumPy loop over (c, c) blocks, one block in memory at a time
    dask-cupy      Dask, scheduler='threads', chunks are CuPy arrays on the current GPU
                   (da.random.RandomState(seed, RandomState=cupy.random.RandomState)); every run ends
                   with the result on the host, so the GPU work is inside the time
    cupy           plain CuPy on the whole array on one GPU (cupy.random.RandomState); a row
                   that does not fit in the GPU's memory is skipped with the error

A peer whose module is not importable is skipped with a message. Every (peer, variant) runs in
its own child process, so the peak RSS of a row (getrusage ru_maxrss, a process-lifetime peak)
is that row's own. Timings are best and median of --repeat runs, each building the expression
from nothing and computing it (for (c): computing on the already persisted x).

elements/s = elements entering the mean (ceil(n/2)^2 for (a), n^2 otherwise) / best seconds,
the same convention as bench_seed003.

Prints a markdown table; --json FILE writes the rows (same fields as bench_seed003's JSON).
Use /usr/bin/python3 on Debian (python3-dask, python3-numpy).
"""
import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

PEERS = ["dask-threads", "dask-single", "numpy", "numpy-chunked", "dask-cupy", "cupy"]
GPU_PEERS = ("dask-cupy", "cupy")
VARIANT_ORDER = "abdc"  # (c) last, like the Tessera binary


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def ram_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)  # all threads of this process
    return ru.ru_utime + ru.ru_stime


CPU = {}  # CPU seconds of the fastest run of the last timed() call


def timed(repeat, f):
    ts, value = [], None
    for _ in range(repeat):
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        value = f()
        ts.append(time.perf_counter() - t0)
        if ts[-1] <= min(ts):
            CPU["last"] = cpu_seconds() - c0
    return min(ts), statistics.median(ts), value


def elements(variant, n):
    h = (n + 1) // 2
    return float(h * h) if variant == "a" else float(n) * float(n)


# ----------------------------------------------------------------------------- child side


def run_dask(peer, variant, a):
    import dask
    import dask.array as da

    n, c = a.n, a.chunk
    gpu = peer == "dask-cupy"
    if gpu:
        import cupy
    if peer in ("dask-threads", "dask-cupy"):
        kw = {"scheduler": "threads"}
        if a.threads > 0:
            kw["num_workers"] = a.threads
        workers = a.threads if a.threads > 0 else (os.cpu_count() or 1)
    else:
        kw = {"scheduler": "single-threaded"}
        workers = 1

    def make_x():
        # The seed's da.random.normal(10, 1, size=..., chunks=...) with a fixed seed.
        if gpu:  # CuPy's Generator has no normal(): the legacy RandomState, as Dask's docs do
            return da.random.RandomState(a.seed, RandomState=cupy.random.RandomState).normal(
                10, 1, size=(n, n), chunks=(c, c))
        return da.random.RandomState(a.seed).normal(10, 1, size=(n, n), chunks=(c, c))

    def host(v):  # the value on the host: a CuPy result is copied (and the GPU waited for)
        return float(v)

    rows = []
    if variant == "a":
        best, med, val = timed(a.repeat,
                               lambda: host((make_x() + 1)[::2, ::2].mean().compute(**kw)))
    elif variant == "b":
        best, med, val = timed(a.repeat, lambda: host((make_x() + 1).mean().compute(**kw)))
    elif variant == "d":
        def full():
            if gpu:
                return da.full((n, n), 10.0, chunks=(c, c), like=cupy.empty(()))
            return da.full((n, n), 10.0, chunks=(c, c))
        best, med, val = timed(a.repeat, lambda: host((full() + 1).mean().compute(**kw)))
    else:  # c
        kept = {}

        def persist():
            kept.pop("x", None)
            if gpu:
                cupy.get_default_memory_pool().free_all_blocks()
            kept["x"] = make_x().persist(**kw)
            if gpu:
                cupy.cuda.Device().synchronize()

        pb, pm, _ = timed(a.repeat, persist)
        rows.append(dict(variant="c:persist", workers=workers, seconds_best=pb,
                         cpu_seconds=CPU["last"],
                         seconds_median=pm, elements=float(n) * n, result=None,
                         peak_rss_mib=peak_rss_mib()))
        best, med, val = timed(a.repeat, lambda: host((kept["x"] + 1).mean().compute(**kw)))
    rows.append(dict(variant=variant, workers=workers, seconds_best=best, seconds_median=med,
                     cpu_seconds=CPU["last"],
                     elements=elements(variant, n), result=float(val),
                     peak_rss_mib=peak_rss_mib()))
    backend = {"dask-threads": "threads", "dask-cupy": "cupy+threads"}.get(peer, "single-threaded")
    version = dask.__version__ + (f", cupy {cupy.__version__}" if gpu else "")
    for r in rows:
        r.update(backend=backend, chunk=c, tool="dask", version=version)
    return rows


def run_cupy(variant, a):
    import cupy

    n = a.n
    sync = cupy.cuda.Device().synchronize
    rows = []

    def normal():  # CuPy's Generator has no normal()
        return cupy.random.RandomState(a.seed).normal(10, 1, size=(n, n))

    try:
        if variant == "a":
            best, med, val = timed(a.repeat, lambda: float((normal() + 1)[::2, ::2].mean()))
        elif variant == "b":
            best, med, val = timed(a.repeat, lambda: float((normal() + 1).mean()))
        elif variant == "d":
            best, med, val = timed(a.repeat, lambda: float((cupy.full((n, n), 10.0) + 1).mean()))
        else:  # c
            kept = {}

            def persist():
                kept.pop("x", None)
                kept["x"] = normal()
                sync()

            pb, pm, _ = timed(a.repeat, persist)
            rows.append(dict(variant="c:persist", seconds_best=pb, seconds_median=pm,
                             cpu_seconds=CPU["last"], elements=float(n) * n, result=None,
                             peak_rss_mib=peak_rss_mib()))
            best, med, val = timed(a.repeat, lambda: float((kept["x"] + 1).mean()))
    except cupy.cuda.memory.OutOfMemoryError as e:
        raise SkipPeer(f"out of GPU memory: {e}")
    rows.append(dict(variant=variant, seconds_best=best, seconds_median=med,
                     cpu_seconds=CPU["last"], elements=elements(variant, n), result=float(val),
                     peak_rss_mib=peak_rss_mib()))
    for r in rows:
        r.update(backend="cupy", workers=1, chunk=n, tool="cupy", version=cupy.__version__)
    return rows


def run_numpy(variant, a):
    import numpy as np

    n = a.n
    rows = []
    if variant == "a":
        best, med, val = timed(a.repeat, lambda: (
            np.random.default_rng(a.seed).normal(10, 1, size=(n, n)) + 1)[::2, ::2].mean())
    elif variant == "b":
        best, med, val = timed(a.repeat, lambda: (
            np.random.default_rng(a.seed).normal(10, 1, size=(n, n)) + 1).mean())
    elif variant == "d":
        best, med, val = timed(a.repeat, lambda: (np.full((n, n), 10.0) + 1).mean())
    else:  # c
        kept = {}

        def persist():
            kept.pop("x", None)
            kept["x"] = np.random.default_rng(a.seed).normal(10, 1, size=(n, n))

        pb, pm, _ = timed(a.repeat, persist)
        rows.append(dict(variant="c:persist", seconds_best=pb, seconds_median=pm,
                         cpu_seconds=CPU["last"],
                         elements=float(n) * n, result=None, peak_rss_mib=peak_rss_mib()))
        best, med, val = timed(a.repeat, lambda: (kept["x"] + 1).mean())
    rows.append(dict(variant=variant, seconds_best=best, seconds_median=med,
                     cpu_seconds=CPU["last"], elements=elements(variant, n), result=float(val),
                     peak_rss_mib=peak_rss_mib()))
    for r in rows:
        r.update(backend="numpy", workers=1, chunk=n, tool="numpy", version=np.__version__)
    return rows


def run_numpy_chunked(variant, a):
    import numpy as np

    n, c = a.n, a.chunk
    starts = range(0, n, c)

    def sliced_mean(make_block):
        total, count = 0.0, 0
        for i, r0 in enumerate(starts):
            for j, c0 in enumerate(starts):
                blk = make_block(i, j, min(c, n - r0), min(c, n - c0)) + 1
                if variant == "a":  # global [::2, ::2]: even global row/column indices
                    blk = blk[(-r0) % 2::2, (-c0) % 2::2]
                total += blk.sum()
                count += blk.size
        return total / count

    if variant in "ab":
        def gen(i, j, rows_, cols_):
            return np.random.default_rng([a.seed, i, j]).normal(10, 1, size=(rows_, cols_))
        best, med, val = timed(a.repeat, lambda: sliced_mean(gen))
    elif variant == "d":
        best, med, val = timed(a.repeat, lambda: sliced_mean(
            lambda i, j, r_, c_: np.full((r_, c_), 10.0)))
    else:
        raise SkipPeer("numpy-chunked has no persisted variant (the numpy row is that case)")
    row = dict(variant=variant, seconds_best=best, seconds_median=med,
               cpu_seconds=CPU["last"], elements=elements(variant, n), result=float(val), peak_rss_mib=peak_rss_mib(),
               backend="numpy-chunked", workers=1, chunk=c, tool="numpy", version=np.__version__)
    return [row]


class SkipPeer(Exception):
    pass


def child(a):
    peer, variant = a.child.split(":")
    try:
        if peer.startswith("dask"):
            rows = run_dask(peer, variant, a)
        elif peer == "cupy":
            rows = run_cupy(variant, a)
        elif peer == "numpy":
            rows = run_numpy(variant, a)
        else:
            rows = run_numpy_chunked(variant, a)
    except SkipPeer as e:
        rows = [dict(variant=variant, skipped=str(e))]
    print(json.dumps(rows))


# ----------------------------------------------------------------------------- parent side


def importable(mod, python):
    r = subprocess.run([python, "-c", f"import {mod}"], capture_output=True, text=True)
    return r.returncode == 0, (r.stderr.strip().splitlines() or [""])[-1]


def base_row(peer, variant, a):
    backend = {"dask-threads": "threads", "dask-single": "single-threaded",
               "dask-cupy": "cupy+threads"}.get(peer, peer)
    return dict(tool=peer.split("-")[0], variant=variant, backend=backend, workers=None,
                n=a.n, chunk=a.chunk, repeat=a.repeat)


def skip_rows(peer, variants, a, why):
    rows = []
    for v in variants:
        rows.append(dict(base_row(peer, v, a), skipped=why))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--chunk", type=int, default=2000)
    p.add_argument("--variant", default="a,b,c", help="comma list of a, b, c, d (or all)")
    p.add_argument("--peers", default=",".join(PEERS), help="comma list of " + ", ".join(PEERS))
    p.add_argument("--threads", type=int, default=0,
                   help="Dask threaded scheduler workers (0 = all CPUs)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--json", help="write rows and machine information to this file")
    p.add_argument("--max-mem-fraction", type=float, default=0.5,
                   help="skip whole-array NumPy and persisted (c) rows needing more of the RAM")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per (peer, variant) child before it is killed and skipped")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args()
    a.chunk = min(a.chunk, a.n)
    if a.child:
        return child(a)

    variants = "abcd" if a.variant == "all" else a.variant.replace(",", "")
    bad = [v for v in variants if v not in "abcd"]
    if bad:
        p.error(f"unknown variant {bad[0]!r} (expected a, b, c, d)")
    variants = [v for v in VARIANT_ORDER if v in variants]
    peers = [x for x in a.peers.split(",") if x]
    for x in peers:
        if x not in PEERS:
            p.error(f"unknown peer {x!r} (expected one of {', '.join(PEERS)})")

    ram = ram_bytes()
    x_bytes = 8.0 * a.n * a.n
    rows = []
    for peer in peers:
        mod = "dask.array" if peer.startswith("dask") else "numpy"
        if peer in GPU_PEERS:
            mod = "dask.array, cupy" if peer == "dask-cupy" else "cupy"
        ok, why = importable(mod, sys.executable)
        if not ok:
            msg = f"{mod} is not importable by {sys.executable} ({why})"
            if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
                msg += "; on Debian try /usr/bin/python3"
            print(f"  {peer}: skipped: {msg}", file=sys.stderr)
            rows += skip_rows(peer, variants, a, msg)
            continue
        for v in variants:
            if peer == "numpy-chunked" and v == "c":
                print("  numpy-chunked c: not run (the persisted case is the numpy row)",
                      file=sys.stderr)
                continue
            need = x_bytes * (2 if peer == "numpy" else 1)  # numpy: x and the x + 1 temporary
            on_host = peer not in GPU_PEERS  # GPU rows report their own out-of-memory
            if on_host and (v == "c" or peer == "numpy") and ram and need > a.max_mem_fraction * ram:
                msg = (f"needs {need / 1e9:.1f} GB in memory, more than "
                       f"{a.max_mem_fraction:.0%} of {ram / 1e9:.1f} GB RAM")
                print(f"  {peer} {v}: skipped: {msg}", file=sys.stderr)
                rows += skip_rows(peer, [v] + (["c:persist"] if v == "c" else []), a, msg)
                continue
            cmd = [sys.executable, os.path.abspath(__file__), "--child", f"{peer}:{v}",
                   "--n", str(a.n), "--chunk", str(a.chunk), "--threads", str(a.threads),
                   "--repeat", str(a.repeat), "--seed", str(a.seed)]
            t0 = time.perf_counter()
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            except subprocess.TimeoutExpired:
                msg = f"killed after the {a.timeout:g} s timeout"
                print(f"  {peer} {v}: {msg}", file=sys.stderr)
                rows += skip_rows(peer, [v], a, msg)
                continue
            if r.returncode != 0:
                msg = f"failed (exit {r.returncode}): " + (r.stderr.strip().splitlines()
                                                           or ["?"])[-1]
                print(f"  {peer} {v}: {msg}", file=sys.stderr)
                rows += skip_rows(peer, [v], a, msg)
                continue
            for cr in json.loads(r.stdout.strip().splitlines()[-1]):
                row = base_row(peer, cr["variant"], a)
                row.update(cr)
                if "skipped" not in row:
                    row["elements_per_s"] = row["elements"] / row["seconds_best"]
                rows.append(row)
                if not a.quiet:
                    status = row.get("skipped") or f"best {row['seconds_best']:.4g} s"
                    print(f"  {peer:14s} {row['variant']:9s} N={a.n} chunk={a.chunk} {status}"
                          f"  ({time.perf_counter() - t0:.1f} s with start-up)", file=sys.stderr)

    print(markdown(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(benchmark="seed003", tool="peers", machine=machine_info(),
                           seed=a.seed, python=sys.executable, rows=rows), f, indent=1)


def machine_info():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return dict(nproc=os.cpu_count(), cpu_model=model, ram_bytes=ram_bytes(),
                date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                python=platform.python_version())


def markdown(rows):
    out = ["| tool | variant | backend | workers | N | chunk | best s | median s | CPU s "
           "| elements/s | result | peak RSS MiB |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        head = (f"| {r['tool']} | {r['variant']} | {r['backend']} | {r.get('workers') or '-'} "
                f"| {r['n']} | {r['chunk']} |")
        if "skipped" in r:
            out.append(head + f" skipped: {r['skipped']} | | | | | |")
            continue
        res = "-" if r.get("result") is None else f"{r['result']:.10f}"
        out.append(head + f" {r['seconds_best']:.4g} | {r['seconds_median']:.4g} | "
                   f"{r['cpu_seconds']:.4g} | "
                   f"{r['elements_per_s']:.3g} | {res} | {r['peak_rss_mib']:.0f} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
