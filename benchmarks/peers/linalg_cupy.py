#!/usr/bin/env python3
"""GPU peers of benchmarks/bench_svd.cpp (cuda rows): CuPy and Dask + CuPy on one GPU, on the
same shapes, timed in the same run as the Tessera binary.

    python3 benchmarks/peers/linalg_cupy.py --reps 5 [--case seed000 --case tall10m]

Cases (rows x columns, Dask chunks):
    seed000  10000 x 1000, chunks 1000 x 1000   cupy.linalg.svd(full_matrices=False)
    tall     2e6 x 64, chunks 1e5 x 64          cupy.linalg.qr (reduced and mode='r'), svd
    tall10m  1e7 x 64, chunks 1e5 x 64          the same

The input is a device array of uniform [0, 1) values made before timing (CuPy's default_rng);
Dask + CuPy gets da.from_array(x, chunks, asarray=False) over it (tsqr/svd by da.linalg, the
threaded scheduler). Each timed run ends with cupy.cuda.Device().synchronize(); the reported
numbers are the best and median of --reps runs after one untimed warm-up (cuSOLVER handle and
workspace creation, kernel loading). A case that does not fit in GPU memory is reported as
skipped with the error.
"""
import argparse
import time

CASES = {
    "seed000": (10000, 1000, 1000),
    "tall": (2000000, 64, 100000),
    "tall10m": (10000000, 64, 100000),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    ap.add_argument("--no-dask", action="store_true", help="CuPy rows only")
    a = ap.parse_args()
    try:
        import cupy
    except ImportError as e:
        print(f"cupy not importable ({e}); no GPU peer rows")
        return 0
    da = None
    if not a.no_dask:
        try:
            import dask
            import dask.array as da
        except ImportError as e:
            print(f"dask skipped: not importable ({e})")
    sync = cupy.cuda.Device().synchronize
    props = cupy.cuda.runtime.getDeviceProperties(0)
    print(f"GPU: {props['name'].decode()}; cupy {cupy.__version__}"
          + (f", dask {dask.__version__}" if da is not None else ""))
    print()
    print("| case | peer | op | best s | median s |")
    print("|---|---|---|---:|---:|")

    def row(case, peer, op, f):
        try:
            f()  # warm-up
            sync()
            ts = []
            for _ in range(a.reps):
                t0 = time.perf_counter()
                f()
                sync()
                ts.append(time.perf_counter() - t0)
            ts.sort()
            print(f"| {case} | {peer} | {op} | {ts[0]:.4f} | {ts[len(ts) // 2]:.4f} |",
                  flush=True)
        except cupy.cuda.memory.OutOfMemoryError as e:
            print(f"| {case} | {peer} | {op} | skipped: out of GPU memory ({e}) | |", flush=True)
        except Exception as e:  # e.g. cuSOLVER refusing a size (32-bit workspace sizes)
            print(f"| {case} | {peer} | {op} | failed: {type(e).__name__}: {e} | |", flush=True)
        cupy.get_default_memory_pool().free_all_blocks()

    for name in a.case or ["seed000", "tall10m"]:
        m, n, cm = CASES[name]
        shp = f"{m}x{n} ({cm}x{n})"
        x = cupy.random.default_rng(0).random((m, n))
        row(shp, "cupy", "svd", lambda: cupy.linalg.svd(x, full_matrices=False))
        if n <= 256:
            row(shp, "cupy", "qr", lambda: cupy.linalg.qr(x))
            row(shp, "cupy", "qr mode='r'", lambda: cupy.linalg.qr(x, mode="r"))
        if da is not None:
            dx = da.from_array(x, chunks=(cm, n), asarray=False)
            row(shp, "dask+cupy", "svd (tsqr)",
                lambda: dask.compute(*da.linalg.svd(dx), scheduler="threads"))
            row(shp, "dask+cupy", "tsqr",
                lambda: dask.compute(*da.linalg.tsqr(dx), scheduler="threads"))
        del x
        cupy.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
