#!/usr/bin/env python3
"""60-digit references for the delta-corners certificates (verify/corners_test.go).

delta'(eps') of k = 1 at dimension n: the maximum over the four points of the
canonical (eps, delta) pair placed on corners of {c, 1-c}^n of
H_g(B P || B Q) = sum_x [u(x) - g v(x)]_+, g = exp(eps'), over the outputs
x in {0,1}^n of one sample per coordinate.

For n <= 3 by brute force: every assignment of the four points to the 2^n
corners (no symmetry used), every output bit string. For larger n by the
pattern configurations (n_1..n_7 summing to n, counts per group), written
here independently of the Go checker. Prints Go table rows.

    python3 testdata/verify/gen_corners.py
"""
import itertools

from mpmath import mp, mpf, exp, binomial

mp.dps = 60

POINTS = [
    # d, k, c, eps, delta, eps_out (decimal strings, read exactly)
    (1, 1, "0.1", "1", "0.01", "0.3"),
    (2, 1, "0.1", "1", "0.01", "0.5"),
    (3, 1, "0.3", "1", "0.01", "0"),
    (1, 3, "1e-6", "50", "1e-12", "50"),
    (3, 1, "0.4999", "1e-9", "0.5", "1e-9"),
    (2, 2, "0.3", "2", "1e-6", "0.5"),
    (6, 1, "0.2", "2", "1e-6", "0.3"),
    (1, 5, "0.01", "0.1", "1e-12", "0.05"),
]


def canonical(eps, delta):
    e = exp(eps)
    return ([delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), mpf(0)],
            [mpf(0), (1 - delta) / (1 + e), (1 - delta) * e / (1 + e), delta])


def brute(n, c, P, Q, g):
    outs = list(itertools.product([0, 1], repeat=n))
    corners = list(itertools.product([0, 1], repeat=n))

    def law(z, x):  # bit 0: theta = c, bit 1: theta = 1 - c
        p = mpf(1)
        for zb, xb in zip(z, x):
            th = c if zb == 0 else 1 - c
            p *= th if xb == 1 else 1 - th
        return p

    table = {(z, x): law(z, x) for z in corners for x in outs}
    best = mpf(0)
    for assign in itertools.product(corners, repeat=4):
        h = mpf(0)
        for x in outs:
            u = sum(P[i] * table[(assign[i], x)] for i in range(4))
            v = sum(Q[i] * table[(assign[i], x)] for i in range(4))
            if u - g * v > 0:
                h += u - g * v
        best = max(best, h)
    return best


def patterns(n, c, P, Q, g):
    def w(s, m, bit):  # P(count m of ones | s coordinates, bit)
        th = c if bit == 0 else 1 - c
        return binomial(s, m) * th ** m * (1 - th) ** (s - m)

    best = mpf(0)
    for cf in itertools.product(range(n + 1), repeat=7):
        if sum(cf) != n:
            continue
        groups = [(t + 1, s) for t, s in enumerate(cf) if s > 0]
        h = mpf(0)
        for ms in itertools.product(*[range(s + 1) for _, s in groups]):
            k = []
            for i in range(4):
                p = mpf(1)
                for (tau, s), m in zip(groups, ms):
                    bit = 0 if i == 0 else (tau >> (i - 1)) & 1
                    p *= w(s, m, bit)
                k.append(p)
            t = sum(P[i] * k[i] for i in range(4)) - g * sum(Q[i] * k[i] for i in range(4))
            if t > 0:
                h += t
        best = max(best, h)
    return best


def main():
    for d, k, c, eps, delta, eo in POINTS:
        n = d * k
        P, Q = canonical(mpf(eps), mpf(delta))
        g = exp(mpf(eo))
        ref = brute(n, mpf(c), P, Q, g) if n <= 3 else patterns(n, mpf(c), P, Q, g)
        print('\t{%d, %d, "%s", "%s", "%s", "%s", "%s"},' % (d, k, c, eps, delta, eo, mp.nstr(ref, 40, min_fixed=-1000, max_fixed=1000)))


if __name__ == "__main__":
    main()
