#!/usr/bin/env python3
"""Checks Zarr arrays written by Tessera with the real zarr-python and Dask (tests/interop).

    PYTHON zarr_py_check.py DIR [--format 2|3]

DIR/manifest.json (written by zarr_interop in TESSERA_INTEROP_WRITE mode) lists the arrays, each
{name, path, format, dtype, shape, chunks, shards, expected, attributes} and optionally
fill_value, codecs (names that must appear in the metadata), options (the codec, level,
blosc_cname, blosc_shuffle and separator Tessera was given) and recompute ({"npy": FILE,
"shape": [..], "op": "add1_step2"}: the values must equal NumPy's (x + 1)[::2, ::2] of
x = np.load(FILE), the .npy Tessera wrote of the source array).
Paths are relative to DIR. With --format only the arrays of that format are checked.

For each array: zarr.open(path, mode="r") must give an array whose shape, dtype, chunks (and
shards), fill value and attributes match the manifest and whose values equal the expected .bin
(C order, little-endian) bitwise (any NaN equals any NaN); and dask.array.from_zarr(path)
.sum().compute() must equal NumPy's sum of the expected values (exactly for integers and bool,
within the summation error for floats). Prints one line per failure and a summary; exits 1 if
anything failed, 2 if the manifest is unusable.
"""
import argparse
import json
import math
import os
import sys
import traceback

import numpy as np
import zarr

ZARR_MAJOR = int(zarr.__version__.split(".")[0])


def load_expected(base, entry):
    dt = np.dtype(entry["dtype"])
    le = dt.newbyteorder("<") if dt.itemsize > 1 else dt
    raw = open(os.path.join(base, entry["expected"]), "rb").read()
    shape = tuple(entry["shape"])
    n = int(np.prod(shape, dtype=np.int64))
    if len(raw) != n * dt.itemsize:
        raise ValueError(f"{entry['expected']} has {len(raw)} bytes, expected {n * dt.itemsize}")
    return np.frombuffer(raw, dtype=le).astype(dt.newbyteorder("=")).reshape(shape)


def differences(got, want):
    """Indices where got and want differ bitwise, any NaN matching any NaN."""
    if got.dtype.kind == "f":
        same = (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")) | (
            np.isnan(got) & np.isnan(want))
    else:
        same = got == want
    return np.argwhere(~same)


def codec_names(z):
    """Every codec / compressor name in the array's metadata, as the client reports it."""
    names = set()

    def walk(x):
        if isinstance(x, dict):
            for k in ("name", "id"):
                if isinstance(x.get(k), str):
                    names.add(x[k])
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif hasattr(x, "get_config"):  # a numcodecs codec
            walk(x.get_config())
        elif hasattr(x, "to_dict"):
            walk(x.to_dict())

    if ZARR_MAJOR >= 3:
        walk(z.metadata.to_dict())
    else:
        walk(z.compressor.get_config() if z.compressor is not None else {})
        for f in z.filters or []:
            walk(f.get_config())
    return names


def client_metadata(z):
    """The array's metadata as the client reports it (a dict, in the format's own field names)."""
    if ZARR_MAJOR >= 3:
        return z.metadata.to_dict()
    return {"compressor": z.compressor.get_config() if z.compressor is not None else None,
            "dimension_separator": z._dimension_separator, "order": z.order}


def codec_configs(meta):
    """(name, configuration) of every codec / compressor in client metadata, nested ones too."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            if isinstance(x.get("id"), str):
                out.append((x["id"], x))
            elif isinstance(x.get("name"), str) and "configuration" in x:
                out.append((x["name"], x["configuration"] or {}))
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    walk(meta.get("codecs") if "codecs" in meta else meta.get("compressor"))
    return out


def check_options(name, z, fmt, opt, fails):
    """The codec options and key separator Tessera was given are what the client reports."""
    meta = client_metadata(z)
    codec = opt.get("codec")
    configs = dict(codec_configs(meta))
    if codec and codec != "none":
        cfg = configs.get(codec)
        if cfg is None:
            fails.append(f"{name}: no {codec} codec in {sorted(configs)}")
        else:
            want = {"clevel" if codec == "blosc" else "level": opt["level"]}
            if codec == "blosc":
                want["cname"] = opt["blosc_cname"]
                want["shuffle"] = (opt["blosc_shuffle"] if fmt == 2 else
                                   ["noshuffle", "shuffle", "bitshuffle"][opt["blosc_shuffle"]])
            for k, v in want.items():
                got = cfg.get(k)
                got = getattr(got, "value", got)  # an enum
                if got != v:
                    fails.append(f"{name}: {codec} {k} is {got!r}, Tessera was given {v!r}")
    sep = opt.get("separator")
    if sep in (".", "/"):
        got = (meta.get("dimension_separator") if fmt == 2 else
               (meta.get("chunk_key_encoding") or {}).get("configuration", {}).get("separator"))
        if got != sep:
            fails.append(f"{name}: chunk key separator {got!r}, Tessera was given {sep!r}")


def same_fill(got, want, dt):
    if want is None:
        return got is None or got == 0
    if isinstance(want, str):
        want = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[want]
    if got is None:
        return False
    g = np.asarray(got).item()
    if dt.kind == "f" and math.isnan(float(want)):
        return math.isnan(float(g))
    return g == want


def check_sum(path, want, fails, name):
    import dask.array as da
    got = da.from_zarr(path).sum().compute()
    ref = want.sum()
    if want.dtype.kind == "f":
        g, r = float(got), float(ref)
        if math.isnan(r) or math.isinf(r):
            ok = (math.isnan(g) and math.isnan(r)) or g == r
        else:
            n = max(want.size, 1)
            tol = 4 * n * np.finfo(want.dtype).eps * float(np.abs(want.astype(np.float64)).sum()) + 1e-30
            ok = abs(g - r) <= tol
    else:
        ok = np.asarray(got).item() == np.asarray(ref).item()
    if not ok:
        fails.append(f"{name}: dask.array.from_zarr(...).sum().compute() = {got!r}, NumPy's sum of "
                     f"the expected values = {ref!r}")


def check_entry(base, entry, expected_by_name, fails):
    name = entry["name"]
    path = os.path.join(base, entry["path"])
    want = expected_by_name[name]
    dt = np.dtype(entry["dtype"])
    z = zarr.open(path, mode="r")
    if not hasattr(z, "shape") or not hasattr(z, "dtype"):
        fails.append(f"{name}: zarr.open gives a {type(z).__name__}, not an array")
        return
    fmt = z.metadata.zarr_format if ZARR_MAJOR >= 3 else 2
    if fmt != entry["format"]:
        fails.append(f"{name}: zarr reads format {fmt}, the manifest says {entry['format']}")
    if tuple(z.shape) != tuple(entry["shape"]):
        fails.append(f"{name}: shape {tuple(z.shape)}, expected {tuple(entry['shape'])}")
        return
    # Format 2 stores a byte order (the manifest's stored_dtype when given); format 3 none.
    want_dt = np.dtype(entry.get("stored_dtype", dt.str)) if fmt == 2 else dt
    got_dt = np.dtype(z.dtype)
    if fmt == 3:
        got_dt, want_dt = got_dt.newbyteorder("="), want_dt.newbyteorder("=")
    if got_dt != want_dt:
        fails.append(f"{name}: dtype {np.dtype(z.dtype).str}, expected {want_dt.str}")
    if tuple(z.chunks) != tuple(entry["chunks"]):
        fails.append(f"{name}: chunks {tuple(z.chunks)}, expected {tuple(entry['chunks'])}")
    want_shards = tuple(entry.get("shards") or ())
    got_shards = tuple(getattr(z, "shards", None) or ())
    if got_shards != want_shards:
        fails.append(f"{name}: shards {got_shards}, expected {want_shards}")
    if "fill_value" in entry and not same_fill(z.fill_value, entry["fill_value"], dt):
        fails.append(f"{name}: fill_value {z.fill_value!r}, expected {entry['fill_value']!r}")
    attrs = dict(z.attrs)
    if attrs != (entry.get("attributes") or {}):
        fails.append(f"{name}: attributes {json.dumps(attrs)}, expected {json.dumps(entry.get('attributes'))}")
    if entry.get("codecs"):
        have = codec_names(z)
        missing = [c for c in entry["codecs"] if c not in have]
        if missing:
            fails.append(f"{name}: codecs {sorted(have)} lack {missing}")
    if entry.get("options"):
        check_options(name, z, fmt, entry["options"], fails)
    got = np.asarray(z[...])
    if got.shape != want.shape:
        fails.append(f"{name}: z[...] has shape {got.shape}, expected {want.shape}")
        return
    got = got.astype(dt.newbyteorder("="))
    bad = differences(got, want)
    if len(bad):
        i = tuple(int(v) for v in bad[0])
        fails.append(f"{name}: {len(bad)} of {want.size} values differ; first at {i}: zarr reads "
                     f"{got[i]!r}, expected {want[i]!r}")
    rec = entry.get("recompute")
    if rec:
        npy = os.path.join(base, rec["npy"])
        src = np.load(npy, allow_pickle=False)
        if src.shape != tuple(rec["shape"]) or src.dtype != np.float64:
            fails.append(f"{name}: np.load({rec['npy']}) gives {src.dtype} {src.shape}, "
                         f"Tessera wrote float64 {tuple(rec['shape'])}")
        elif rec["op"] != "add1_step2":
            fails.append(f"{name}: unknown recompute op {rec['op']!r}")
        else:
            ref = (src + 1.0)[::2, ::2]
            bad = differences(got, ref) if ref.shape == got.shape else [None]
            if len(bad):
                fails.append(f"{name}: differs from NumPy's (x + 1)[::2, ::2] of np.load({rec['npy']}) "
                             f"(shapes {got.shape} and {ref.shape}, {len(bad)} values differ)")
    check_sum(path, want, fails, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--format", type=int, choices=(2, 3))
    a = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    try:
        manifest = json.load(open(os.path.join(a.dir, "manifest.json")))
    except (OSError, ValueError) as e:
        print(f"zarr_py_check: cannot read {a.dir}/manifest.json: {e}")
        return 2
    entries = [e for e in manifest if a.format is None or e["format"] == a.format]
    if not entries:
        print(f"zarr_py_check: no format-{a.format} arrays in {a.dir}/manifest.json")
        return 2
    if any(e["format"] == 3 for e in entries) and ZARR_MAJOR < 3:
        print(f"zarr_py_check: format 3 arrays need zarr >= 3, this is zarr {zarr.__version__}")
        return 2
    expected = {}
    fails = []
    for e in manifest:
        try:
            expected[e["name"]] = load_expected(a.dir, e)
        except Exception as ex:  # noqa: BLE001 - reported, not fatal
            fails.append(f"{e['name']}: expected values unreadable: {ex}")
    for e in entries:
        if e["name"] not in expected:
            continue
        try:
            check_entry(a.dir, e, expected, fails)
        except Exception as ex:  # noqa: BLE001 - every array is checked
            last = traceback.format_exception_only(type(ex), ex)[-1].strip()
            fails.append(f"{e['name']}: {last}")
    import dask
    for f in fails:
        print("MISMATCH", f)
    bad = len({f.split(":")[0] for f in fails})
    print(f"zarr_py_check: {len(entries) - bad} of {len(entries)} arrays match "
          f"(zarr {zarr.__version__}, dask {dask.__version__}, NumPy {np.__version__}, "
          f"Python {sys.version.split()[0]}){'' if not fails else f'; {len(fails)} mismatches'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
