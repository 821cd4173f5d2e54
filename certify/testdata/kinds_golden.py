#!/usr/bin/env python3
"""Golden values of every kind's sum of the halves of F_n for certify's
shared-factor test (TestKindsGolden).

For each (n, c, alpha, p, q) below, the point is stored as the float64 logs
(log p, log(1-p), log q, log(1-q)) rounded from 60-digit values; the sums are
those of exactly these logs, as the model reads them: x = e^(log x) and
1 - x = e^(log(1-x)). For each half (half 0: x, y = p, q; half 1: x, y =
1-p, 1-q) and kind (i, j') with i + j' <= 3 it prints log of

  sum_{j=0}^{floor(n/2)} w_j (1-e_j)^(i+j') u_j^(alpha-i) v_j^(1-alpha-j'),

u_j = x + (1-x) e_j, v_j = y + (1-y) e_j, w_j = C(n, j) c^j (1-c)^(n-j)
(halved at j = n/2), e_j = (c/(1-c))^(n-2j), c the float64 given, every
term summed at 60 digits (mpmath). Columns: n, c, alpha, the four logs
(repr, exact float64), half, i, j', log sum (30 digits).
Run: python3 certify/testdata/kinds_golden.py > certify/testdata/kinds_golden.csv
(about a minute).
"""
from mpmath import mp, mpf, exp, log, loggamma

mp.dps = 60

POINTS = [
    (1000, 0.3, 5.0, "0.2", "0.7"),
    (5000, 0.495, 1000.0, "0.3", "0.3001"),
    (20000, 0.4999, 1.001, "0.01", "0.9"),
    (10000, 0.01, 20.0, "1e-12", "0.5"),
    (2000, 0.45, 50.0, "0.6", "0.4"),
    (10000, 0.495, 1000.0, "0.02", "0.985"),
    (4000, 0.2, 3.0, "1e-200", "0.999"),
    (2000, 0.3, 1000.0, "1e-30", "2e-30"),
    (3000, 0.1, 700.0, "1e-100", "0.5"),
]

KINDS = [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]

print("n,c,alpha,lp,lp1,lq,lq1,half,i,j,log_sum")
for n, c, a, ps, qs in POINTS:
    p, q = mpf(ps), mpf(qs)
    lp, lp1, lq, lq1 = (float(log(x)) for x in (p, 1 - p, q, 1 - q))
    cm, am = mpf(c), mpf(a)
    lc, lc1 = log(cm), log(1 - cm)
    lgn = loggamma(n + 1)
    for half, (lx, lx1, ly, ly1) in enumerate(((lp, lp1, lq, lq1), (lp1, lp, lq1, lq))):
        x, x1, y, y1 = (exp(mpf(v)) for v in (lx, lx1, ly, ly1))
        tot = [mpf(0)] * len(KINDS)
        for j in range(n // 2 + 1):
            lw = lgn - loggamma(j + 1) - loggamma(n - j + 1) + j * lc + (n - j) * lc1
            if 2 * j == n:
                lw -= log(2)
            e = exp((n - 2 * j) * (lc - lc1))
            lu, lv = log(x + x1 * e), log(y + y1 * e)
            lo = log(1 - e) if 2 * j < n else None
            for k, (i, jj) in enumerate(KINDS):
                if i + jj > 0 and lo is None:
                    continue
                t = lw + (am - i) * lu + (1 - am - jj) * lv
                if i + jj > 0:
                    t += (i + jj) * lo
                tot[k] += exp(t)
        for k, (i, jj) in enumerate(KINDS):
            print(f"{n},{c!r},{a!r},{lp!r},{lp1!r},{lq!r},{lq1!r},{half},{i},{jj},{mp.nstr(log(tot[k]), 30)}")
