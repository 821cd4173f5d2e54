#!/usr/bin/env python3
"""Golden values for the closed-form bounds (bounds.csv), independent of the Go code.

Columns: d,k,c,alpha,eps,r_c,p,lb,ub,thm2   (20 significant digits, mpmath, mp.dps = 60)
  r_c   r_alpha(c) = log(c^a (1-c)^(1-a) + (1-c)^a c^(1-a)) / (a-1)
  p     the p in (0, 1/2] with r_alpha(p) = eps (bisection on log p, 260 halvings)
  lb    Theorem 4: n = d k, P_j = p c^j (1-c)^(n-j) + (1-p) c^(n-j) (1-c)^j,
        Q_j = (1-p) c^j (1-c)^(n-j) + p c^(n-j) (1-c)^j,
        lb = log(sum_j C(n,j) P_j^a Q_j^(1-a)) / (a-1)   (exact integer C(n,j), log space)
  ub    min(eps, d k r_c)
  thm2  k = 1 only: K = exp(-2 (1/2-c)^2 d); r_alpha(p+K) if p+K <= 1/2 else 0; empty if k != 1

Inputs: the strings in the first five columns are read as exact decimals (mpf("0.1"), rounded
to 60 digits), the convention of shared/tools/hpref.py and of the sanity values in
shared/design/math.md. A float64 program sees the nearest doubles instead; `--check` reports
how much that moves each column (relative, at most a few 1e-15 here).

Usage:
  python3 gen_bounds.py            write bounds.csv next to this script
  python3 gen_bounds.py --check    additionally recompute every row at mp.dps = 90 (decimal
                                   inputs) and at dps 60 with float64-rounded inputs
                                   (mpf(float(s))), and report the maximal relative differences
Deterministic: fixed row list, no randomness; rows are computed in a process pool but written
in the fixed order.
"""
import os
import sys
from multiprocessing import Pool

from mpmath import mp, mpf, log, exp

DPS = 60

ALPHAS = ["1.01", "1.1", "2", "5", "50", "1000"]
EPSS = ["0.001", "0.1", "1", "5", "50"]
CS = ["1e-6", "0.01", "0.1", "0.3", "0.45", "0.49"]
DKS = [(1, 1), (2, 1), (1, 4), (3, 2), (15, 1), (100, 1), (10, 100), (10000, 1)]


def rows():
    out = []
    seen = set()

    def add(d, k, c, a, e):
        key = (d, k, c, a, e)
        if key not in seen:
            seen.add(key)
            out.append(key)

    # 1. sanity rows from design/math.md section 4
    for e in ["0.5", "1", "2"]:
        add(1, 1, "0.1", "5", e)
    # 2. full alpha x eps x c product (180 rows); (d,k) cycles so that every (d,k) meets
    #    every value of every other factor
    for ia, a in enumerate(ALPHAS):
        for ie, e in enumerate(EPSS):
            for ic, c in enumerate(CS):
                d, k = DKS[(ia + 3 * ie + 5 * ic) % len(DKS)]
                add(d, k, c, a, e)
    # 3. all corners of the extremes, for every (d,k): alpha in {1.01,1000}, eps in {0.001,50},
    #    c in {1e-6, 0.49}
    for d, k in DKS:
        for a in ["1.01", "1000"]:
            for e in ["0.001", "50"]:
                for c in ["1e-6", "0.49"]:
                    add(d, k, c, a, e)
    # 4. Theorem 2 (k = 1) with d large enough that p + K <= 1/2 can hold
    for d in [15, 100, 1000, 10000]:
        for c in ["0.1", "0.3", "0.45", "0.49"]:
            for a, e in [("2", "0.1"), ("5", "1"), ("50", "5"), ("1.1", "0.001")]:
                add(d, 1, c, a, e)
    # 5. a few intermediate n = d k and ordinary values
    for d, k in [(1, 2), (1, 8), (1, 16), (2, 2), (4, 4), (7, 3), (50, 20), (1, 1000)]:
        for c, a, e in [("0.1", "5", "1"), ("0.3", "2", "0.1"), ("0.01", "50", "5")]:
            add(d, k, c, a, e)
    # 6. extreme orders (issue 31 item 5): alpha from 1e6 to 1e100, including the order of the
    #    fuzzer's NaN finding (1.785714285714573e13, as its shortest decimal); eps <= 600 so that p
    #    stays a float64 (alpha = 1e308, where mpmath's powers take minutes, and the eps = 4038
    #    points are in bounds/extreme_test.go, see the README).
    #    No extra precision is needed: every large term (a log P, (1-a) log Q, r's log) is divided
    #    by a-1 in the end, so an absolute error of a*|log P|*10^-60 in an exponent costs
    #    |log P|*10^-60 in lb (--check at dps 90 confirms it)
    for a in ["1e6", "17857142857145.73", "1e20", "1e100"]:
        for d, k, c, e in [(1, 1, "0.1", "1"), (3, 2, "0.42", "600"), (2, 1, "1e-6", "50"),
                           (10, 10, "0.49", "0.001")]:
            add(d, k, c, a, e)
    add(105, 123, "0.42", "17857142857145.73", "600")
    return out


def r(p, a):
    return log(p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)) / (a - 1)


def p_of(eps, a):
    """p in (0,1/2] with r_a(p) = eps; r is decreasing. Bisection on t = log p."""
    if eps == 0:
        return mpf(1) / 2
    lo = -(eps + 10)          # r(p) >= KL(p||1-p) = (1-2p) log((1-p)/p) > eps there
    while not r(exp(lo), a) > eps:
        lo *= 2
    hi = log(mpf(1) / 2)
    for _ in range(260):      # width <= ~2^8 * 2^-260: relative error in p ~ 1e-76
        m = (lo + hi) / 2
        if r(exp(m), a) > eps:
            lo = m
        else:
            hi = m
    return exp((lo + hi) / 2)


def lb(n, c, a, p):
    lc, l1c = log(c), log(1 - c)
    lp, l1p = log(p), log(1 - p)
    logs = []
    C = 1                                    # exact integer C(n, j), updated in place
    for j in range(n + 1):
        lA = j * lc + (n - j) * l1c          # log c^j (1-c)^(n-j)
        lB = (n - j) * lc + j * l1c          # log c^(n-j) (1-c)^j
        lP = logaddexp(lp + lA, l1p + lB)
        lQ = logaddexp(l1p + lA, lp + lB)
        logs.append(log(mpf(C)) + a * lP + (1 - a) * lQ)
        C = C * (n - j) // (j + 1)
    m = max(logs)
    s = mpf(0)
    for t in logs:
        s += exp(t - m)
    return (m + log(s)) / (a - 1)


def logaddexp(u, v):
    if u < v:
        u, v = v, u
    return u + log(1 + exp(v - u))


def compute(args):
    d, k, cs, as_, es, dps, decimal = args
    mp.dps = dps
    conv = (lambda s: mpf(s)) if decimal else (lambda s: mpf(float(s)))
    c, a, eps = conv(cs), conv(as_), conv(es)
    n = d * k
    rc = r(c, a)
    p = p_of(eps, a)
    L = lb(n, c, a, p)
    U = min(eps, n * rc)
    T = None
    if k == 1:
        K = exp(-2 * (mpf(1) / 2 - c)**2 * d)
        T = r(p + K, a) if p + K <= mpf(1) / 2 else mpf(0)
    # internal consistency checks
    tol = mpf(10)**(-(dps - 15))
    assert abs(r(p, a) - eps) <= tol * (1 + eps), (args, r(p, a))
    assert L <= U * (1 + tol) + tol, (args, L, U)
    assert L >= 0
    if n == 1:   # LB for n = 1 is r_a(p(1-c) + (1-p)c)
        L1 = r(p * (1 - c) + (1 - p) * c, a)
        assert abs(L1 - L) <= tol * (1 + abs(L)), (args, L, L1)
    if T is not None:
        assert T <= L * (1 + tol) + tol, (args, T, L)
    return rc, p, L, U, T


def fmt(v):
    return "" if v is None else mp.nstr(v, 20)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    check = "--check" in sys.argv
    R = rows()
    with Pool(2) as pool:
        res = pool.map(compute, [(d, k, c, a, e, DPS, True) for d, k, c, a, e in R], chunksize=1)
        mp.dps = DPS
        lines = ["d,k,c,alpha,eps,r_c,p,lb,ub,thm2"]
        for (d, k, c, a, e), vals in zip(R, res):
            lines.append(",".join([str(d), str(k), c, a, e] + [fmt(v) for v in vals]))
        with open(os.path.join(here, "bounds.csv"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote %d rows" % len(R))
        if check:
            for label, dps, dec in [("dps 90, exact-decimal inputs", 90, True),
                                    ("dps 60, float64-rounded inputs", 60, False)]:
                res2 = pool.map(compute, [(d, k, c, a, e, dps, dec) for d, k, c, a, e in R],
                                chunksize=1)
                mp.dps = 100
                worst = {}
                for row, v1, v2 in zip(R, res, res2):
                    for name, x1, x2 in zip(["r_c", "p", "lb", "ub", "thm2"], v1, v2):
                        if x1 is None:
                            continue
                        dlt = abs(x1 - x2) / abs(x2) if x2 != 0 else abs(x1)
                        if dlt > worst.get(name, (mpf(-1),))[0]:
                            worst[name] = (dlt, row)
                print(label + ": max relative difference per column vs the written values")
                for name in ["r_c", "p", "lb", "ub", "thm2"]:
                    print("  %-5s %s  at %s" % (name, mp.nstr(worst[name][0], 3), worst[name][1]))
                if not dec:
                    for row, v in zip(R, res2):
                        if row[:4] == (1, 1, "0.1", "5"):
                            print("  float64-input sanity row", row, "lb =", mp.nstr(v[2], 20))


if __name__ == "__main__":
    main()
