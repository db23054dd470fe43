#!/usr/bin/python3
"""Differential test of Tessera against NumPy (issue 18).

Generates N random cases in the case language of tests/differential/case.hpp (random views,
transposes, elementwise ops, rechunks and reductions on random shapes, chunkings and dtypes),
runs them through the tessera_diff executable (each case is ONE fused lazy Tessera expression),
evaluates the same cases with NumPy and compares. The seed is printed; TESSERA_DIFF_SEED (or
--seed) replays a run, TESSERA_DIFF_CASES (or --cases) sets the count. On a mismatch it prints
the seed, the case line and both results, and exits 1.

    diff_numpy.py --exe build/tests/tessera_diff [--cases 20000] [--seed S] [--case 'LINE']

Comparison rules (Tessera's documented semantics where they deliberately differ from NumPy
1.24, which is what Debian 12's /usr/bin/python3 has):
  * dtype and shape must match exactly; values of integer, bool and view results bitwise.
  * Type promotion: NEP 50 weak scalars (docs/api.md) are emulated by computing NumPy's op on
    operands cast to Tessera's result type, as NumPy 1.24 would do value-based casting.
    Transcendental functions of int8/uint8/bool give float32 in Tessera (C++ has no float16,
    NumPy gives float16): NumPy is evaluated on float32 there. Float -> integer astype
    saturates and maps NaN to 0 (documented; NumPy's result is platform-dependent).
  * Elementwise + - * / sqrt abs neg max min where astype and comparisons are correctly rounded
    in both: bitwise. exp log sin cos pow (libm vs NumPy's SIMD kernels): within 4 ulp.
  * Floating sums and means: |t - n| <= 2 (m + 2) eps sum|x| (mean: divided by m), m the number
    of reduced elements per output element, eps that of the result type: NumPy's sum is naive
    along strided axes (error bound (m - 1) eps sum|x|) and pairwise along the contiguous one,
    Tessera's pairwise + Neumaier-compensated (about 2 eps sum|x|), so the bound covers both
    orders; float32 sum/mean/prod/var are documented as computed in double and rounded once, so
    NumPy computes those in float64 and rounds to float32 as the reference.
  * prod: relative 2 (m + 2) eps; where a slice holds a zero and factors that overflow, NaN
    (0 * inf) against 0 or +-inf is the order of the multiplications and accepted. var: 4 (m + 4) eps sum(x^2) / max(m - ddof, 1) (two-pass
    NumPy vs Tessera's single-pass Chan merge; both are backward stable in sum x^2); std: the
    var bound divided by (t + n), plus 2 ulp. After a transcendental op the 4-ulp element error
    is added (4 eps sum|x|).
  * amin/amax: equal values (-0.0 == 0.0, which either may return for a tie); argmin/argmax:
    equal indices (first occurrence, first NaN), except after transcendental ops (not generated).
  * NaN and infinities: same positions and signs (NaN == NaN).
  * argmin/argmax of a 0-d array with axis=0 or -1: NumPy returns 0, Tessera (like every
    other NumPy reduction) raises "axis out of range": the error is expected.
  * Errors: where NumPy raises (IndexError, ValueError, TypeError, AxisError), Tessera must
    throw tessera::out_of_range or tessera::invalid_argument, and conversely. Rechunk errors
    (NumPy has no rechunk) follow Tessera's documented chunk rules.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time

import warnings

import numpy as np

warnings.simplefilter("ignore")
np.seterr(all="ignore")

DT = {"f8": np.float64, "f4": np.float32, "i8": np.int64, "i4": np.int32, "u1": np.uint8,
      "b1": np.bool_}
NAME = {np.dtype(v): k for k, v in DT.items()}
NAME[np.dtype(np.uint64)] = "u8"  # sums and products of unsigned (results only)
SIZE = {"f8": 8, "f4": 4, "i8": 8, "i4": 4, "u1": 1, "b1": 1}
FLOAT = ("f8", "f4")
TRANSC = ("exp", "log", "sin", "cos", "pow")
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


# ------------------------------------------------------------------------------------------
# Tessera's type rules (core/promote.hpp)

def promote(a, b):
    if a == b:
        return a
    if a == "b1":
        return b
    if b == "b1":
        return a
    fa, fb = a in FLOAT, b in FLOAT
    if fa and fb:
        return a if SIZE[a] >= SIZE[b] else b
    if fa or fb:
        f, i = (a, b) if fa else (b, a)
        return f if (SIZE[f] >= 8 or SIZE[i] <= 2) else "f8"
    sa, sb = a != "u1", b != "u1"
    if sa == sb:
        return a if SIZE[a] >= SIZE[b] else b
    s, u = (a, b) if sa else (b, a)
    if SIZE[s] > SIZE[u]:
        return s
    raise ValueError("unsupported promotion in the harness")


def weak(t, s_is_float):
    if t in FLOAT:
        return t
    if s_is_float:
        return "f8"
    return "i8" if t == "b1" else t


def float_of(t):
    return t if t in FLOAT else ("f4" if SIZE[t] <= 2 else "f8")


# ------------------------------------------------------------------------------------------
# Input data (tdiff::data_value)

def mix(seed, n):
    with np.errstate(over="ignore"):
        i = np.arange(n, dtype=np.uint64)
        z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + (i + np.uint64(1)) * np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(30)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z


def data(dt, kind, seed, shape):
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    h = mix(seed, n)
    small = (h % np.uint64(21)).astype(np.int64) - 10
    if dt == "b1":
        v = (h % np.uint64(4)) != 0 if kind == "i" else (h & np.uint64(1)) != 0
    elif dt in FLOAT:
        dyadic = ((h % np.uint64(257)).astype(np.int64) - 128).astype(np.float64) / 16.0
        if kind == "i":
            v = small.astype(np.float64)
        elif kind == "f":
            v = dyadic
        elif kind == "s":
            r = h % np.uint64(16)
            v = dyadic.copy()
            v[r == 0] = np.nan
            v[r == 1] = np.inf
            v[r == 2] = -np.inf
            v[r == 3] = -0.0
        else:
            u = (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
            e = (h & np.uint64(7)).astype(np.int64) - 3
            v = (2.0 * u - 1.0) * np.ldexp(1.0, e)
        v = v.astype(DT[dt])
    else:
        if kind in "wg":
            v = h.astype(DT[dt])  # modulo 2^bits
        else:
            v = small.astype(DT[dt])
    return np.asarray(v).reshape(shape)


# ------------------------------------------------------------------------------------------
# Parsing the case language (the same grammar as case.hpp)

def parse_sub(text):
    if text == "":
        return ()
    out = []
    for p in text.split(","):
        if p == "None":
            out.append(None)
        elif p == "...":
            out.append(Ellipsis)
        elif ":" in p:
            f = p.split(":")
            g = [int(x) if x != "" else None for x in f] + [None] * (3 - len(f))
            out.append(slice(g[0], g[1], g[2]))
        else:
            out.append(int(p))
    return tuple(out)


def apply_view(x, tok):
    if tok.startswith("v["):
        idx = parse_sub(tok[2:-1])
        if any(isinstance(i, slice) and i.step == 0 for i in idx):
            raise ValueError("slice step cannot be zero")
        return np.asarray(x[idx])
    if tok == "t":
        return np.transpose(x)
    if tok.startswith("t("):
        axes = [int(a) for a in tok[2:-1].split(",")] if tok[2:-1] else []
        return np.transpose(x, axes)
    if tok.startswith("sw("):
        a, b = [int(v) for v in tok[3:-1].split(",")]
        return np.swapaxes(x, a, b)
    raise AssertionError(tok)


def parse_chunks(text):
    if text == "":
        return []
    return [[int(v) for v in ax.split(",")] for ax in text.split("/")]


def check_chunks(spec, shape):
    """Tessera's chunk rules (core/grid.hpp); raises ValueError like Tessera throws."""
    if len(spec) != len(shape):
        raise ValueError("chunks rank")
    for ax, n in zip(spec, shape):
        if len(ax) == 1:
            if ax[0] == -1 or ax[0] > 0:
                continue
            if ax[0] == 0 and n == 0:  # an explicit {0} on an empty axis
                continue
            raise ValueError("chunk length")
        if any(c < 0 or (c == 0 and n != 0) for c in ax) or sum(ax) != n:
            raise ValueError("chunk list")


def scalar(tok):
    return (True, float(tok[1:])) if tok[0] == "f" else (False, int(tok[1:]))


def as_type(v, t):
    return np.asarray(v).astype(DT[t])


def saturating_cast(y, to):
    """ops::cast_to: float -> integer truncates; NaN -> 0; out of range saturates."""
    info = np.iinfo(DT[to])
    t = np.trunc(y.astype(np.float64))
    t = np.where(np.isnan(t), 0.0, t)
    top = float(2 ** (info.bits - 1 if info.min < 0 else info.bits))
    bottom = -top if info.min < 0 else 0.0
    out = np.where(t >= top, 0.0, np.where(t < bottom, 0.0, t)).astype(DT[to])
    out = np.where(t >= top, info.max, out).astype(DT[to])
    out = np.where(t < bottom, info.min, out).astype(DT[to])
    return out


def apply_op(x, t, spec):
    """Returns (y, dtype name, transcendental?)."""
    if "@" in spec:
        name, other = spec.split("@", 1)
        y2 = apply_view(x, other)
        return binary(name, x, t, y2, t, left=False), None, name == "pow"
    f = spec.split(",")
    name = f[0]
    if len(f) == 1:
        if name == "neg":
            if t == "b1":
                raise TypeError("negative of bool")
            return np.negative(x), t, False
        if name == "abs":
            return np.abs(x), t, False
        ft = float_of(t)
        xf = x.astype(DT[ft])
        return getattr(np, {"sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos"}[name])(xf), ft, name != "sqrt"
    if name == "astype":
        to = f[1]
        if t in FLOAT and to not in FLOAT and to != "b1":
            return saturating_cast(x, to), to, False
        return x.astype(DT[to]), to, False
    if name == "where":
        isf1, s1 = scalar(f[1])
        isf2, s2 = scalar(f[2])
        c1 = promote(t, weak(t, isf1))
        cond = x.astype(DT[c1]) > as_type(s1, weak(t, isf1)).astype(DT[c1])
        c2 = promote(t, weak(t, isf2))
        return np.where(cond, x.astype(DT[c2]), as_type(s2, weak(t, isf2)).astype(DT[c2])), c2, False
    left = name.startswith("r")
    if left:
        name = name[1:]
    isf, s = scalar(f[1])
    if name == "pow" and not isf and s < 0 and t not in FLOAT and not left:
        # NumPy raises "Integers to negative integer powers are not allowed" (1.24: the scalar
        # does not fit uint8 and promotes to int16; 2.x: OverflowError for uint8), but only
        # when some element is computed; Tessera raises when the expression is built, even
        # for an empty array (docs/api.md).
        raise ValueError("Integers to negative integer powers are not allowed")
    w = weak(t, isf)
    sv = as_type(s, w)
    return binary(name, x, t, sv, w, left), None, name == "pow"


def binary(name, a, ta, b, tb, left):
    c = promote(ta, tb)
    A, B = a.astype(DT[c]), np.asarray(b).astype(DT[c])
    if left:
        A, B = B, A
    if name in ("add", "sub", "mul"):
        if c == "b1" and name == "sub":
            raise TypeError("bool subtract")
        return {"add": np.add, "sub": np.subtract, "mul": np.multiply}[name](A, B)
    if name == "div":
        ft = c if c in FLOAT else "f8"
        return np.true_divide(A.astype(DT[ft]), B.astype(DT[ft]))
    if name in ("max", "min"):
        return (np.maximum if name == "max" else np.minimum)(A, B)
    if name == "pow":
        if c == "b1":
            raise TypeError("bool power")
        return np.power(A, B)
    return {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
            "eq": np.equal, "ne": np.not_equal}[name](A, B)


REDN = ("sum", "prod", "mean", "var", "std", "amin", "amax", "argmin", "argmax", "any", "all", "cnz")


def reduce_np(y, spec):
    f = spec.split(",")
    name = f[0]
    axes, keep, ddof = None, False, 0
    for o in f[1:]:
        if o == "k":
            keep = True
        elif o.startswith("ax="):
            axes = tuple(int(a) for a in o[3:].split(".")) if o[3:] else ()
        elif o.startswith("dd="):
            ddof = int(o[3:])
    t = NAME[y.dtype]
    if name in ("argmin", "argmax"):
        ax = axes
        if axes is not None:
            if len(axes) != 1:
                raise TypeError("argmin takes one axis")
            ax = axes[0]
            if y.ndim == 0:
                # NumPy quirk: argmin/argmax of a 0-d array accept axis 0 and -1 (they ravel
                # it first) while every other reduction raises AxisError; Tessera raises for
                # all of them (deliberate, consistent). Expect the error.
                raise ValueError("axis out of range for a 0-d array (Tessera's rule)")
        r = (np.argmin if name == "argmin" else np.argmax)(y, axis=ax, keepdims=keep)
        return np.asarray(r, dtype=np.int64), None
    if name == "cnz":
        r = np.count_nonzero(y, axis=axes, keepdims=keep)
        return np.asarray(r, dtype=np.int64), None
    if name in ("amin", "amax", "any", "all"):
        fn = {"amin": np.amin, "amax": np.amax, "any": np.any, "all": np.all}[name]
        return np.asarray(fn(y, axis=axes, keepdims=keep)), None
    # sum prod mean var std: float32 computed in double and rounded once (documented)
    yd = y.astype(np.float64) if t == "f4" else y
    with np.errstate(all="ignore"):
        if name == "sum":
            r = np.sum(yd, axis=axes, keepdims=keep)
        elif name == "prod":
            r = np.prod(yd, axis=axes, keepdims=keep)
        elif name == "mean":
            r = np.mean(yd, axis=axes, keepdims=keep)
        elif name == "var":
            r = np.var(yd, axis=axes, keepdims=keep, ddof=ddof)
        else:
            r = np.std(yd, axis=axes, keepdims=keep, ddof=ddof)
    r = np.asarray(r)
    if t == "f4":
        r = r.astype(np.float32)
    # error bound inputs, per output element
    yf = np.abs(y.astype(np.float64))
    with np.errstate(all="ignore"):
        s1 = np.asarray(np.sum(np.where(np.isfinite(yf), yf, 0.0), axis=axes, keepdims=keep))
        s2 = np.asarray(np.sum(np.where(np.isfinite(yf), yf * yf, 0.0), axis=axes, keepdims=keep))
    m = y.size // max(r.size, 1) if y.size else 0
    if axes is not None:
        nd = y.ndim
        m = int(np.prod([y.shape[a % nd] for a in axes], dtype=np.int64)) if axes else 1
    return r, (name, m, s1, s2, ddof)


def evaluate(line):
    """('ok', dtype, shape, array, tol) or ('err', message)."""
    tok = line.split()
    t = tok[1]
    shape = tuple(int(v) for v in tok[2][2:].split(",")) if tok[2][2:] else ()
    kind, seed = tok[4][2], int(tok[4][3:])
    try:
        check_chunks(parse_chunks(tok[3][2:]), shape)
        x = data(t, kind, seed, shape)
        transc = False
        tol = None
        with np.errstate(all="ignore"):
            for s in tok[6:]:
                if s.startswith("op="):
                    x, _, transc = apply_op(x, t, s[3:])
                    x = np.asarray(x)
                    t = NAME[x.dtype]
                elif s.startswith("rc="):
                    check_chunks(parse_chunks(s[3:]), x.shape)
                elif s.startswith("r="):
                    x, tol = reduce_np(x, s[2:])
                    t = NAME[x.dtype]
                else:
                    x = apply_view(x, s)
        return ("ok", NAME[x.dtype], x.shape, x, tol, transc)
    except (IndexError, ValueError, TypeError) as e:
        return ("err", f"{type(e).__name__}: {e}")


# ------------------------------------------------------------------------------------------
# Comparison

EPS = {"f8": 2.0 ** -52, "f4": 2.0 ** -23}


def decode(dt, vals, shape):
    if dt == "f8":
        a = np.array([int(v, 16) for v in vals], dtype=np.uint64).view(np.float64)
    elif dt == "f4":
        a = np.array([int(v, 16) for v in vals], dtype=np.uint32).view(np.float32)
    elif dt == "u1":
        a = np.array([int(v) & 0xFF for v in vals], dtype=np.uint8)
    elif dt == "u8":
        a = np.array([int(v) & 0xFFFFFFFFFFFFFFFF for v in vals], dtype=np.uint64)
    elif dt == "b1":
        a = np.array([int(v) != 0 for v in vals], dtype=np.bool_)
    else:
        a = np.array([int(v) for v in vals], dtype=np.int64).astype(DT[dt])
    return a.reshape(shape)


def ulp(a):
    return np.spacing(np.abs(a).astype(a.dtype)).astype(np.float64)


def compare(ref, out):
    """None if equal within the rules, else a reason."""
    f = out.split(" ", 2)
    status = f[1]
    if ref[0] == "err":
        if status == "err":
            return None
        return f"NumPy raised ({ref[1]}) but Tessera did not"
    if status != "ok":
        return f"NumPy computed a result but Tessera gave: {out}"
    _, dt, shape, want, tol, transc = ref
    rest = f[2].split(" ")
    tdt = rest[0]
    tshape = tuple(int(v) for v in rest[1][2:].split(",")) if rest[1][2:] else ()
    if tdt != dt:
        return f"dtype: Tessera {tdt}, NumPy {dt}"
    if tshape != tuple(shape):
        return f"shape: Tessera {tshape}, NumPy {tuple(shape)}"
    got = decode(tdt, rest[2:], tshape)
    if dt not in FLOAT:
        return None if np.array_equal(got, want) else "values differ"
    g, w = got.astype(np.float64), want.astype(np.float64)
    gn, wn = np.isnan(g), np.isnan(w)
    if tol is not None and tol[0] == "prod":
        # A product over a slice with a zero whose other factors overflow is 0 * inf = NaN or
        # 0 or inf depending on the order of the multiplications (NaN inputs give NaN in any
        # order): NaN on one side against 0 or +-inf on the other is that order, accepted.
        other = np.where(gn, w, g)
        order = (gn != wn) & ((other == 0) | np.isinf(other))
        g, w = np.where(order, np.nan, g), np.where(order, np.nan, w)
        gn, wn = np.isnan(g), np.isnan(w)
    if not np.array_equal(gn, wn):
        return "NaN positions differ"
    fin = np.isfinite(w)
    if not np.array_equal(g[~fin & ~wn], w[~fin & ~wn]) or not np.array_equal(np.isfinite(g), fin):
        return "infinities differ"
    g, w = g[fin], w[fin]
    eps = EPS[dt]
    if tol is None:
        if transc:
            bound = 4 * ulp(want[fin])
        else:
            return None if np.array_equal(got[fin], want[fin]) else "values differ (bitwise)"
    else:
        name, m, s1, s2, ddof = tol
        s1 = np.broadcast_to(s1, want.shape)[fin]
        s2 = np.broadcast_to(s2, want.shape)[fin]
        extra = 4 * eps * s1 if transc else 0.0
        if name in ("sum",):
            bound = 2 * (m + 2) * eps * s1 + extra
        elif name == "mean":
            bound = (2 * (m + 2) * eps * s1 + extra) / max(m, 1) + ulp(want[fin])
        elif name == "prod":
            bound = 2 * (m + 2) * eps * np.abs(w) * (1 + (4 * m * eps if transc else 0)) + 1e-300
        elif name == "var":
            bound = (4 * (m + 4) * eps * s2 + 2 * extra * s1) / max(m - ddof, 1) + ulp(want[fin])
        elif name == "std":
            vb = (4 * (m + 4) * eps * s2 + 2 * extra * s1) / max(m - ddof, 1)
            with np.errstate(all="ignore"):
                bound = np.where(g + w > 0, vb / np.maximum(g + w, 1e-300), np.sqrt(vb)) + 2 * ulp(want[fin])
        else:
            bound = 4 * ulp(want[fin]) if transc else 0.0
            if not transc:
                return None if np.array_equal(g, w) else "values differ"
    err = np.abs(g - w)
    bad = err > bound
    if np.any(bad):
        i = int(np.argmax(bad))
        return f"beyond tolerance: |{g[i]!r} - {w[i]!r}| = {err[i]:.3g} > {np.asarray(bound).ravel()[i] if np.ndim(bound) else bound:.3g}"
    return None


# ------------------------------------------------------------------------------------------
# Generator

class Gen:
    def __init__(self, rng):
        self.r = rng

    def chunks(self, shape, allow_bad=False):
        r = self.r
        out = []
        for n in shape:
            c = r.random()
            if allow_bad and r.random() < 0.02:
                out.append(r.choice(["0", str(n + 1) + ",1", "-2", "1"]))
                continue
            if c < 0.35:
                out.append(str(r.randint(1, max(n, 1) + 1)))
            elif c < 0.45:
                out.append("-1")
            else:
                if n == 0:
                    out.append("0")
                    continue
                parts, left = [], n
                while left > 0:
                    k = r.randint(1, left)
                    parts.append(k)
                    left -= k
                out.append(",".join(map(str, parts)))
        if allow_bad and r.random() < 0.01:
            out.append("1")
        return "/".join(out)

    def bound(self, n):
        r = self.r
        return str(r.randint(-n - 2, n + 2)) if r.random() < 0.6 else ""

    def subscript(self, shape):
        r = self.r
        nd = len(shape)
        items, k = [], 0
        want = r.randint(0, nd + (1 if r.random() < 0.03 else 0))
        ell = False
        while k < want or (r.random() < 0.15 and len(items) < 6):
            c = r.random()
            if c < 0.12 and nd + items.count("None") < 5:
                items.append("None")
                continue
            if c < 0.2 and (not ell or r.random() < 0.05):
                items.append("...")
                ell = True
                k = nd  # everything after indexes the trailing axes
                continue
            if k >= nd and r.random() > 0.03:
                break
            n = shape[k] if k < nd else 1
            if c < 0.45:
                i = r.randint(-n, n - 1) if n > 0 and r.random() < 0.95 else r.choice([n, -n - 1, 7])
                items.append(str(i))
            elif c < 0.55:
                items.append(":")
            else:
                st = r.choice(["", "1", "-1", "2", "-2", "3", "-3", "4", "-4", "7", "-7"])
                if r.random() < 0.01:
                    st = "0"
                items.append(self.bound(n) + ":" + self.bound(n) + (":" + st if st or r.random() < 0.3 else ""))
            k += 1
        return "v[" + ",".join(items) + "]"

    def view(self, shape):
        r = self.r
        nd = len(shape)
        c = r.random()
        if c < 0.7 or nd == 0:
            return self.subscript(shape)
        if c < 0.8:
            return "t"
        if c < 0.93:
            p = list(range(nd))
            r.shuffle(p)
            p = [a - nd if r.random() < 0.3 else a for a in p]
            if r.random() < 0.03:
                p[0] = p[-1] if nd > 1 else 5
            return "t(" + ",".join(map(str, p)) + ")"
        return f"sw({r.randint(-nd, nd - 1)},{r.randint(-nd, nd - 1 + (1 if r.random() < 0.03 else 0))})"

    def scalar(self, t):
        r = self.r
        if r.random() < 0.5:
            return "i" + str(r.randint(-3, 5))
        return "f" + repr(r.choice([0.5, 2.0, -1.5, 0.0, 3.25, -0.0, 1e-3, 7.0]))

    def op(self, t, shape):
        r = self.r
        nd = len(shape)
        c = r.random()
        if c < 0.25:
            u = ["abs", "sqrt", "exp", "log", "sin", "cos"] + ([] if t == "b1" else ["neg"])
            return r.choice(u)
        if c < 0.35:
            return "astype," + r.choice(list(DT))
        if c < 0.42:
            return f"where,{self.scalar(t)},{self.scalar(t)}"
        b = ["add", "mul", "div", "max", "min", "lt", "le", "gt", "ge", "eq", "ne"]
        if t != "b1":
            b += ["sub", "pow"]
        name = r.choice(b)
        if c < 0.62:
            others = ["v[::-1]", "v[...,::-1]", "v[:1]", "v[...,:1]", "v[...,None]", "v[None]",
                      "t"] if nd else ["v[]", "v[None]"]
            other = r.choice(others) if r.random() < 0.92 else self.view(shape)
            if name == "pow" and t not in FLOAT:
                name = "mul"
            return f"{name}@{other}"
        s = self.scalar(t)
        if name == "pow" and t not in FLOAT and s[0] == "i" and r.random() < 0.9:
            s = "i" + str(r.randint(0, 4))
        if name != "pow" and r.random() < 0.3:
            name = "r" + name
        return f"{name},{s}"

    def reduction(self, nd, transc):
        r = self.r
        names = list(REDN)
        if transc:
            names = [n for n in names if n not in ("argmin", "argmax")]
        name = r.choice(names)
        opts = [name]
        c = r.random()
        if c < 0.35:
            pass
        elif c < 0.65 or name in ("argmin", "argmax"):
            a = r.randint(-nd, nd - 1) if nd and r.random() < 0.97 else r.choice([nd, -nd - 1])
            opts.append(f"ax={a}")
        else:
            axes = [a for a in range(nd) if r.random() < 0.5]
            axes = [a - nd if r.random() < 0.3 else a for a in axes]
            if r.random() < 0.03:
                axes.append(axes[0] if axes else nd)
            r.shuffle(axes)
            opts.append("ax=" + ".".join(map(str, axes)))
        if r.random() < 0.5:
            opts.append("k")
        if name in ("var", "std") and r.random() < 0.5:
            opts.append("dd=1")
        if r.random() < 0.5:
            opts.append(f"se={r.randint(2, 5)}")
        return "r=" + ",".join(opts)

    def case(self, cid):
        r = self.r
        t = r.choice(list(DT))
        nd = r.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
        shape = []
        for _ in range(nd):
            shape.append(r.choice([0, 1, 2, 3, 4, 5, 6, 7]) if r.random() < 0.97 else r.randint(8, 20))
        while int(np.prod(shape)) > 400:
            shape[shape.index(max(shape))] //= 2
        kind = r.choice("iifgsw") if t in FLOAT else r.choice("iiw")
        toks = [str(cid), t, "s=" + ",".join(map(str, shape)), "c=" + self.chunks(shape),
                f"d={kind}{r.randint(0, 2**40)}", f"th={r.choice([1, 1, 2])}"]
        cur = np.empty(shape)
        bad = False

        def step(tok):
            nonlocal cur, bad
            try:
                cur = apply_view(cur, tok)
            except (IndexError, ValueError, TypeError):
                bad = True
            toks.append(tok)

        for _ in range(r.choice([0, 1, 1, 2, 3])):
            if bad:
                break
            step(self.view(cur.shape))
        transc, rt = False, t
        if not bad and r.random() < 0.6:
            o = self.op(t, cur.shape)
            toks.append("op=" + o)
            try:
                y, _, transc = apply_op(data(t, kind, 1, cur.shape), t, o)
                cur, rt = np.empty(np.shape(y)), NAME[np.asarray(y).dtype]
            except (IndexError, ValueError, TypeError):
                bad = True
        for _ in range(r.choice([0, 0, 1, 2])):
            if bad:
                break
            step(self.view(cur.shape))
        if not bad and r.random() < 0.4:
            toks.append("rc=" + self.chunks(cur.shape, allow_bad=True))
        if not bad and r.random() < 0.55 and rt in (t, "f8", "b1"):
            toks.append(self.reduction(cur.ndim, transc))
        return " ".join(toks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--cases", type=int, default=int(os.environ.get("TESSERA_DIFF_CASES", 20000)))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--case", action="append", help="run only this case line (repeatable)")
    ap.add_argument("--max-failures", type=int, default=10)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(os.environ.get("TESSERA_DIFF_SEED", random.SystemRandom().randrange(2**32)))
    t0 = time.time()
    if a.case:
        lines = a.case
        print("diff_numpy: replaying", len(lines), "given case(s)")
    else:
        print(f"diff_numpy: seed {seed} (replay: TESSERA_DIFF_SEED={seed}), {a.cases} cases", flush=True)
        g = Gen(random.Random(seed))
        lines = [g.case(i) for i in range(a.cases)]
    t1 = time.time()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cases.txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        p = subprocess.run([a.exe, path], capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr)
            print(f"diff_numpy: {a.exe} exited with {p.returncode} (seed {seed})")
            return 1
    t2 = time.time()
    outs = p.stdout.splitlines()
    if len(outs) != len(lines):
        print(f"diff_numpy: {len(outs)} results for {len(lines)} cases (seed {seed})")
        return 1
    failures = 0
    stats = {"ok": 0, "err": 0}
    for line, out in zip(lines, outs):
        ref = evaluate(line)
        stats[ref[0]] += 1
        status = out.split(" ", 2)[1]
        if status in ("harness", "other"):
            why = "Tessera harness could not evaluate the case" if status == "harness" else \
                "an exception that is not tessera::invalid_argument/out_of_range"
        else:
            why = compare(ref, out)
        if why:
            failures += 1
            if failures <= a.max_failures:
                print(f"\nMISMATCH (seed {seed}): {why}\n  case:    {line}\n  tessera: {out[:2000]}")
                if ref[0] == "ok":
                    print(f"  numpy:   {ref[1]} {ref[2]} {np.array2string(np.asarray(ref[3]).ravel()[:64], max_line_width=10**6)}")
                else:
                    print(f"  numpy:   {ref[1]}")
    t3 = time.time()
    print(f"diff_numpy: {len(lines)} cases ({stats['ok']} results, {stats['err']} expected errors), "
          f"{failures} mismatches; generate {t1 - t0:.1f} s, tessera {t2 - t1:.1f} s, numpy+compare {t3 - t2:.1f} s; seed {seed}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
