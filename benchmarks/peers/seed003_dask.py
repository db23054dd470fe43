#!/usr/bin/env python3
"""Seed 003 workload in the peers: Dask (Debian's and current), JAX on CPU and NumPy.

    x = da.random.normal(10, 1, size=(n, n), chunks=(c, c))
    (a)  (x + 1)[::2, ::2].mean().compute(scheduler=...)      # the seed's code
    (b)  (x + 1).mean()
    (c)  (b) on a persisted in-memory x (persist reported as its own row, "c:persist")
    (d)  (b) with x = full((n, n), 10.0): no random numbers

Peers (--peers, comma list):
    dask-threads   Dask, scheduler='threads' (--threads workers, 0 = Dask's default: all CPUs),
                   x from da.random.RandomState(seed) (the legacy generator)
    dask-single    Dask, scheduler='single-threaded'
    dask-current   current Dask from PyPI (--venv-python), scheduler='threads', x from
                   da.random.default_rng(seed).normal(...): the fast path a user picks today;
                   Dask's configuration as shipped (array.query-planning unset)
    dask-current-randomstate
                   the same Dask with da.random.RandomState(seed), as dask-threads
    jax            JAX on CPU (--venv-python; JAX_PLATFORMS=cpu, jax_enable_x64: float64), the
                   whole computation under one jax.jit so generation, slice and mean fuse:
                   (a) (10 + jax.random.normal(key, (n, n)) + 1)[::2, ::2].mean(), (b) without the
                   slice, (d) (jnp.full((n, n), v) + 1).mean() with v = 10.0 an argument, (c) a
                   jitted normal, block_until_ready (the c:persist row), then a jitted (x + 1).mean().
                   Compilation is timed apart (compile_seconds: lower + compile), then one untimed
                   warm-up call (first_call_seconds); the timed runs call the compiled function,
                   each ending in float() on the host. No chunks: JAX arrays are whole.
    numpy          plain NumPy on the whole array (np.random.default_rng(seed).normal); only
                   when x and one temporary fit in --max-mem-fraction of RAM
    numpy-chunked  single-threaded NumPy loop over (c, c) blocks, one block in memory at a time
    dask-cupy      Dask, scheduler='threads', chunks are CuPy arrays on the current GPU
                   (da.random.RandomState(seed, RandomState=cupy.random.RandomState)); every run ends
                   with the result on the host, so the GPU work is inside the time
    cupy           plain CuPy on the whole array on one GPU (cupy.random.RandomState); a row
                   that does not fit in the GPU's memory is skipped with the error

The Debian peers (dask-threads, dask-single, numpy, numpy-chunked, and the GPU ones) run with
the Python running this script; dask-current, dask-current-randomstate and jax run with
--venv-python (default: <repo>/.venv/bin/python, made by scripts/install-deps.sh --peers).
A peer whose module is not importable is skipped with a message. Every (peer, variant) runs in
its own child process, so the peak RSS of a row (getrusage ru_maxrss, a process-lifetime peak)
is that row's own. Timings are best and median of --repeat runs, each building the expression
from nothing and computing it (for (c): computing on the already persisted x).

elements/s = elements entering the mean (ceil(n/2)^2 for (a), n^2 otherwise) / best seconds,
the same convention as bench_seed003.

Prints a markdown table; --json FILE writes the rows (same fields as bench_seed003's JSON).
Use /usr/bin/python3 on Debian (python3-dask, python3-numpy).
Every row names its peer, interpreter and version (dask.__version__, jax.__version__, ...).
"""
import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import time

PEERS = ["dask-threads", "dask-single", "dask-current", "dask-current-randomstate", "jax",
         "numpy", "numpy-chunked", "dask-cupy", "cupy"]
GPU_PEERS = ("dask-cupy", "cupy")
VENV_PEERS = ("dask-current", "dask-current-randomstate", "jax")  # run with --venv-python
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
    if peer in ("dask-threads", "dask-cupy", "dask-current", "dask-current-randomstate"):
        kw = {"scheduler": "threads"}
        if a.threads > 0:
            kw["num_workers"] = a.threads
        workers = a.threads if a.threads > 0 else (os.cpu_count() or 1)
    else:
        kw = {"scheduler": "single-threaded"}
        workers = 1

    def make_x():
        # The seed's da.random.normal(10, 1, size=..., chunks=...) with a fixed seed.
        if peer == "dask-current":  # NumPy's Generator per chunk: what a user picks today
            return da.random.default_rng(a.seed).normal(10, 1, size=(n, n), chunks=(c, c))
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
    backend = "single-threaded" if peer == "dask-single" else \
        "cupy+threads" if gpu else "threads"
    version = dask.__version__ + (f", cupy {cupy.__version__}" if gpu else "")
    try:  # Dask >= 2025: array query planning (array-expr), off unless configured
        qp = bool(da.array_expr_enabled())
    except AttributeError:
        qp = None
    for r in rows:
        r.update(backend=backend, chunk=c, tool="dask", version=version,
                 rng="default_rng" if peer == "dask-current" else "RandomState",
                 query_planning=qp)
    return rows


def run_jax(variant, a):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # the CPU peer, also where a GPU JAX exists
    import numpy as np
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    n = a.n
    seed = np.int64(a.seed)  # an argument, not a constant XLA could fold at compile time

    def normal(s):  # normal(10, 1, (n, n)), float64
        return 10.0 + jax.random.normal(jax.random.key(s), (n, n), dtype=jnp.float64)

    def compiled(f, *args):  # lower + compile timed apart; then one untimed warm-up call
        t0 = time.perf_counter()
        c = jax.jit(f).lower(*args).compile()
        info["compile_seconds"] = info.get("compile_seconds", 0.0) + time.perf_counter() - t0
        t0 = time.perf_counter()
        jax.block_until_ready(c(*args))
        info["first_call_seconds"] = info.get("first_call_seconds", 0.0) + time.perf_counter() - t0
        return c

    info, rows = {}, []
    try:
        if variant == "a":
            f = compiled(lambda s: (normal(s) + 1)[::2, ::2].mean(), seed)
            best, med, val = timed(a.repeat, lambda: float(f(seed)))
        elif variant == "b":
            f = compiled(lambda s: (normal(s) + 1).mean(), seed)
            best, med, val = timed(a.repeat, lambda: float(f(seed)))
        elif variant == "d":
            ten = np.float64(10.0)
            f = compiled(lambda v: (jnp.full((n, n), v) + 1).mean(), ten)
            best, med, val = timed(a.repeat, lambda: float(f(ten)))
        else:  # c
            gen = compiled(normal, seed)
            kept = {}

            def persist():
                kept.pop("x", None)
                kept["x"] = gen(seed).block_until_ready()

            pb, pm, _ = timed(a.repeat, persist)
            rows.append(dict(variant="c:persist", seconds_best=pb, seconds_median=pm,
                             cpu_seconds=CPU["last"], elements=float(n) * n, result=None,
                             peak_rss_mib=peak_rss_mib(), **info))
            info = {}
            f = compiled(lambda x: (x + 1).mean(), kept["x"])
            best, med, val = timed(a.repeat, lambda: float(f(kept["x"])))
    except (jax.errors.JaxRuntimeError, MemoryError) as e:
        text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if isinstance(e, MemoryError) or "RESOURCE_EXHAUSTED" in text or "memory" in text.lower():
            raise SkipPeer(f"out of memory at N = {n}: {text[:200]}")
        raise
    rows.append(dict(variant=variant, seconds_best=best, seconds_median=med,
                     cpu_seconds=CPU["last"], elements=elements(variant, n), result=float(val),
                     peak_rss_mib=peak_rss_mib(), **info))
    import jaxlib
    version = jax.__version__ + ("" if jaxlib.__version__ == jax.__version__
                                 else f", jaxlib {jaxlib.__version__}")
    for r in rows:
        r.update(backend="cpu-jit", workers=os.cpu_count() or 1, chunk=n, tool="jax",
                 version=version, platform=jax.default_backend())
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
        elif peer == "jax":
            rows = run_jax(variant, a)
        elif peer == "cupy":
            rows = run_cupy(variant, a)
        elif peer == "numpy":
            rows = run_numpy(variant, a)
        else:
            rows = run_numpy_chunked(variant, a)
    except SkipPeer as e:
        rows = [dict(variant=variant, skipped=str(e))]
    for r in rows:
        r.update(peer=peer, python=sys.executable)
    print(json.dumps(rows))


# ----------------------------------------------------------------------------- parent side


def importable(mod, python):
    r = subprocess.run([python, "-c", f"import {mod}"], capture_output=True, text=True)
    return r.returncode == 0, (r.stderr.strip().splitlines() or [""])[-1]


def failure(r, n):
    """Why a child failed, for its row: out of memory named as such (XLA's CPU runtime aborts
    with std::bad_alloc; the kernel's OOM killer sends SIGKILL)."""
    err = r.stderr.strip()
    lines = [x.strip() for x in err.splitlines() if x.strip() and not x.strip().startswith("@")]
    key = [x for x in lines if any(k in x for k in ("what():", "RESOURCE_EXHAUSTED", "Error",
                                                     "Check failed"))]
    last = (key or lines or ["?"])[-1]
    if r.returncode < 0:
        try:
            sig = signal.Signals(-r.returncode).name
        except ValueError:
            sig = f"signal {-r.returncode}"
        msg = f"killed by {sig}"
        if r.returncode == -signal.SIGKILL:
            msg += " (the kernel's out-of-memory killer?)"
        elif last != "?":
            msg += f" ({last[:160]})"
    else:
        msg = f"failed (exit {r.returncode}): {last[:200]}"
    if any(k in err for k in ("bad_alloc", "RESOURCE_EXHAUSTED", "MemoryError", "Out of memory")):
        msg = f"out of memory at N = {n}: " + msg
    return msg


def base_row(peer, variant, a):
    backend = {"dask-threads": "threads", "dask-single": "single-threaded",
               "dask-current": "threads", "dask-current-randomstate": "threads",
               "dask-cupy": "cupy+threads", "jax": "cpu-jit"}.get(peer, peer)
    return dict(tool=peer.split("-")[0], peer=peer, variant=variant, backend=backend,
                workers=None, n=a.n, chunk=a.chunk, repeat=a.repeat, python=peer_python(peer, a))


def peer_python(peer, a):
    return a.venv_python if peer in VENV_PEERS else sys.executable


def module_of(peer):
    if peer == "jax":
        return "jax"
    if peer == "dask-cupy":
        return "dask.array, cupy"
    if peer == "cupy":
        return "cupy"
    return "dask.array" if peer.startswith("dask") else "numpy"


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
    p.add_argument("--venv-python", default=os.path.join(REPO, ".venv", "bin", "python"),
                   help="interpreter of the " + ", ".join(VENV_PEERS) + " peers "
                   "(default: <repo>/.venv/bin/python, made by scripts/install-deps.sh --peers)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--json", help="write rows and machine information to this file")
    p.add_argument("--max-mem-fraction", type=float, default=0.5,
                   help="skip whole-array NumPy and JAX rows and persisted (c) rows needing "
                   "more of the RAM")
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
        mod = module_of(peer)
        python = peer_python(peer, a)
        ok, why = importable(mod, python) if os.access(python, os.X_OK) else (False, "no such file")
        if not ok:
            msg = f"{mod} is not importable by {python} ({why})"
            if peer in VENV_PEERS:
                msg += "; scripts/install-deps.sh --peers makes the venv (or pass --venv-python)"
            elif sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
                msg += "; on Debian try /usr/bin/python3"
            print(f"  {peer}: skipped: {msg}", file=sys.stderr)
            rows += skip_rows(peer, variants, a, msg)
            continue
        for v in variants:
            if peer == "numpy-chunked" and v == "c":
                print("  numpy-chunked c: not run (the persisted case is the numpy row)",
                      file=sys.stderr)
                continue
            # numpy: x and the x + 1 temporary; jax: XLA's buffers for the random bits and x
            # (about 2.6 x at N = 4000, measured as peak RSS)
            need = x_bytes * {"numpy": 2, "jax": 3}.get(peer, 1)
            on_host = peer not in GPU_PEERS  # GPU rows report their own out-of-memory
            whole = peer in ("numpy", "jax")  # no chunks: the whole array is in memory
            if on_host and (v == "c" or whole) and ram and need > a.max_mem_fraction * ram:
                msg = (f"needs {need / 1e9:.1f} GB in memory, more than "
                       f"{a.max_mem_fraction:.0%} of {ram / 1e9:.1f} GB RAM")
                print(f"  {peer} {v}: skipped: {msg}", file=sys.stderr)
                rows += skip_rows(peer, [v] + (["c:persist"] if v == "c" else []), a, msg)
                continue
            cmd = [python, os.path.abspath(__file__), "--child", f"{peer}:{v}",
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
                msg = failure(r, a.n)
                print(f"  {peer} {v}: {msg}", file=sys.stderr)
                rows += skip_rows(peer, [v], a, msg)
                continue
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
                    print(f"  {peer:24s} {row['variant']:9s} N={a.n} chunk={a.chunk} {status}"
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
    out = ["| peer | version | variant | backend | workers | N | chunk | best s | median s | CPU s "
           "| elements/s | result | peak RSS MiB |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        head = (f"| {r.get('peer', r['tool'])} | {r.get('version', '-')} | {r['variant']} "
                f"| {r['backend']} | {r.get('workers') or '-'} "
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
