#!/usr/bin/env python3
"""Golden values of the closed forms at Rényi orders near 1 (near_one.csv), and their KL limits.

Columns: d,k,c,alpha,eps,r_c,p,lb,ub,lb_kl,ub_kl   (values to 20 significant digits)

Definitions (shared/design/math.md), with n = d k:
    r_alpha(p) = log( p^a (1-p)^(1-a) + (1-p)^a p^(1-a) ) / (a-1)        (binary Rényi divergence)
    p          = the root in (0, 1/2] of r_alpha(p) = eps
    P_j = p c^j (1-c)^(n-j) + (1-p) c^(n-j) (1-c)^j,   Q_j = (1-p) c^j (1-c)^(n-j) + p c^(n-j) (1-c)^j
    lb         = log( sum_{j=0..n} C(n,j) P_j^a Q_j^(1-a) ) / (a-1)      (Theorem 4)
    ub         = min(eps, n r_alpha(c))
The limit alpha -> 1 (L'Hopital on log(sum p^a q^(1-a)) / (a-1)) replaces every Rényi
divergence by the Kullback-Leibler divergence:
    r_1(p)     = (1-2p) log((1-p)/p)
    p_1        = the root in (0, 1/2] of r_1(p) = eps
    lb_kl      = sum_j C(n,j) P_j log(P_j/Q_j)   with p_1 in P_j, Q_j
    ub_kl      = min(eps, n r_1(c))

Inputs: alpha and c are printed as the shortest decimal that reads back as the intended
double, and the script converts them exactly (mpf(float(s))): near alpha = 1 the decimal
1.000000000001 and its double differ by 1e-4 relative in alpha - 1, so the references must be
computed at the double the Go code sees. eps is exact in binary or read the same way.

Arithmetic: mp.dps = 80. log(sum) is about (a-1) lb, 1e-12 at the closest order, so 80 digits
leave more than 60 for lb. p is found by 300 bisection steps on log p in [-(eps+10), log(1/2)]
(a valid bracket: r_alpha(p) >= r_1(p) >= (1-2p) log((1-p)/p) and (1-2p) >= 1/2 for
p <= 1/4), which fixes p to far below 1e-60 relative. The binomials are exact Python integers.
Deterministic: a fixed row list, computed one after another; no randomness.

Usage:  python3 gen_near_one.py           write near_one.csv next to this script
        python3 gen_near_one.py --check   recompute every row at mp.dps = 120 and print the
                                          largest relative difference
"""
import os
import sys

from mpmath import mp, mpf, log, nstr

ALPHAS = [1 + 1e-12, 1 + 1e-9, 1 + 1e-7, 1 + 1e-6, 1 + 1e-4, 1.01]
# d, k, c, eps
POINTS = [
    (1, 1, 0.1, 1.0),      # the point (alpha 1.0000001 there)
    (1, 1, 0.1, 0.1),
    (1, 1, 0.01, 5.0),
    (2, 1, 0.3, 0.5),
    (3, 2, 0.1, 2.0),
    (1, 16, 0.1, 1.0),
    (10, 10, 0.45, 0.01),
    (50, 20, 0.49, 3.0),
]


def r_alpha(a, p):
    return log(p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)) / (a - 1)


def r_kl(p):
    return (1 - 2 * p) * log((1 - p) / p)


def root(f, eps):
    """p in (0, 1/2] with f(p) = eps, f decreasing; bisection on log p."""
    if eps == 0:
        return mpf(1) / 2
    lo, hi = -(eps + 10), log(mpf(1) / 2)   # f(e^lo) > eps >= f(e^hi)
    for _ in range(300):
        mid = (lo + hi) / 2
        if f(mp.exp(mid)) > eps:
            lo = mid
        else:
            hi = mid
    return mp.exp(hi)


def pair_terms(n, c, p):
    b = 1
    for j in range(n + 1):
        A = c**j * (1 - c)**(n - j)
        B = c**(n - j) * (1 - c)**j
        yield b, p * A + (1 - p) * B, (1 - p) * A + p * B
        b = b * (n - j) // (j + 1)


def row(d, k, c, alpha, eps):
    n = d * k
    a, c, e = mpf(alpha), mpf(c), mpf(eps)
    rc = r_alpha(a, c)
    p = root(lambda x: r_alpha(a, x), e)
    f = sum(b * P**a * Q**(1 - a) for b, P, Q in pair_terms(n, c, p))
    lb = log(f) / (a - 1)
    ub = min(e, n * rc)
    p1 = root(r_kl, e)
    lb_kl = sum(b * P * log(P / Q) for b, P, Q in pair_terms(n, c, p1))
    ub_kl = min(e, n * r_kl(c))
    assert 0 <= lb <= ub * (1 + mpf(10)**-50) and 0 <= lb_kl <= ub_kl * (1 + mpf(10)**-50)
    assert abs(r_alpha(a, p) - e) < mpf(10)**-60 * e
    return [rc, p, lb, ub, lb_kl, ub_kl]


def rows():
    for alpha in ALPHAS:
        for d, k, c, eps in POINTS:
            yield d, k, c, alpha, eps


def main():
    check = "--check" in sys.argv[1:]
    mp.dps = 80
    out = ["d,k,c,alpha,eps,r_c,p,lb,ub,lb_kl,ub_kl"]
    worst = 0
    for d, k, c, alpha, eps in rows():
        vals = row(d, k, c, alpha, eps)
        out.append(",".join([str(d), str(k), repr(c), repr(alpha), repr(eps)] + [nstr(v, 20) for v in vals]))
        if check:
            mp.dps = 120
            ref = row(d, k, c, alpha, eps)
            mp.dps = 80
            for v, w in zip(vals, ref):
                if w != 0:
                    worst = max(worst, abs(v - w) / abs(w))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "near_one.csv")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")
    if check:
        print("largest relative difference at 120 digits:", nstr(worst, 3))


if __name__ == "__main__":
    main()
