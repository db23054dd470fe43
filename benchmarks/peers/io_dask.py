#!/usr/bin/env python3
"""Out-of-core seed 003 in Dask: the peer of benchmarks/bench_io.cpp, the same steps.

    x = da.random.default_rng(seed).normal(10, 1, size=(n, n), chunks=(c, c))
    write   x.to_zarr(dir)  (Zarr format 3, zstd at --level, as bench_io)
    read-a  ((da.from_zarr(dir) + 1)[::2, ::2]).mean().compute()
    read-m  da.from_zarr(dir).mean(axis=0).compute()

Rows: seconds, MB/s (write: array bytes; read-*: bytes of the chunk files the step opens,
counted the same way as bench_io: every chunk file a step needs), peak RSS of this process so far.
Run it with current Dask and zarr 3 (the repository's .venv: scripts/install-deps.sh).
"""
import argparse
import json
import os
import resource
import shutil
import time

import dask
import dask.array as da
import numpy as np
import zarr
from zarr.codecs import ZstdCodec


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def dir_bytes(p):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=40000)
    ap.add_argument("--chunk", type=int, default=4000)
    ap.add_argument("--dir", default="/tmp/dask_bench_io.zarr")
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="0: Dask's default (all cores)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if a.threads:
        dask.config.set(scheduler="threads", num_workers=a.threads)
    else:
        dask.config.set(scheduler="threads")
    n, c = a.n, a.chunk
    mb = n * n * 8 / 1e6
    shutil.rmtree(a.dir, ignore_errors=True)
    rows = []

    x = da.random.default_rng(a.seed).normal(10, 1, size=(n, n), chunks=(c, c))
    t = time.perf_counter()
    x.to_zarr(a.dir, zarr_format=3, compressors=[ZstdCodec(level=a.level)])
    t = time.perf_counter() - t
    rows.append(("write", t, mb / t, peak_mib(), dir_bytes(a.dir) / 1e6))

    z = da.from_zarr(a.dir)
    t = time.perf_counter()
    v = float(((z + 1)[::2, ::2]).mean().compute())
    t = time.perf_counter() - t
    rows.append(("read-a", t, dir_bytes(a.dir) / 1e6 / t, peak_mib(), v))

    z = da.from_zarr(a.dir)
    t = time.perf_counter()
    m = z.mean(axis=0).compute()
    t = time.perf_counter() - t
    rows.append(("read-m", t, dir_bytes(a.dir) / 1e6 / t, peak_mib(), float(m[0])))
    if not a.keep:
        shutil.rmtree(a.dir, ignore_errors=True)

    print(f"io_dask: Dask {dask.__version__}, zarr {zarr.__version__}, numpy {np.__version__}; "
          f"x = normal(10, 1, ({n}, {n})), chunks ({c}, {c}), Zarr v3 zstd level {a.level}")
    print("| step | seconds | MB/s | peak RSS MiB | value |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.3f} | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.6g} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": n, "chunk": c, "dask": dask.__version__, "zarr": zarr.__version__,
                       "rows": [dict(zip(("step", "seconds", "mb_per_s", "peak_rss_mib", "value"), r)) for r in rows]}, f)


if __name__ == "__main__":
    main()
