#!/usr/bin/env python3
"""Regenerates the minimax polynomials of include/tessera/random/math.hpp (double precision).

    log:  log m = 2 s + 2 s z p(z),  s = (m - 1) / (m + 1), |s| <= (sqrt 2 - 1) / (sqrt 2 + 1),
          z = s^2, p of degree 6 fitted to (atanh(s) / s - 1) / z, error weighted by z (what
          reaches log m relative to 2 s);
    sin:  sin(pi f / 2) = f P(z), z = f^2 in [0, 1/4], P of degree 6, relative error;
    cos:  cos(pi f / 2) = 1 + z Q(z), Q of degree 6, relative error.

Remez exchange at 60 digits with mpmath (Debian: python3-mpmath; not needed to build or test).
Prints each polynomial's coefficients, lowest degree first, rounded to double, and the
approximation error before rounding. About 40 s.
"""
import mpmath as mp

mp.mp.dps = 60


def remez(g, weight, a, degree, iterations=30, grid=4000):
    """Coefficients c (lowest first) minimizing max |(g - sum c_j z^j) weight| on [0, a]."""
    n = degree + 1
    ref = [a * (1 - mp.cos(mp.pi * i / n)) / 2 for i in range(n + 1)]
    pts = [a * i / grid for i in range(grid + 1)]
    worst = None
    for _ in range(iterations):
        A = mp.matrix(n + 1, n + 1)
        b = mp.matrix(n + 1, 1)
        for i, z in enumerate(ref):
            for j in range(n):
                A[i, j] = z ** j
            A[i, n] = (-1) ** i / weight(z)
            b[i] = g(z)
        sol = mp.lu_solve(A, b)
        c = [sol[j] for j in range(n)]
        err = [(g(z) - sum(c[j] * z ** j for j in range(n))) * weight(z) for z in pts]
        worst = max(abs(e) for e in err)
        # the alternating extrema of the error become the next reference
        ext = [i for i in range(len(pts))
               if i in (0, len(pts) - 1) or (err[i] - err[i - 1]) * (err[i + 1] - err[i]) <= 0]
        sel = []
        for i in ext:
            if sel and mp.sign(err[i]) == mp.sign(err[sel[-1]]):
                if abs(err[i]) > abs(err[sel[-1]]):
                    sel[-1] = i
            else:
                sel.append(i)
        while len(sel) > n + 1:
            sel.pop(0 if abs(err[sel[0]]) < abs(err[sel[-1]]) else -1)
        if len(sel) < n + 1:
            break
        ref = [pts[i] for i in sel]
    return c, worst


def report(name, c, worst):
    print(f"{name}: approximation error {mp.nstr(worst, 3)}")
    for x in c:
        print(f"  {float(x)!r}")


smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
zmax = smax ** 2


def log_tail(z):
    if z == 0:
        return mp.mpf(1) / 3
    s = mp.sqrt(z)
    return (mp.atanh(s) / s - 1) / z


def sin_over_f(z):
    if z == 0:
        return mp.pi / 2
    f = mp.sqrt(z)
    return mp.sin(mp.pi * f / 2) / f


def cos_tail(z):
    if z == 0:
        return -mp.pi ** 2 / 8
    f = mp.sqrt(z)
    return (mp.cos(mp.pi * f / 2) - 1) / z


report("log p(z)", *remez(log_tail, lambda z: max(z, zmax / 1000), zmax, 6))
report("sin P(z)", *remez(sin_over_f, lambda z: 1 / sin_over_f(z), mp.mpf(1) / 4, 6))
report("cos Q(z)", *remez(cos_tail, lambda z: max(z, mp.mpf(1e-4)) / mp.cos(mp.pi * mp.sqrt(z) / 2),
                          mp.mpf(1) / 4, 6))
