#!/usr/bin/env python3
"""Peers of benchmarks/bench_svd.cpp: NumPy's np.linalg.svd(full_matrices=False) and Dask's
da.linalg.svd (tsqr) on the same shapes and chunks, with the same thread count.

    /usr/bin/python3 benchmarks/peers/svd_peers.py --threads 2 --reps 3

Input: a NumPy array of uniform [0, 1) values (`centered`: [-0.5, 0.5)) (Dask gets da.from_array of it with the given
chunks); generation is not timed. OpenBLAS threads are set at run time through the loaded
libopenblas (ctypes): NumPy runs with --threads BLAS threads; Dask runs with --threads
workers (threaded scheduler) and 1 BLAS thread per call, and again with --threads BLAS threads
(the default environment of a Dask user, oversubscribed). A peer that cannot be imported is
skipped with a message.
"""
import argparse
import ctypes
import os
import sys
import time

CASES = {  # m, n, row chunk, column chunk, shift (values uniform [-shift, 1 - shift))
    "seed000": (10000, 1000, 1000, 1000, 0.0),
    "tall": (2000000, 64, 100000, 64, 0.0),
    "centered": (10000, 1000, 1000, 1000, 0.5),  # bench_svd's `centered`: cond(A) about 2
}


def openblas_handle():
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "openblas" in line and ".so" in line:
                    return ctypes.CDLL(line.split()[-1])
    except OSError:
        pass
    return None


def set_blas_threads(lib, n):
    if lib is not None and hasattr(lib, "openblas_set_num_threads"):
        lib.openblas_set_num_threads(int(n))
        return True
    return False


def best_median(f, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[0], ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    args = ap.parse_args()
    try:
        import numpy as np
    except ImportError as e:
        print(f"numpy not importable ({e}); nothing to compare")
        return 0
    lib = openblas_handle()
    try:
        import dask
        import dask.array as da
    except ImportError as e:
        da = None
        print(f"dask skipped: not importable ({e})")
    print(f"threads: {args.threads}; OpenBLAS found: {lib is not None}; numpy {np.__version__}"
          + (f", dask {dask.__version__}" if da is not None else ""))
    print()
    print("| case | best s | median s |")
    print("|---|---:|---:|")
    for name in args.case or ["seed000", "tall"]:
        m, n, cm, cn, shift = CASES[name]
        shp = f"{m}x{n} ({cm}x{cn})"
        x = np.random.default_rng(0).random((m, n)) - shift
        set_blas_threads(lib, args.threads)
        b, md = best_median(lambda: np.linalg.svd(x, full_matrices=False), args.reps)
        print(f"| {name} {shp} numpy svd (BLAS threads {args.threads}) | {b:.3f} | {md:.3f} |",
              flush=True)
        if da is not None:
            dx = da.from_array(x, chunks=(cm, cn))
            for blas in sorted({1, args.threads}):
                set_blas_threads(lib, blas)

                def run():
                    u, s, v = da.linalg.svd(dx)
                    dask.compute(u, s, v, scheduler="threads", num_workers=args.threads)

                b, md = best_median(run, args.reps)
                print(f"| {name} {shp} dask svd ({args.threads} workers, BLAS threads {blas}) "
                      f"| {b:.3f} | {md:.3f} |", flush=True)
            set_blas_threads(lib, args.threads)
        del x
    return 0


if __name__ == "__main__":
    sys.exit(main())
