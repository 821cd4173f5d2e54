#!/usr/bin/python3
"""References for verify's TestRDPBoundReference: delta(e) = min over the orders of an RDP
curve's conversion to (e, delta)-DP, at 50 digits (mpmath), for the three conversions of
docs/certificates.md (mironov2017, balle2020, dp_accounting). Prints Go test rows."""
from mpmath import mp, mpf, exp, log, log1p, sqrt, inf

mp.dps = 50
# The Gaussian's curve at sigma 2 (alpha/8) and a small curve (alpha/800 from 1.001) where
# dp_accounting's KL line binds; orders and values exact in binary or decimal as written.
curves = {
    "gauss2": ([1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256], lambda a: mpf(a) / 8),
    "small": (["1.001", "1.005", "1.01", "1.5", "2", "4", "8", "32"], lambda a: mpf(a) / 800),
}


def delta(conv, orders, rdp, e):
    best = mpf(1)
    for a, r in zip(orders, rdp):
        a = mpf(a)
        cands = []
        balle = exp((a - 1) * (r + log1p(-1 / a) - e) - log(a))
        if conv == "mironov2017":
            cands.append(exp((a - 1) * (r - e)))
        elif conv == "balle2020":
            cands.append(balle)
        else:
            cands.append(sqrt(1 - exp(-r)))
            if a > mpf(1.01):  # the float 1.01, as dp_accounting compares
                cands.append(balle)
        best = min(best, min(cands))
    return best


for name, (orders, f) in curves.items():
    rdp = [f(a) for a in orders]
    for conv in ["mironov2017", "balle2020", "dp_accounting"]:
        for e in ["0", "0.5", "1", "3", "10"]:
            print(f'{{"{name}", "{conv}", {e}, "{mp.nstr(delta(conv, orders, rdp, mpf(e)), 30)}"}},')
