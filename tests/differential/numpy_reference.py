#!/usr/bin/python3
"""NumPy's side of tests/test_ufuncs.cpp and tests/test_manipulation.cpp: recomputes each
case of DIR/cases.txt with NumPy.

    numpy_reference.py DIR [--ulps N]

A case line is `func out param [in1 [in2 [in3]]]` (files in DIR, saved by Tessera: the inputs
and Tessera's result `out`; param is `-` or the function's arguments, comma-separated, `;`
between lists). NumPy evaluates func on the inputs; the result must have the same shape and
dtype, and the same values: bitwise (NaN: any NaN) for exact functions, within N ulp (default
4) for the floating math functions, the same NaNs and infinities everywhere.

Where Tessera's documented types deliberately differ from Debian 12's NumPy 1.24:
  * floating functions of bool, int8, uint8 (and pairs promoting to them) compute in float32
    (C++ has no float16; NumPy: float16): NumPy is evaluated on float32 inputs there;
  * floor, ceil, trunc of integers and bool return the input type and values (NumPy >= 2.1
    and the array API; NumPy 1.24 returns floats); round of bool gives float32 (NumPy: float16).
Prints each mismatch (case line, input, both values) and exits 1 if there was any.
"""
import argparse
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
np.seterr(all="ignore")

# Sums in a different order: within a few ulp (Tessera's pairwise/compensated vs NumPy's).
SUMMED = {"nansum", "nanprod", "nanmean", "nanvar", "nanstd", "histogram_weighted"}
NAN_REDUCTIONS = {"nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax"}
FLOAT_MATH = {"tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
              "arctanh", "log1p", "expm1", "log2", "log10", "exp2", "cbrt", "arctan2", "hypot",
              "logaddexp", "logaddexp2", "float_power", "deg2rad", "rad2deg"}
# Results that cancel (log(e^a + e^b) near 0): error relative to the operands' magnitude.
CANCELLING = {"logaddexp", "logaddexp2"}
ORDER = {"median", "nanmedian", "quantile", "nanquantile", "percentile", "nanpercentile"}
FLOAT_EXACT = {"fabs", "rint", "copysign", "nextafter", "heaviside"}
SMALL = {np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16)}


def floats(*xs):
    """Inputs as NumPy would take them, float32 where Tessera computes in float32."""
    dt = np.result_type(*xs)
    if dt in SMALL:
        return [x.astype(np.float32) for x in xs]
    return list(xs)


def reference(func, param, xs):
    if func in FLOAT_MATH or func in FLOAT_EXACT:
        return getattr(np, func)(*floats(*xs))
    if func in ("floor", "ceil", "trunc"):
        x = xs[0]
        return x.copy() if x.dtype.kind in "biu" else getattr(np, func)(x)
    if func == "round":  # bool rounds in float32 (NumPy: float16)
        return np.round(floats(xs[0])[0] if xs[0].dtype == np.bool_ else xs[0], int(param))
    if func == "isclose":
        return np.isclose(xs[0], xs[1])
    if func == "isclose_nan":
        rtol, atol = (float(v) for v in param.split(","))
        return np.isclose(xs[0], xs[1], rtol=rtol, atol=atol, equal_nan=True)
    if func == "clip":
        return np.clip(xs[0], xs[1], xs[2])
    return manipulation(func, param, xs)


def ints(text):
    return [int(v) for v in text.split(",") if v != ""]


def manipulation(func, param, xs):
    """Creation and view functions; param holds their arguments."""
    if func == "linspace":  # start,stop,num,endpoint,dtype
        a, b, n, e, dt = param.split(",")
        return np.linspace(float(a), float(b), int(n), endpoint=e == "1", dtype=dt)
    if func in ("eye", "tri"):  # n,m,k,dtype
        n, m, k, dt = param.split(",")
        return getattr(np, func)(int(n), int(m), k=int(k), dtype=dt)
    if func in ("flip", "squeeze"):
        axes = ints(param) if param != "-" else None
        return getattr(np, func)(xs[0], axis=tuple(axes) if axes is not None else None)
    if func == "expand_dims":
        return np.expand_dims(xs[0], tuple(ints(param)))
    if func == "moveaxis":
        src, dst = param.split(";")
        return np.moveaxis(xs[0], ints(src), ints(dst))
    if func == "rot90":
        k, a0, a1 = ints(param)
        return np.rot90(xs[0], k, axes=(a0, a1))
    if func == "broadcast_to":
        return np.broadcast_to(xs[0], tuple(ints(param)) if param != "-" else ())
    if func in ("concatenate", "append", "stack"):
        kw = {"axis": int(param)} if param != "-" else {}
        if func == "append":
            return np.append(xs[0], xs[1], **({} if param == "-" else kw))
        return getattr(np, func)(xs, **kw)
    if func in ("hstack", "vstack", "dstack", "column_stack"):
        return getattr(np, func)(xs)
    if func == "block":  # "rows,cols" (row-major blocks) or "flat" (one level)
        if param == "flat":
            return np.block(xs)
        rows, cols = ints(param)
        return np.block([[xs[i * cols + j] for j in range(cols)] for i in range(rows)])
    if func == "pad":  # before:after,...;mode;value
        widths, mode, value = param.split(";")
        pw = [tuple(int(v) for v in w.split(":")) for w in widths.split(",")]
        kw = {"constant_values": int(value)} if mode == "constant" else {}
        x = xs[0]
        if mode in ("wrap", "reflect", "symmetric") and int(np.__version__.split(".")[0]) < 2:
            # NumPy 1.x repeats values where a pad is wider than the axis on one side only;
            # NumPy 2 extends periodically: its results, by index arithmetic
            for d in range(x.ndim):
                b, a = pw[d] if len(pw) > 1 else pw[0]
                n = x.shape[d]
                t = np.arange(-b, n + a)
                if mode == "wrap":
                    i = t % n
                elif mode == "symmetric":
                    i = t % (2 * n)
                    i = np.where(i < n, i, 2 * n - 1 - i)
                elif n == 1:
                    i = np.zeros_like(t)
                else:
                    i = t % (2 * n - 2)
                    i = np.where(i < n, i, 2 * n - 2 - i)
                x = np.take(x, i, axis=d)
            return x
        return np.pad(x, pw if len(pw) > 1 else pw[0], mode=mode, **kw)
    if func == "roll":  # shifts;axes ("-": the flattened array)
        shifts, axes = param.split(";")
        if axes == "-":
            return np.roll(xs[0], int(shifts))
        return np.roll(xs[0], tuple(ints(shifts)), tuple(ints(axes)))
    if func in ("reshape", "reshape_t"):
        x = xs[0].T if func == "reshape_t" else xs[0]
        return np.reshape(x, tuple(ints(param)) if param != "-" else ())
    if func in ("diagonal", "trace"):  # offset,axis1,axis2
        off, a1, a2 = ints(param)
        return getattr(np, func)(xs[0], off, a1, a2)
    if func in ("diag", "diagflat"):
        return getattr(np, func)(xs[0], int(param))
    if func == "diff":  # n,axis
        n, ax = ints(param)
        return np.diff(xs[0], n, axis=ax)
    if func == "meshgrid":  # indexing,which
        ix, which = param.split(",")
        return np.meshgrid(*xs, indexing=ix)[int(which)]
    if func == "average":
        ax = int(param)
        w = xs[1] if xs[1].ndim == xs[0].ndim else xs[1]
        return np.average(xs[0], axis=ax, weights=w)
    if func in ("outer", "vdot"):
        return np.asarray(getattr(np, func)(xs[0], xs[1]))
    if func in ("cumsum", "cumprod", "nancumsum", "nancumprod", "cumsum_twice"):
        ax = int(param) if param != "-" else None
        x = xs[0]
        if x.dtype == np.bool_ and func != "cumsum":
            x = x.astype(np.int64)  # NumPy: bool products and nan-scans in the default int
        if func == "cumsum_twice":
            c = np.cumsum(x, axis=ax)
            return np.cumsum(c * c.dtype.type(2), axis=ax)
        return getattr(np, func)(x, axis=ax)
    if func == "take":  # indices;axis ("-": flattened)
        idx, ax = param.split(";")
        return np.take(xs[0], np.array(ints(idx) if idx != "-" else [], dtype=np.int64),
                       axis=None if ax == "-" else int(ax))
    if func == "compress":  # 0/1 string;axis
        c, ax = param.split(";")
        return np.compress([ch == "1" for ch in (c if c != "-" else "")], xs[0], axis=int(ax))
    if func == "extract":
        return xs[1][xs[0]]
    if func in ("flatnonzero", "argwhere"):
        return getattr(np, func)(xs[0])
    if func == "nonzero":
        return np.nonzero(xs[0])[int(param)]
    if func == "isin":
        return np.isin(xs[0], xs[1], invert=param == "1")
    if func == "searchsorted":
        return np.searchsorted(xs[0], xs[1], side=param)
    if func == "digitize":
        return np.digitize(xs[0], xs[1], right=param == "1")
    if func == "choose":
        return np.choose(xs[0], xs[1:], mode="clip")
    if func == "ravel":
        return np.ravel(xs[0])
    if func == "repeat":  # repeats[,axis]
        v = ints(param)
        return np.repeat(xs[0], v[0], axis=v[1] if len(v) > 1 else None)
    if func == "tile":
        return np.tile(xs[0], tuple(ints(param)) if param != "-" else ())
    if func in ("tril", "triu"):
        return getattr(np, func)(xs[0], k=int(param))
    if func == "ptp":  # axes;keepdims;ddof (ddof unused)
        axes, keep, _ = param.split(";")
        return np.ptp(xs[0], axis=None if axes == "all" else tuple(ints(axes)), keepdims=keep == "1")
    if func in NAN_REDUCTIONS:  # axes;keepdims;ddof, float32 accumulating in float64
        axes, keep, ddof = param.split(";")
        kw = {"axis": None if axes == "all" else tuple(ints(axes)), "keepdims": keep == "1"}
        if func in ("nanvar", "nanstd"):
            kw["ddof"] = int(ddof)
        x = xs[0]
        if x.dtype == np.float32 and func in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd"):
            return getattr(np, func)(x.astype(np.float64), **kw).astype(np.float32)
        return getattr(np, func)(x, **kw)
    if func == "unique":
        return np.unique(xs[0])
    if func == "unique_counts":
        return np.unique(xs[0], return_counts=True)[1].astype(np.int64)
    if func == "bincount":  # minlength (0: NumPy's own length)
        return np.bincount(xs[0], weights=xs[1] if len(xs) > 1 else None, minlength=int(param))
    if func.startswith("histogram"):
        if func == "histogram_explicit":
            return np.histogram(xs[0], bins=[float(v) for v in param.split(",")])[0]
        if func == "histogram2d":  # bx,by;xlo,xhi,ylo,yhi over the flattened points
            b, r = param.split(";")
            r = [float(v) for v in r.split(",")]
            return np.histogram2d(xs[0].ravel(), xs[1].ravel(), bins=tuple(ints(b)),
                                  range=[r[0:2], r[2:4]])[0]
        bins, lo, hi = param.split(";")
        kw = {"bins": int(bins), "range": (float(lo), float(hi))}
        if func == "histogram_weighted":
            kw["weights"] = xs[1]
        h, e = np.histogram(xs[0], **kw)
        return e if func == "histogram_edges" else h
    if func in ("nanargmin", "nanargmax"):  # axis or all;keepdims
        axis, keep = param.split(";")
        return getattr(np, func)(xs[0], axis=None if axis == "all" else int(axis), keepdims=keep == "1")
    if func in ORDER:  # axes;keepdims;q (- for medians, s:V a scalar, else a list)
        axes, keep, q = param.split(";")
        kw = {"axis": None if axes == "all" else tuple(ints(axes)), "keepdims": keep == "1"}
        f = getattr(np, func)
        if q == "-":
            return f(xs[0], **kw)
        qv = float(q[2:]) if q.startswith("s:") else [float(v) for v in q.split(",")]
        r = f(xs[0], qv, **kw)
        # Tessera keeps float32 (NumPy 2's type for a scalar q), interpolated in float64 and
        # rounded once (NumPy 1.24's float64 result, rounded)
        return r.astype(np.float32) if xs[0].dtype == np.float32 else r
    if param != "-":
        return getattr(np, func)(*xs, *[int(v) for v in param.split(",")])
    return getattr(np, func)(*xs)


def ordered(a):
    """Float bits as integers whose order is the floats' order (for ulp distances)."""
    i = a.view(np.int64 if a.dtype == np.float64 else np.int32).astype(np.int64)
    top = np.int64(-(2 ** 63)) if a.dtype == np.float64 else np.int64(-(2 ** 31))
    return np.where(i < 0, top - i, i)


def compare(t, n, ulps, scale=None):
    """Indices where Tessera's t and NumPy's n disagree (empty: agree); with `scale`, floats
    may differ by ulps units in the last place of |scale| (per element) or of the result."""
    if t.dtype.kind != "f":
        return np.flatnonzero(t.reshape(-1) != n.reshape(-1))
    t, n = t.reshape(-1), n.reshape(-1)
    tn, nn = np.isnan(t), np.isnan(n)
    bad = tn != nn
    both = ~tn & ~nn
    if ulps == 0:
        bits = np.int64 if t.dtype == np.float64 else np.int32
        bad |= both & (t.view(bits) != n.view(bits))
    else:
        inf = both & (np.isinf(t) | np.isinf(n))
        bad |= inf & (t != n)
        fin = both & ~inf
        if scale is None:
            bad |= fin & (np.abs(ordered(t) - ordered(n)) > ulps)
        else:
            tol = ulps * np.spacing(np.maximum(np.abs(n), np.abs(scale.reshape(-1)).astype(n.dtype)))
            bad |= fin & ~(np.abs(t.astype(np.float64) - n.astype(np.float64)) <= tol)
    return np.flatnonzero(bad)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ulps", type=int, default=4)
    args = ap.parse_args()
    failures = 0
    cases = 0
    with open(os.path.join(args.dir, "cases.txt")) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            func, out, param, ins = parts[0], parts[1], parts[2], parts[3:]
            xs = [np.load(os.path.join(args.dir, i)) for i in ins]
            t = np.load(os.path.join(args.dir, out))
            cases += 1
            try:
                n = np.asarray(reference(func, param, xs))
            except Exception as e:  # NumPy refuses what Tessera computed
                print(f"MISMATCH {line.strip()}: NumPy raises {type(e).__name__}: {e}")
                failures += 1
                continue
            if t.shape != n.shape or t.dtype != n.dtype:
                print(f"MISMATCH {line.strip()}: Tessera {t.dtype}{t.shape}, NumPy {n.dtype}{n.shape} "
                      f"(inputs {[f'{x.dtype}{x.shape}' for x in xs]})")
                failures += 1
                continue
            ulps = args.ulps if func in FLOAT_MATH else (8 if func in SUMMED else 0)
            scale = None
            if func in CANCELLING:
                scale = np.maximum(*[np.abs(np.broadcast_to(x, n.shape)).astype(np.float64) for x in xs])
                scale = np.where(np.isfinite(scale), scale, 0.0)
            bad = compare(t, n, ulps, scale)
            if bad.size:
                failures += 1
                print(f"MISMATCH {line.strip()}: {bad.size} of {t.size} elements, e.g.")
                try:  # elementwise functions: the inputs at the bad positions
                    full = [np.broadcast_to(x, n.shape).reshape(-1) for x in xs]
                except ValueError:  # rearrangements: the flat positions only
                    full = []
                for k in bad[:4]:
                    print(f"   flat {k}, inputs {[repr(x[k]) for x in full]}: Tessera {t.reshape(-1)[k]!r}, "
                          f"NumPy {n.reshape(-1)[k]!r}")
    print(f"numpy_reference: {cases} cases, {failures} mismatches (NumPy {np.__version__}, "
          f"tolerance {args.ulps} ulp for floating math)")
    sys.exit(1 if failures or cases == 0 else 0)


if __name__ == "__main__":
    main()
