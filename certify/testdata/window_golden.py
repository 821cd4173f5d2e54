#!/usr/bin/env python3
"""Golden values of the halves of F_n for certify's window test (TestWindowGolden).

For each (n, c, alpha, s, t) below, with p = 1/(1+e^-s), q = 1/(1+e^-t)
taken from the float64 logits exactly, it prints log of

  half 0 = sum_{j=0}^{floor(n/2)} w_j g(p + (1-p) e_j, q + (1-q) e_j)
  half 1 = sum_{j=0}^{floor(n/2)} w_j g(1-p + p e_j, 1-q + q e_j)

w_j = C(n, j) c^j (1-c)^(n-j) (halved at j = n/2), e_j = (c/(1-c))^(n-2j),
g(u, v) = u^alpha v^(1-alpha), every term summed at 60 digits (mpmath).
Run: python3 certify/testdata/window_golden.py > certify/testdata/window_golden.csv
(the first point, n = 10^5, takes minutes; with arguments i j ... only those
points are printed, without the header).
"""
import sys
from mpmath import mp, mpf, exp, log, loggamma

mp.dps = 60

POINTS = [
    (100000, 0.3, 5.0, -1.0, 1.0),
    (20000, 0.4999, 20.0, -0.5, 0.25),
    (20000, 0.01, 1.001, -30.0, 3.0),
    (10000, 0.45, 1000.0, 0.0, 0.01),
    (20000, 0.0001, 50.0, -5.0, 5.0),
    (10000, 0.495, 5.0, -3.0, 2.0),
]


def halves(n, c, a, s, t):
    c, a = mpf(c), mpf(a)
    p, q = 1 / (1 + exp(-mpf(s))), 1 / (1 + exp(-mpf(t)))
    lc, lc1 = log(c), log(1 - c)
    lgn = loggamma(n + 1)
    out = []
    for x, y in ((p, q), (1 - p, 1 - q)):
        tot = mpf(0)
        for j in range(n // 2 + 1):
            lw = lgn - loggamma(j + 1) - loggamma(n - j + 1) + j * lc + (n - j) * lc1
            if 2 * j == n:
                lw -= log(2)
            e = exp((n - 2 * j) * (lc - lc1))
            u, v = x + (1 - x) * e, y + (1 - y) * e
            tot += exp(lw + a * log(u) + (1 - a) * log(v))
        out.append(log(tot))
    return out


which = [int(x) for x in sys.argv[1:]]
if not which:
    print("n,c,alpha,s,t,log_half0,log_half1")
for i, (n, c, a, s, t) in enumerate(POINTS):
    if which and i not in which:
        continue
    h0, h1 = halves(n, c, a, s, t)
    print(f"{n},{c!r},{a!r},{s!r},{t!r},{mp.nstr(h0, 30)},{mp.nstr(h1, 30)}")
