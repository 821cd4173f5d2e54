#!/usr/bin/env python3
"""60-digit values of the amplified pure-DP level
eps' = log((e^eps rho + 1)/(rho + e^eps)), rho = ((1-c)/c)^(d k),
at the float64 inputs (c and eps are read as their exact binary values),
and eps' = d k log((1-c)/c) for eps = inf.

Usage: python3 gen_ref.py > ref.csv
"""
from mpmath import mp, mpf, log, exp, inf

mp.dps = 60

cs = [1e-6, 0.01, 0.1, 0.3, 0.4999]
dks = [(1, 1), (2, 1), (1, 7), (10, 10), (100, 100)]
epss = [1e-8, 0.1, 1.0, 10.0, 50.0, float("inf")]

print("d,k,c,eps,eps_out")
for c in cs:
    for d, k in dks:
        for eps in epss:
            C = mpf(c)
            L = d * k * log((1 - C) / C)
            if eps == float("inf"):
                v = L
            else:
                E = mpf(eps)
                # log((e^E rho + 1)/(rho + e^E)) with rho = e^L, in a form
                # that keeps 60 digits when rho or e^E is huge
                v = log((exp(E + L) + 1) / (exp(L) + exp(E)))
            print(f"{d},{k},{c!r},{eps!r},{mp.nstr(v, 30)}")
