#!/usr/bin/env python3
"""Golden values of Post at d = 1, k = 1 for orders near 1 (one_near_one.csv).

Columns: k,c,alpha,eps,post   (post to 25 significant digits)

At d = 1, k = 1 the d = 1 program of Algorithm 1 is solved by the Theorem 4 pair (Theorem 4 of
the paper: Post = LB there), so post is the closed form with n = 1:
    r_alpha(p) = log( p^a (1-p)^(1-a) + (1-p)^a p^(1-a) ) / (a-1)
    p          = the root in (0, 1/2] of r_alpha(p) = eps
    P_0 = p (1-c) + (1-p) c,  Q_0 = 1 - P_0,  P_1 = 1 - P_0,  Q_1 = P_0
    post       = log( P_0^a Q_0^(1-a) + P_1^a Q_1^(1-a) ) / (a-1) = r_alpha(p (1-c) + (1-p) c)
It is used to test the rounding of solver.One near alpha = 1, where One works on (a-1) R and
the float64 error of that is divided by a - 1.

Inputs: alpha and c are the doubles of the printed decimals, converted exactly (mpf(float(s))),
since near alpha = 1 the decimal and its double differ in alpha - 1 by up to 1e-13 relative
(more than the tolerance tested). eps is read the same way.

Arithmetic: mp.dps = 60. p by 300 bisection steps on log p in [-(eps+10), log(1/2)] (a valid
bracket: r_alpha(p) >= (1-2p) log((1-p)/p)), far below 1e-50 relative.

Rows: alpha in {1.0001, 1.0002, 1.0005, 1.001, 1.002, 1.005, 1.01, 1.02, 1.05} x
c in {0.01, 0.1, 0.3} x eps in {1e-3, 1e-2, 0.1, 1}; fixed order, no randomness.

Usage:  python3 gen_one_near_one.py           write one_near_one.csv next to this script
        python3 gen_one_near_one.py --check   recompute every row at mp.dps = 100 and print the
                                              largest relative difference
"""
import os
import sys

from mpmath import mp, mpf, log, nstr

ALPHAS = [1.0001, 1.0002, 1.0005, 1.001, 1.002, 1.005, 1.01, 1.02, 1.05]
CS = [0.01, 0.1, 0.3]
EPSS = [1e-3, 1e-2, 0.1, 1.0]


def r_alpha(a, p):
    return log(p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)) / (a - 1)


def root(a, eps):
    lo, hi = -(eps + 10), log(mpf(1) / 2)
    for _ in range(300):
        mid = (lo + hi) / 2
        if r_alpha(a, mp.exp(mid)) > eps:
            lo = mid
        else:
            hi = mid
    return mp.exp(hi)


def post(c, alpha, eps):
    a, c, e = mpf(float(alpha)), mpf(float(c)), mpf(float(eps))
    p = root(a, e)
    assert abs(r_alpha(a, p) - e) < mpf(10)**-50 * e
    P0 = p * (1 - c) + (1 - p) * c
    P1 = 1 - P0
    v = log(P0**a * P1**(1 - a) + P1**a * P0**(1 - a)) / (a - 1)
    assert 0 < v <= e
    return v


def main():
    check = "--check" in sys.argv[1:]
    out = ["k,c,alpha,eps,post"]
    worst = mpf(0)
    for alpha in ALPHAS:
        for c in CS:
            for eps in EPSS:
                mp.dps = 60
                v = post(c, alpha, eps)
                out.append(",".join(["1", repr(c), repr(alpha), repr(eps), nstr(v, 25)]))
                if check:
                    mp.dps = 100
                    w = post(c, alpha, eps)
                    worst = max(worst, abs(v - w) / w)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "one_near_one.csv")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")
    if check:
        print("largest relative difference at 100 digits:", nstr(worst, 3))


if __name__ == "__main__":
    main()
