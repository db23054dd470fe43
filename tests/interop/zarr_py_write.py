#!/usr/bin/env python3
"""Writes Zarr arrays with the real zarr-python library for Tessera to read (tests/interop).

    PYTHON zarr_py_write.py OUTDIR --format 2|3 [--seed N]

Format 2 runs with Debian's zarr 2.x (zarr.open_array) or with zarr 3 (create_array with
zarr_format=2); format 3 needs zarr >= 3. OUTDIR is emptied first. For every array it writes
OUTDIR/<name> (the store), OUTDIR/expected/<name>.bin (the values zarr reads back: C order,
little-endian, the array's own dtype; chunks never written read as the fill value) and an entry
of OUTDIR/manifest.json:

    {name, path, format, dtype (little-endian NumPy str of the values), stored_dtype (the byte
     order on disk), shape, chunks (the unit Tessera reads: a shard's inner chunks), shards,
     order, fill_value (JSON as Zarr writes it), codecs (a description), attributes, expected,
     writer}

Paths are relative to OUTDIR. The script checks each array it wrote by reading it back with zarr
before recording it, so a mismatch on the Tessera side is Tessera's.
"""
import argparse
import json
import math
import os
import shutil
import sys

import numpy as np
import zarr

ZARR_MAJOR = int(zarr.__version__.split(".")[0])

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64"]


# --- data ---------------------------------------------------------------------------------

def random_values(rng, dtype, shape):
    """Random values of dtype (native order) spanning the type's range, floats with specials."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        v = rng.random(n) < 0.5
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        if n >= 4:  # the extremes, always
            v[0], v[-1] = info.min, info.max
    else:
        v = (rng.standard_normal(n) * 1e3).astype(dt)
        specials = [np.nan, np.inf, -np.inf, -0.0, np.finfo(dt).tiny / 4, np.finfo(dt).max, 1.0]
        for k, s in enumerate(specials):
            if n > 3 * k + 1:
                v[(7 * k + 1) % n] = s
    return v.astype(dt.newbyteorder("=")).reshape(shape)


def fill_json(fill, dt):
    """The fill value as Zarr writes it in JSON."""
    if fill is None:
        return None
    if dt.kind == "b":
        return bool(fill)
    if dt.kind == "f":
        f = float(fill)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    return int(fill)


def le_bytes(a):
    """C-order little-endian bytes of a in its own dtype."""
    le = a.dtype.newbyteorder("<") if a.dtype.itemsize > 1 else a.dtype
    return np.ascontiguousarray(a, dtype=le).tobytes(order="C")


def le_str(dt):
    dt = np.dtype(dt)
    return dt.newbyteorder("<").str if dt.itemsize > 1 else dt.str


# --- array specs --------------------------------------------------------------------------
# A spec: name, dtype (with byte order for format 2; format 3 byte order comes from `endian`),
# shape, chunks, fill, regions (None: write everything; else a list of index tuples to write,
# leaving the other chunks missing), attrs, and format-specific options.

S1, C1 = (37,), (10,)
S2, C2 = (23, 17), (8, 5)
S3, C3 = (9, 7, 6), (4, 3, 5)
SHAPES = [(S1, C1), (S2, C2), (S3, C3)]

# Regions that leave whole chunks missing (and one chunk half written) for S1/S2/S3.
PARTIAL = {
    1: [(slice(0, 10),), (slice(20, 25),)],
    2: [(slice(0, 8), slice(0, 17)), (slice(16, 23), slice(5, 10))],
    3: [(slice(0, 4), slice(0, 7), slice(0, 6)), (slice(8, 9), slice(3, 6), slice(5, 6))],
}


def v2_specs():
    from numcodecs import Blosc, GZip, Zlib, Zstd
    comps = {
        "blosc": lambda: Blosc(cname="lz4", clevel=5, shuffle=1),
        "zstd": lambda: Zstd(level=3),
        "zlib": lambda: Zlib(level=6),
        "gzip": lambda: GZip(level=5),
        "none": lambda: None,
    }
    names = list(comps)
    out = []

    def add(name, dtype, shape, chunks, comp, **kw):
        spec = dict(name="v2_" + name, dtype=dtype, shape=shape, chunks=chunks, compressor=comp,
                    fill=kw.pop("fill", 0), regions=kw.pop("regions", None),
                    attrs=kw.pop("attrs", None), order=kw.pop("order", "C"),
                    sep=kw.pop("sep", "."))
        assert not kw, kw
        out.append(spec)

    # Every dtype, little-endian, cycling through the compressors and ranks.
    for k, d in enumerate(DTYPES):
        s, c = SHAPES[k % 3]
        cn = names[k % len(names)]
        add(f"{d}_le_{cn}", np.dtype(d).newbyteorder("<").str if np.dtype(d).itemsize > 1 else d,
            s, c, comps[cn]())
    # Every multi-byte dtype big-endian.
    for k, d in enumerate(DTYPES):
        if np.dtype(d).itemsize == 1:
            continue
        s, c = SHAPES[(k + 1) % 3]
        cn = names[(k + 2) % len(names)]
        add(f"{d}_be_{cn}", np.dtype(d).newbyteorder(">").str, s, c, comps[cn]())
    # Blosc: every cname with every shuffle (typesize from the dtype, as numcodecs does).
    bdt = ["<f8", "<i4", "<u2", "<f4", "|u1"]
    for i, cname in enumerate(["lz4", "lz4hc", "blosclz", "zstd", "zlib"]):
        for shuffle in (0, 1, 2):
            d = bdt[(i + shuffle) % len(bdt)]
            s, c = SHAPES[(i + shuffle) % 3]
            add(f"blosc_{cname}_shuffle{shuffle}_{np.dtype(d).name}", d, s, c,
                Blosc(cname=cname, clevel=1 + (i + shuffle) % 9, shuffle=shuffle))
    add("blosc_blocksize", "<f8", (64, 33), (32, 16), Blosc(cname="lz4", clevel=5, shuffle=1, blocksize=1024))
    # Compressor levels.
    add("zstd_level1_i8", "<i8", S2, C2, Zstd(level=1))
    add("zstd_level19_f4", "<f4", S1, C1, Zstd(level=19))
    add("zlib_level1_u4", "<u4", S3, C3, Zlib(level=1))
    add("gzip_level9_i2", "<i2", S2, C2, GZip(level=9))
    # Fortran order.
    add("order_f_f8_zstd", "<f8", S2, C2, Zstd(level=3), order="F")
    add("order_f_i4_3d_blosc", "<i4", S3, C3, Blosc(cname="zstd", clevel=3, shuffle=2), order="F")
    add("order_f_u2_be_none", ">u2", S2, C2, None, order="F")
    add("order_f_1d_bool", "|b1", S1, C1, Zlib(level=3), order="F")
    add("order_f_f4_be_missing", ">f4", S3, C3, GZip(level=4), order="F", fill=np.nan,
        regions=PARTIAL[3])
    # dimension_separator '/'.
    add("sep_slash_1d_f8", "<f8", S1, C1, Zstd(level=3), sep="/")
    add("sep_slash_2d_i2_blosc", "<i2", S2, C2, Blosc(cname="lz4hc", clevel=4, shuffle=1), sep="/")
    add("sep_slash_3d_u8_f", "<u8", S3, C3, None, sep="/", order="F")
    add("sep_slash_missing_i4", ">i4", S2, C2, Zlib(level=2), sep="/", fill=-5, regions=PARTIAL[2])
    # Fill values and missing chunks.
    add("fill_nan_f8", "<f8", S2, C2, Zstd(level=3), fill=np.nan, regions=PARTIAL[2])
    add("fill_nan_f4_1d", "<f4", S1, C1, Blosc(cname="blosclz", clevel=5, shuffle=0), fill=np.nan,
        regions=PARTIAL[1])
    add("fill_inf_f8_3d", "<f8", S3, C3, None, fill=np.inf, regions=PARTIAL[3])
    add("fill_neginf_f4", "<f4", S2, C2, GZip(level=1), fill=-np.inf, regions=PARTIAL[2])
    add("fill_neginf_f8_be", ">f8", S1, C1, Zlib(level=1), fill=-np.inf, regions=PARTIAL[1])
    add("fill_value_f8", "<f8", S2, C2, Zstd(level=3), fill=-2.5, regions=PARTIAL[2])
    add("fill_42_i4", "<i4", S1, C1, Zstd(level=3), fill=42, regions=PARTIAL[1])
    add("fill_neg7_i2_be", ">i2", S3, C3, Blosc(cname="zstd", clevel=5, shuffle=2), fill=-7,
        regions=PARTIAL[3])
    add("fill_255_u1", "|u1", S2, C2, None, fill=255, regions=PARTIAL[2])
    add("fill_u8_max", "<u8", S1, C1, Zlib(level=5), fill=2**64 - 1, regions=PARTIAL[1])
    add("fill_i8_min", "<i8", S2, C2, None, fill=-2**63, regions=PARTIAL[2])
    add("fill_true_bool", "|b1", S2, C2, Zstd(level=3), fill=True, regions=PARTIAL[2])
    add("fill_zero_missing_u4", "<u4", S3, C3, GZip(level=5), fill=0, regions=PARTIAL[3])
    add("fill_none_f8_all_written", "<f8", S1, C1, Zstd(level=3), fill=None)
    add("no_chunk_written_i4", "<i4", S2, C2, Zstd(level=3), fill=9, regions=[])
    # Shapes: 0-d, chunk larger than the array, one chunk, an empty array, 4-d.
    add("scalar_f8", "<f8", (), (), Zstd(level=3))
    add("scalar_i2_be_none", ">i2", (), (), None)
    add("chunk_bigger_than_shape_u2", "<u2", (5, 3), (10, 10), Zlib(level=1))
    add("single_chunk_f4", "<f4", (6, 4), (6, 4), Blosc(cname="lz4", clevel=5, shuffle=1))
    add("empty_0x5_f8", "<f8", (0, 5), (3, 2), Zstd(level=3))
    add("4d_i1", "|i1", (5, 4, 3, 7), (2, 3, 3, 4), Blosc(cname="zlib", clevel=2, shuffle=0))
    # Attributes.
    out[0]["attrs"] = {"title": "bool array", "n": 3}
    add("attrs_f8", "<f8", S2, C2, Zstd(level=3),
        attrs={"units": "m/s", "scale": 0.5, "tags": ["a", "b"], "nested": {"k": [1, 2, None]}})
    add("attrs_empty_i4", "<i4", S1, C1, None, attrs={})
    return out


def v3_specs():
    from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,
                             TransposeCodec, ZstdCodec)
    comps = {
        "zstd": lambda: [ZstdCodec(level=3)],
        "gzip": lambda: [GzipCodec(level=5)],
        "blosc": lambda: [BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")],
        "none": lambda: [],
    }
    names = list(comps)
    out = []

    def add(name, dtype, shape, chunks, compressors, **kw):
        spec = dict(name="v3_" + name, dtype=dtype, shape=shape, chunks=chunks,
                    compressors=compressors, fill=kw.pop("fill", 0), regions=kw.pop("regions", None),
                    attrs=kw.pop("attrs", None), endian=kw.pop("endian", "little"),
                    transpose=kw.pop("transpose", None), shards=kw.pop("shards", None),
                    index_location=kw.pop("index_location", "end"),
                    index_codecs=kw.pop("index_codecs", None),
                    key=kw.pop("key", ("default", "/")))
        assert not kw, kw
        out.append(spec)

    for k, d in enumerate(DTYPES):
        s, c = SHAPES[k % 3]
        cn = names[k % len(names)]
        add(f"{d}_{cn}", d, s, c, comps[cn]())
    for k, d in enumerate(DTYPES):
        if np.dtype(d).itemsize == 1:
            continue
        s, c = SHAPES[(k + 1) % 3]
        cn = names[(k + 2) % len(names)]
        add(f"{d}_big_{cn}", d, s, c, comps[cn](), endian="big")
    # Transpose.
    add("transpose_2d_f8", "float64", S2, C2, [ZstdCodec(level=3)], transpose=(1, 0))
    add("transpose_3d_i4_big", "int32", S3, C3, [GzipCodec(level=3)], transpose=(2, 0, 1), endian="big")
    add("transpose_3d_u2", "uint16", S3, C3, [], transpose=(1, 2, 0))
    add("transpose_missing_f4", "float32", S2, C2, [BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")],
        transpose=(1, 0), fill=np.nan, regions=PARTIAL[2])
    # Blosc: every cname and every shuffle.
    bdt = ["float64", "int32", "uint16", "float32", "uint8"]
    for i, cname in enumerate(["lz4", "lz4hc", "blosclz", "zstd", "zlib"]):
        for j, shuffle in enumerate(["noshuffle", "shuffle", "bitshuffle"]):
            if (i + j) % 2:
                continue
            d = bdt[(i + j) % len(bdt)]
            s, c = SHAPES[(i + j) % 3]
            add(f"blosc_{cname}_{shuffle}_{d}", d, s, c,
                [BloscCodec(cname=cname, clevel=1 + (i + j) % 9, shuffle=shuffle)])
    add("blosc_typesize_mismatch_f8", "float64", S2, C2,
        [BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4)])
    # crc32c.
    add("crc32c_only_i8", "int64", S2, C2, [Crc32cCodec()])
    add("crc32c_zstd_f4", "float32", S3, C3, [ZstdCodec(level=5), Crc32cCodec()])
    add("crc32c_gzip_u4_big", "uint32", S1, C1, [GzipCodec(level=6), Crc32cCodec()], endian="big")
    # Sharding.
    add("shard_2d_f8_end", "float64", (45, 31), (5, 4), [ZstdCodec(level=3)], shards=(15, 12))
    add("shard_2d_i4_start", "int32", (45, 31), (5, 4), [BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")],
        shards=(15, 12), index_location="start")
    add("shard_1d_u2_crc", "uint16", (103,), (8,), [GzipCodec(level=5), Crc32cCodec()], shards=(32,))
    add("shard_3d_f4_big_start", "float32", (11, 9, 7), (2, 3, 4), [], shards=(4, 6, 8), endian="big",
        index_location="start")
    add("shard_missing_f8_nan", "float64", (40, 30), (5, 5), [ZstdCodec(level=1)], shards=(20, 10),
        fill=np.nan, regions=[(slice(0, 5), slice(0, 10)), (slice(22, 40), slice(12, 30))])
    add("shard_index_no_crc_i8", "int64", (30, 20), (5, 5), [ZstdCodec(level=3)], shards=(10, 10),
        index_codecs=[BytesCodec(endian="little")])
    add("shard_index_big_u1", "uint8", (30, 20), (5, 5), [], shards=(10, 20),
        index_codecs=[BytesCodec(endian="big"), Crc32cCodec()])
    add("shard_one_chunk_per_shard_bool", "bool", S2, C2, [ZstdCodec(level=3)], shards=C2)
    add("shard_transpose_inner_i2", "int16", (20, 12), (4, 3), [ZstdCodec(level=3)], shards=(8, 6),
        transpose=(1, 0))
    # Chunk key encodings.
    add("key_default_dot_f8", "float64", S3, C3, [ZstdCodec(level=3)], key=("default", "."))
    add("key_v2_dot_i4", "int32", S2, C2, [GzipCodec(level=5)], key=("v2", "."))
    add("key_v2_slash_u8", "uint64", S3, C3, [], key=("v2", "/"))
    add("key_v2_dot_missing_f4", "float32", S2, C2, [ZstdCodec(level=3)], key=("v2", "."),
        fill=-np.inf, regions=PARTIAL[2])
    add("key_default_dot_shard_i2", "int16", (30, 20), (5, 5), [], shards=(10, 10), key=("default", "."))
    # Fill values and missing chunks.
    add("fill_nan_f8", "float64", S2, C2, [ZstdCodec(level=3)], fill=np.nan, regions=PARTIAL[2])
    add("fill_inf_f4", "float32", S1, C1, [GzipCodec(level=5)], fill=np.inf, regions=PARTIAL[1])
    add("fill_neginf_f8_big", "float64", S3, C3, [], fill=-np.inf, regions=PARTIAL[3], endian="big")
    add("fill_value_f4", "float32", S2, C2, [ZstdCodec(level=3)], fill=1.5, regions=PARTIAL[2])
    add("fill_42_i4", "int32", S1, C1, [ZstdCodec(level=3)], fill=42, regions=PARTIAL[1])
    add("fill_neg7_i8_big", "int64", S3, C3, [BloscCodec(cname="zstd", clevel=5, shuffle="bitshuffle")],
        fill=-7, regions=PARTIAL[3], endian="big")
    add("fill_u8_max", "uint64", S1, C1, [], fill=2**64 - 1, regions=PARTIAL[1])
    add("fill_true_bool", "bool", S2, C2, [GzipCodec(level=1)], fill=True, regions=PARTIAL[2])
    add("no_chunk_written_u2", "uint16", S2, C2, [ZstdCodec(level=3)], fill=7, regions=[])
    # Shapes.
    add("scalar_f8", "float64", (), (), [ZstdCodec(level=3)])
    add("scalar_u4_big", "uint32", (), (), [], endian="big")
    add("chunk_bigger_than_shape_i2", "int16", (5, 3), (10, 10), [GzipCodec(level=1)])
    add("empty_0x5_f4", "float32", (0, 5), (3, 2), [ZstdCodec(level=3)])
    add("4d_u1", "uint8", (5, 4, 3, 7), (2, 3, 3, 4), [BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")])
    # numcodecs' zlib through zarr 3 ("numcodecs.zlib").
    try:
        from zarr.codecs.numcodecs import Zlib as NZlib  # zarr >= 3.1
    except ImportError:
        NZlib = None
    if NZlib is not None:
        add("numcodecs_zlib_i4", "int32", S2, C2, [NZlib(level=4)])
    # Attributes.
    out[0]["attrs"] = {"title": "bool array", "n": 3}
    add("attrs_f8", "float64", S2, C2, [ZstdCodec(level=3)],
        attrs={"units": "m/s", "scale": 0.5, "tags": ["a", "b"], "nested": {"k": [1, 2, None]}})
    add("attrs_empty_i4", "int32", S1, C1, [], attrs={})
    return out


# --- writing ------------------------------------------------------------------------------

def create_v2(path, spec):
    dt = np.dtype(spec["dtype"])
    if ZARR_MAJOR >= 3:
        return zarr.create_array(
            store=path, shape=spec["shape"], chunks=spec["chunks"], dtype=dt,
            compressors=spec["compressor"], filters=None, fill_value=spec["fill"],
            order=spec["order"], zarr_format=2, attributes=spec["attrs"],
            chunk_key_encoding={"name": "v2", "separator": spec["sep"]},
            config={"write_empty_chunks": True})
    z = zarr.open_array(path, mode="w", shape=spec["shape"], chunks=spec["chunks"], dtype=dt,
                        compressor=spec["compressor"], fill_value=spec["fill"],
                        order=spec["order"], dimension_separator=spec["sep"],
                        write_empty_chunks=True)
    if spec["attrs"] is not None:
        z.attrs.update(spec["attrs"])
    return z


def create_v3(path, spec):
    from zarr.codecs import BytesCodec, ShardingCodec, TransposeCodec
    dt = np.dtype(spec["dtype"])
    bytes_codec = BytesCodec(endian=spec["endian"]) if dt.itemsize > 1 else BytesCodec()
    filters = [TransposeCodec(order=spec["transpose"])] if spec["transpose"] else []
    kind, sep = spec["key"]
    kw = dict(store=path, shape=spec["shape"], dtype=dt, fill_value=spec["fill"], zarr_format=3,
              attributes=spec["attrs"], chunk_key_encoding={"name": kind, "separator": sep})
    if spec["shards"] is None:
        return zarr.create_array(chunks=spec["chunks"], filters=filters, serializer=bytes_codec,
                                 compressors=spec["compressors"], **kw)
    inner = filters + [bytes_codec] + list(spec["compressors"])
    sh = dict(chunk_shape=spec["chunks"], codecs=inner, index_location=spec["index_location"])
    if spec["index_codecs"] is not None:
        sh["index_codecs"] = spec["index_codecs"]
    return zarr.create_array(chunks=spec["shards"], serializer=ShardingCodec(**sh),
                             filters=[], compressors=[], **kw)


def write_array(outdir, spec, fmt, rng):
    name = spec["name"]
    path = os.path.join(outdir, name)
    z = create_v2(path, spec) if fmt == 2 else create_v3(path, spec)
    dt = np.dtype(spec["dtype"]).newbyteorder("=")
    shape = tuple(spec["shape"])
    data = random_values(rng, dt, shape)
    fill = spec["fill"]
    expected = np.full(shape, 0 if fill is None else fill, dtype=dt)
    if spec["regions"] is None:
        z[...] = data
        expected[...] = data
    else:
        for r in spec["regions"]:
            z[r] = data[r]
            expected[r] = data[r]
    # Read it back with zarr: what Tessera must read too.
    back = zarr.open_array(path, mode="r")[...]
    back = np.asarray(back)
    if back.shape != shape or le_bytes(back.astype(dt)) != le_bytes(expected):
        raise SystemExit(f"zarr_py_write: {name}: zarr reads back other values than it was given")
    os.makedirs(os.path.join(outdir, "expected"), exist_ok=True)
    with open(os.path.join(outdir, "expected", name + ".bin"), "wb") as f:
        f.write(le_bytes(expected))

    # Metadata as written, for the manifest.
    if fmt == 2:
        meta = json.load(open(os.path.join(path, ".zarray")))
        codecs = [] if meta["compressor"] is None else [meta["compressor"]]
        stored = meta["dtype"]
        order = meta["order"]
        fill_written = meta["fill_value"]
    else:
        meta = json.load(open(os.path.join(path, "zarr.json")))
        codecs = meta["codecs"]
        stored_little = spec["endian"] == "little" or dt.itemsize == 1
        stored = np.dtype(dt).newbyteorder("<" if stored_little else ">").str
        order = "C"
        fill_written = meta["fill_value"]
    return {
        "name": name,
        "path": name,
        "format": fmt,
        "dtype": le_str(dt),
        "stored_dtype": stored,
        "shape": list(shape),
        "chunks": list(spec["chunks"]),
        "shards": list(spec["shards"]) if fmt == 3 and spec["shards"] is not None else [],
        "order": order,
        "fill_value": fill_json(fill, dt),
        "fill_value_written": fill_written,
        "codecs_written": codecs,
        "attributes": spec["attrs"] if spec["attrs"] is not None else {},
        "partial": spec["regions"] is not None,
        "expected": os.path.join("expected", name + ".bin"),
        "writer": f"zarr {zarr.__version__} (Python {sys.version.split()[0]}, NumPy {np.__version__})",
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--format", type=int, choices=(2, 3), required=True)
    ap.add_argument("--seed", type=int, default=20240614)
    a = ap.parse_args()
    if a.format == 3 and ZARR_MAJOR < 3:
        raise SystemExit(f"zarr_py_write: format 3 needs zarr >= 3, this is zarr {zarr.__version__}")
    import warnings
    warnings.filterwarnings("ignore")  # zarr 3: numcodecs.zlib 'unstable specification', etc.
    if os.path.exists(a.outdir):
        shutil.rmtree(a.outdir)
    os.makedirs(a.outdir)
    rng = np.random.default_rng(a.seed)
    specs = v2_specs() if a.format == 2 else v3_specs()
    names = [s["name"] for s in specs]
    assert len(names) == len(set(names)), "duplicate array names"
    manifest = [write_array(a.outdir, s, a.format, rng) for s in specs]
    with open(os.path.join(a.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"zarr_py_write: {len(manifest)} format-{a.format} arrays written with zarr "
          f"{zarr.__version__} (seed {a.seed}) to {a.outdir}")


if __name__ == "__main__":
    main()
