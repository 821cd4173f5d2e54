#!/usr/bin/python3
"""Writes the input files of the profile certificates' tests (verify/testdata/profile-rdp-*,
profile-points-*): rdp_gaussian.csv, the Gaussian mechanism's RDP curve at sigma 2 (alpha/8 at
dp_accounting-like orders, exact in binary), and points_subsampled.csv, the subsampled Gaussian's
profile (q 0.1, sigma 1; remove direction delta, add direction delta_reverse) at eps 0, 0.1, ..., 6
by mpmath at 50 digits, raised by 1e-12 relative (upper bounds), and points_remove.csv, its
remove direction alone. pld_gaussian.json is not written here: it is
`bernamp compose --mechanism gaussian --sigma 4 --c 0.2 --steps 2 --discretization 1e-3
--emit-pld testdata/compose/pld_gaussian.json` (a composed PLD used as an input)."""
from mpmath import mp, mpf, ncdf, exp, log

mp.dps = 50
with open("rdp_gaussian.csv", "w") as f:
    f.write("alpha,eps\n")
    for a in [1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256]:
        f.write(f"{a},{a / 8!r}\n")
q, mu = mpf("0.1"), mpf(1)


def remove(e):
    a = exp(e)
    u = log((a - 1 + q) / q) / mu + mu / 2
    return q * (1 - ncdf(u - mu)) - (a - 1 + q) * (1 - ncdf(u))


def add(e):
    a = exp(e)
    w = 1 - a * (1 - q)
    if w <= 0:
        return mpf(0)
    u = log((exp(-e) - 1 + q) / q) / mu + mu / 2
    return w * ncdf(u) - a * q * ncdf(u - mu)


up = 1 + mpf("1e-12")
rows = [(float(mpf(i) / 10), float(remove(mpf(i) / 10) * up), float(add(mpf(i) / 10) * up)) for i in range(61)]
with open("points_subsampled.csv", "w") as f:
    f.write("eps,delta,delta_reverse\n")
    for e, r, a in rows:
        f.write(f"{e!r},{r!r},{a!r}\n")
# the remove direction alone: a symmetric mechanism with that profile
with open("points_remove.csv", "w") as f:
    f.write("eps,delta\n")
    for e, r, _ in rows:
        f.write(f"{e!r},{r!r}\n")
