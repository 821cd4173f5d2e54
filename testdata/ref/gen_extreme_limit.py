#!/usr/bin/env python3
"""Order-infinity limits of the closed forms, for the alpha = 1e308 rows of bounds/extreme_test.go.

As alpha -> Inf, r_alpha(p) -> log((1-p)/p), so the Theorem 4 pair has p = 1/(1+e^eps), and
  lb -> max_j log(P_j/Q_j)      (P_j, Q_j as in gen_bounds.py, over j = 0..n)
  ub -> min(eps, n log((1-c)/c)).
At alpha = 1e308 the finite-order values differ from these limits by O((n + eps)/alpha), far
below float64 resolution, so the limits are references for alpha = 1e308 (mpmath's powers with
exponent 1e308 take minutes a row, see README.md). mp.dps = 60; inputs read as exact decimals.
Independent of the Go code. Usage: python3 gen_extreme_limit.py  (prints CSV: d,k,c,eps,lb,ub)
"""
from mpmath import mp, mpf, log, exp

mp.dps = 60
ROWS = [(105, 123, "0.42", "4038"), (3, 2, "0.42", "4038"), (1, 1, "1e-6", "1"),
        (1, 1, "0.1", "1"), (10, 10, "0.49", "0.001"), (2, 1, "1e-6", "50")]


def logaddexp(u, v):
    if u < v:
        u, v = v, u
    return u + log(1 + exp(v - u))


def limits(d, k, c, eps):
    n = d * k
    lp, l1p = -logaddexp(0, eps), -logaddexp(0, -eps)   # log p, log(1-p) for p = 1/(1+e^eps)
    lc, l1c = log(c), log(1 - c)
    best = None
    for j in range(n + 1):
        lA = j * lc + (n - j) * l1c
        lB = (n - j) * lc + j * l1c
        v = logaddexp(lp + lA, l1p + lB) - logaddexp(l1p + lA, lp + lB)
        best = v if best is None or v > best else best
    return best, min(eps, n * (l1c - lc))


if __name__ == "__main__":
    print("d,k,c,eps,lb,ub")
    for d, k, c, e in ROWS:
        L, U = limits(d, k, mpf(c), mpf(e))
        print(",".join([str(d), str(k), c, e, mp.nstr(L, 20), mp.nstr(U, 20)]))
