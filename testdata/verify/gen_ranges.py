#!/usr/bin/env python3
"""50-digit references for the ranges certificates in testdata/verify (ranges-*.json).

For each file, with every number read as the exact decimal it spells, prints

  bound: (log_u + log(l0 + tau + l1 + l2)) / (alpha - 1), the bound the file's
         inequality gives (the checker must accept a claim just above it and reject
         one just below);
  lb:    the Theorem 4 lower bound of the groups' symmetric box, log F(p*, 1-p*) /
         (alpha - 1), with r_alpha(p*) = eps, r_alpha(p) = log(p^a (1-p)^(1-a) +
         (1-p)^a p^(1-a)) / (a - 1), and F(p, q) = sum over all count vectors x of
         g(p A_x + (1-p) A_(n-x), q A_x + (1-q) A_(n-x)), g(u, v) = u^a v^(1-a),
         A_x = prod_g C(n_g, x_g) c_g^x_g (1-c_g)^(n_g-x_g): the value of a real pair
         of mechanisms, so Post >= lb and a claim below lb is false.

computed with mpmath, independently of the Go code.

    python3 testdata/verify/gen_ranges.py > testdata/verify/ranges_refs.csv
"""
import glob
import itertools
import json
import os

from mpmath import mp, mpf, log, binomial, findroot

mp.dps = 50


def r_alpha(p, a):
    return log(p ** a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)


def p_star(a, eps):
    # r_alpha decreases from +inf at 0 to 0 at 1/2: bisection in p.
    lo, hi = mpf(0), mpf(1) / 2
    for _ in range(400):
        mid = (lo + hi) / 2
        if mid == 0 or r_alpha(mid, a) > eps:
            lo = mid
        else:
            hi = mid
    return hi


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    print("file,bound,lb")
    for path in sorted(glob.glob(os.path.join(here, "ranges-*.json"))):
        f = json.load(open(path))
        a, eps = mpf(f["alpha"]), mpf(f["eps"])
        s = mpf(f["l0"]) + mpf(f["tau"]) + mpf(f["l1"]) + mpf(f["l2"])
        bound = (mpf(f["log_u"]) + log(s)) / (a - 1)
        gs = [(g["n"], mpf(g["c"])) for g in f["groups"]]
        w = {}
        for x in itertools.product(*[range(n + 1) for n, _ in gs]):
            v = mpf(1)
            for (n, c), xg in zip(gs, x):
                v *= binomial(n, xg) * c ** xg * (1 - c) ** (n - xg)
            w[x] = v
        p = p_star(a, eps)
        F = mpf(0)
        for x, ax in w.items():
            am = w[tuple(n - xg for (n, _), xg in zip(gs, x))]
            u, v = p * ax + (1 - p) * am, (1 - p) * ax + p * am
            F += u ** a * v ** (1 - a)
        lb = log(F) / (a - 1)
        print("%s,%s,%s" % (os.path.basename(path), mp.nstr(bound, 40), mp.nstr(lb, 40)))


main()
