#!/usr/bin/env python3
"""Exact pure-DP amplification by linear programming in rational arithmetic.

For each case (d, k, c, e): theta runs over a grid of G points per
coordinate in [c, 1-c] (corners AND interior points, so the corner
reduction is not assumed), and for every output count vector m the
linear-fractional program

    max (g.x)/(g.y)  s.t.  x, y >= 0, sum x = sum y = 1, x <= e y, y <= e x,
    g_i = prod_l theta_il^m_l (1 - theta_il)^(k - m_l)

is solved exactly: Charnes-Cooper, then a dense-tableau primal simplex
with Bland's rule (which terminates) over Python Fractions. The largest
optimum over m is printed as log(ratio) to 40 digits with mpmath. Nothing
here shares code or formulas with the Go package: it is the program of
the issue, solved by a different method in exact arithmetic.

Usage: python3 gen_lp.py > lp_exact.csv
       python3 gen_lp.py ranges > lp_ranges.csv   (per-coordinate ranges)
"""
from fractions import Fraction as F
from itertools import product
from mpmath import mp, mpf, log

mp.dps = 50


def simplex_max(A, b, c, basis):
    """max c.x s.t. A x = b, x >= 0, from a feasible basis; Bland's rule."""
    m, n = len(A), len(A[0])
    # Tableau rows: B^-1 A | B^-1 b, by Gauss-Jordan on the basis columns.
    T = [row[:] + [bi] for row, bi in zip(A, b)]
    for r, j in enumerate(basis):
        p = next(i for i in range(r, m) if T[i][j] != 0) if T[r][j] == 0 else r
        T[r], T[p] = T[p], T[r]
        piv = T[r][j]
        T[r] = [v / piv for v in T[r]]
        for i in range(m):
            if i != r and T[i][j] != 0:
                f = T[i][j]
                T[i] = [vi - f * vr for vi, vr in zip(T[i], T[r])]
    basis = list(basis)
    while True:
        # reduced costs c_j - c_B B^-1 A_j
        red = [c[j] - sum(c[basis[i]] * T[i][j] for i in range(m)) for j in range(n)]
        enter = next((j for j in range(n) if red[j] > 0 and j not in basis), None)
        if enter is None:
            x = [F(0)] * n
            for i, j in enumerate(basis):
                x[j] = T[i][-1]
            return sum(ci * xi for ci, xi in zip(c, x)), x
        rows = [i for i in range(m) if T[i][enter] > 0]
        if not rows:
            raise ValueError("unbounded")
        ratio = min(T[i][-1] / T[i][enter] for i in rows)
        leave = min((i for i in rows if T[i][-1] / T[i][enter] == ratio), key=lambda i: basis[i])
        piv = T[leave][enter]
        T[leave] = [v / piv for v in T[leave]]
        for i in range(m):
            if i != leave and T[i][enter] != 0:
                f = T[i][enter]
                T[i] = [vi - f * vr for vi, vr in zip(T[i], T[leave])]
        basis[leave] = enter


def fractional(g, e):
    n = len(g)
    # columns: x' (n), y' (n), t, s (n), r (n)
    X, Y, T, S, R = 0, n, 2 * n, 2 * n + 1, 3 * n + 1
    N = 4 * n + 1
    A, b = [], []
    row = [F(0)] * N
    for i in range(n):
        row[Y + i] = g[i]
    A.append(row); b.append(F(1))
    row = [F(0)] * N
    for i in range(n):
        row[X + i] = F(1)
    row[T] = F(-1)
    A.append(row); b.append(F(0))
    row = [F(0)] * N
    for i in range(n):
        row[Y + i] = F(1)
    row[T] = F(-1)
    A.append(row); b.append(F(0))
    for i in range(n):
        row = [F(0)] * N
        row[X + i], row[Y + i], row[S + i] = F(1), -e, F(1)
        A.append(row); b.append(F(0))
    for i in range(n):
        row = [F(0)] * N
        row[Y + i], row[X + i], row[R + i] = F(1), -e, F(1)
        A.append(row); b.append(F(0))
    cost = [F(0)] * N
    for i in range(n):
        cost[X + i] = g[i]
    # start: x = y = point mass on point 0
    basis = [X, Y, T] + [S + i for i in range(n)] + [R + i for i in range(n)]
    val, _ = simplex_max(A, b, cost, basis)
    return val


def level(ranges, k, e, G):
    axes = [[lo + (hi - lo) * F(j, G - 1) for j in range(G)] for lo, hi in ranges]
    pts = list(product(*axes))
    best = None
    for m in product(range(k + 1), repeat=len(ranges)):
        g = []
        for p in pts:
            v = F(1)
            for th, ml in zip(p, m):
                v *= th ** ml * (1 - th) ** (k - ml)
            g.append(v)
        r = fractional(g, e)
        best = r if best is None or r > best else best
    return best


CASES = [
    # d, k, c, e (e = e^eps, rational), G grid points per coordinate
    (1, 1, F(1, 10), F(2), 5),
    (1, 2, F(1, 10), F(2), 5),
    (1, 3, F(1, 5), F(3), 5),
    (1, 2, F(3, 10), F(11, 10), 7),
    (1, 4, F(1, 4), F(5, 2), 5),
    (1, 1, F(49, 100), F(20), 5),
    (2, 1, F(1, 10), F(2), 3),
    (2, 2, F(1, 5), F(3, 2), 3),
    (2, 1, F(3, 10), F(4), 3),
    (3, 1, F(1, 5), F(2), 2),
]

# Per-coordinate ranges (lo, hi), k, e, G: asymmetric boxes.
RANGES = [
    ([(F(1, 20), F(1, 2))], 1, F(2), 5),
    ([(F(1, 20), F(1, 2))], 3, F(3, 2), 5),
    ([(F(1, 2), F(9, 10))], 2, F(4), 5),
    ([(F(1, 10), F(3, 10)), (F(1, 5), F(9, 10))], 1, F(2), 3),
    ([(F(2, 5), F(3, 5)), (F(1, 100), F(1, 50))], 2, F(3), 3),
]


def dec(x):
    return mp.nstr(mpf(x.numerator) / x.denominator, 17)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["ranges"]:
        print("ranges,k,eps,grid,eps_out")
        for rs, k, e, G in RANGES:
            r = level(rs, k, e, G)
            eps = log(mpf(e.numerator) / e.denominator)
            out = log(mpf(r.numerator) / r.denominator)
            spec = ";".join(f"{dec(lo)}:{dec(hi)}" for lo, hi in rs)
            print(f"{spec},{k},{mp.nstr(eps, 40)},{G},{mp.nstr(out, 40)}")
        sys.exit()
    print("d,k,c,eps,grid,eps_out")
    for d, k, c, e, G in CASES:
        r = level([(c, 1 - c)] * d, k, e, G)
        eps = log(mpf(e.numerator) / e.denominator)
        out = log(mpf(r.numerator) / r.denominator)
        print(f"{d},{k},{dec(c)},{mp.nstr(eps, 40)},{G},{mp.nstr(out, 40)}")
