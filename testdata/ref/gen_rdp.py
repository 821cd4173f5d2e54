#!/usr/bin/env python3
"""Golden values for package rdp (rdp_curves.csv, rdp_convert.csv), independent of the Go code.

Written from the formulas alone (Mironov 2017 Propositions 3, 6, 7; Balle et al. 2020 Theorem 21),
with mpmath at mp.dps = 60, straight from the definitions (no log-space tricks are needed at 60
digits for these inputs).

Inputs are the exact binary doubles of the decimals in the tables (mpf(float(s))): the Go code
sees the same numbers, so a Go value that is rounded up must be >= the value here.

rdp_curves.csv   header mechanism,param,alpha,eps
  gaussian  param = sigma:  eps = alpha / (2 sigma^2)
  laplace   param = b:      eps = log( a/(2a-1) e^((a-1)/b) + (a-1)/(2a-1) e^(-a/b) ) / (a-1)
  rr        param = p:      eps = log( p^a (1-p)^(1-a) + (1-p)^a p^(1-a) ) / (a-1)

rdp_convert.csv  header mechanism,param,delta,conversion,eps,order,gap
  The curve of the mechanism on dp_accounting's 156 orders (1.1..10.9 step 0.1, 11..63, 128, 256,
  512, 1024), converted at delta:
  balle2020    eps_i = eps(a_i) + log((a_i-1)/a_i) - (log delta + log a_i)/(a_i-1)
  mironov2017  eps_i = eps(a_i) + log(1/delta)/(a_i-1)
  eps = max(0, min_i eps_i); order = the a_i attaining the minimum (the smallest on ties);
  gap = (second smallest eps_i - smallest) / smallest, so a test can tell whether the argmin is
  well defined in float64 (every row has gap > 1e-9 or eps = 0).

Usage: python3 gen_rdp.py    (writes both files next to this script; about 10 s)
Deterministic: fixed tables, no randomness.
"""
import os

from mpmath import mp, mpf, log, exp, nstr

mp.dps = 60

ORDERS = ["1.001", "1.1", "1.5", "2", "3.7", "10.9", "32", "63", "128", "1024", "100000"]
MECHS = [
    ("gaussian", ["0.5", "1", "2", "5", "100"]),
    ("laplace", ["0.01", "0.1", "0.5", "1", "2", "10", "1000", "100000"]),
    ("rr", ["0.3", "0.5", "0.5000001", "0.51", "0.75", "0.9", "0.999"]),
]
CONVERT = [
    ("gaussian", "0.5"), ("gaussian", "1"), ("gaussian", "2"), ("gaussian", "5"),
    ("gaussian", "20"), ("laplace", "1"), ("laplace", "10"), ("rr", "0.75"), ("rr", "0.99"),
]
DELTAS = ["0.1", "1e-3", "1e-5", "1e-10"]


def d(s):
    """The exact value of the double nearest to decimal s."""
    return mpf(float(s))


def eps_of(mech, param, a):
    if mech == "gaussian":
        return a / (2 * param * param)
    if mech == "laplace":
        b = param
        s = a / (2 * a - 1) * exp((a - 1) / b) + (a - 1) / (2 * a - 1) * exp(-a / b)
        return log(s) / (a - 1)
    if mech == "rr":
        p = param
        if p == mpf(1) / 2:
            return mpf(0)  # exactly: both terms are 1/2
        s = p ** a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)
        return log(s) / (a - 1)
    raise ValueError(mech)


def default_orders():
    out = [d(repr(i / 10)) for i in range(11, 110)]
    out += [mpf(a) for a in range(11, 64)]
    out += [mpf(a) for a in (128, 256, 512, 1024)]
    assert len(out) == 156
    return out


def convert(eps, a, delta, conv):
    if conv == "balle2020":
        return eps + log((a - 1) / a) - (log(delta) + log(a)) / (a - 1)
    return eps + log(1 / delta) / (a - 1)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "rdp_curves.csv"), "w") as f:
        f.write("mechanism,param,alpha,eps\n")
        for mech, params in MECHS:
            for ps in params:
                for a in ORDERS:
                    e = eps_of(mech, d(ps), d(a))
                    if mech == "laplace":
                        assert e <= 1 / d(ps)  # the pure-DP level bounds every order
                    f.write(f"{mech},{ps},{a},{nstr(e, 20)}\n")
    orders = default_orders()
    with open(os.path.join(here, "rdp_convert.csv"), "w") as f:
        f.write("mechanism,param,delta,conversion,eps,order,gap\n")
        for mech, ps in CONVERT:
            curve = [eps_of(mech, d(ps), a) for a in orders]
            for ds in DELTAS:
                delta = d(ds)
                for conv in ("balle2020", "mironov2017"):
                    vals = [convert(e, a, delta, conv) for e, a in zip(curve, orders)]
                    i = min(range(len(vals)), key=lambda j: vals[j])
                    best = vals[i]
                    second = min(v for j, v in enumerate(vals) if j != i)
                    eps = max(mpf(0), best)
                    gap = (second - best) / abs(best) if best != 0 else mpf("inf")
                    assert eps == 0 or gap > mpf("1e-9"), (mech, ps, ds, conv)
                    f.write(f"{mech},{ps},{ds},{conv},{nstr(eps, 20)},{nstr(orders[i], 20)},{nstr(gap, 3)}\n")


if __name__ == "__main__":
    main()
