#!/usr/bin/env python3
"""Golden values for package mixing (mixing.csv, mixing_approx.csv), independent of the Go code.

Balle, Barthe, Gaboardi, Geumlek, "Privacy amplification by mixing and diffusion mechanisms"
(NeurIPS 2019), Definition 1 and Theorem 1, for the Bernoulli kernel B_k on [c, 1-c]^d, computed
from the definitions with mpmath at mp.dps = 60. Inputs are the exact binary doubles of the
decimals in the tables (mpf(float(s))), so a Go value rounded up must be >= the value here.

P_j = C(n,j) c^j (1-c)^(n-j) and Q_j = C(n,j) (1-c)^j c^(n-j), n = d k, are the laws of the total
number of ones under the antipodal corners c^d and (1-c)^d (a sufficient statistic for the pair).

mixing.csv, header kind,d,k,c,x,y,value. One row per quantity:
  dobrushin     x = y = 0:  sum_j |P_j - Q_j| / 2
  doeblin       x = y = 0:  1 - (sum_{m=0..k} C(k,m) min(c^m (1-c)^(k-m), c^(k-m) (1-c)^m))^d
  ultra_mixing  x = y = 0:  1 - (c/(1-c))^(d k)
  hockey        x = eps~:   sum_j max(0, P_j - e^eps~ Q_j)
  renyi         d = k = c = 0, x = alpha, y = eps, gamma in the kind column after a colon
                (renyi:<gamma>):  log(1 + gamma (e^((alpha-1) eps) - 1)) / (alpha-1)
  thm1_<item>   x = eps, y = delta; item dobrushin, dobrushin_hs, doeblin, ultra_mixing; two rows
                per case, kind thm1_<item>_eps and thm1_<item>_delta, giving eps' and delta' of
                Theorem 1 with gamma = the kernel's exact coefficient (the hockey-stick one at
                eps~ = log(1 + (e^eps - 1)/delta) for dobrushin_hs):
                  (1), (2)  eps' = eps, delta' = gamma delta
                  (3)       eps' = log(1 + gamma (e^eps - 1)), delta' = gamma (1 - e^(eps'-eps) (1 - delta))
                  (4)       eps' as (3), delta' = gamma delta e^(eps'-eps)

mixing_approx.csv, header item,d,k,c,sigma,delta,eps,delta_in,vacuous
  The best (eps, delta)-DP guarantee Theorem 1 item gives for B_k after a Gaussian mechanism with
  noise multiplier sigma (RDP eps(alpha) = alpha/(2 sigma^2) on dp_accounting's 156 orders), whose
  (eps_in, delta_in)-DP profile is the Balle et al. 2020 Theorem 21 conversion
      eps_in(delta_in) = max(0, min_i eps(a_i) + log((a_i-1)/a_i) - (log delta_in + log a_i)/(a_i-1)).
  eps' is increasing in eps_in and eps_in nonincreasing in delta_in, so the optimum is the largest
  delta_in in (0, 1) with delta'(delta_in) <= delta. It is located by a scan of 2000 values of
  log delta_in, equally spaced over [log delta - 6 ln 10, log(1 - 1e-15)], followed by 120 halvings
  of the interval between the largest feasible scan point and the scan point above it. vacuous = 1
  (eps and delta_in empty) when no scan point is feasible.

Usage: python3 gen_mixing.py   (writes both files next to this script; about a minute on 2 cores)
Deterministic: fixed tables, no randomness; a process pool computes rows written in fixed order.
"""
import os
from multiprocessing import Pool

from mpmath import mp, mpf, log, exp, binomial, nstr, inf

mp.dps = 60

KERNELS = [(1, 1), (1, 2), (2, 1), (1, 16), (3, 4), (10, 10), (1, 100), (100, 100), (1, 10000)]
CS = ["1e-6", "0.01", "0.1", "0.3", "0.45", "0.49", "0.4999"]
EPS_TILDES = ["0", "0.5", "3", "20"]
RENYI = [  # gamma, alpha, eps
    ("0.8", "5", "0.625"), ("0.8", "1.1", "0.1375"), ("0.8", "1024", "128"), ("0.8", "1024", "0.5"),
    ("1e-10", "2", "0.001"), ("1e-10", "63", "30"), ("0.999999", "10.9", "3"), ("1", "3", "2"),
    ("0.5", "1.001", "1e-6"), ("0.02", "700", "5"),
    ("0.8", "2", "0.5"), ("0.8", "5", "1"), ("0.8", "50", "2"),  # cmd/bernamp curve tests
]
THM1 = [  # d, k, c, eps, delta
    (1, 1, "0.1", "1", "1e-5"), (1, 4, "0.1", "2.5", "1e-6"), (2, 2, "0.3", "0.3", "0.01"),
    (1, 1, "0.45", "5", "1e-8"), (3, 4, "0.01", "0.7", "1e-3"), (1, 1, "0.1", "0", "0.5"),
    (10, 10, "0.49", "1", "1e-5"),
]
APPROX_KERNELS = [(1, 1, "0.1"), (1, 4, "0.1"), (2, 2, "0.3"), (1, 1, "0.01"), (1, 1, "0.45")]
SIGMAS = ["1", "4"]
APPROX_DELTAS = ["1e-5"]
ITEMS = ["dobrushin", "dobrushin_hs", "doeblin", "ultra_mixing"]


def d(s):
    return mpf(float(s))


def pq(n, c):
    P = [binomial(n, j) * c ** j * (1 - c) ** (n - j) for j in range(n + 1)]
    Q = P[::-1]
    return P, Q


def dobrushin(dd, k, c):
    P, Q = pq(dd * k, c)
    return sum(abs(p - q) for p, q in zip(P, Q)) / 2


def doeblin(dd, k, c):
    s = sum(binomial(k, m) * min(c ** m * (1 - c) ** (k - m), c ** (k - m) * (1 - c) ** m) for m in range(k + 1))
    return 1 - s ** dd


def ultra(dd, k, c):
    return 1 - (c / (1 - c)) ** (dd * k)


def hockey(dd, k, c, et):
    P, Q = pq(dd * k, c)
    return sum(max(mpf(0), p - exp(et) * q) for p, q in zip(P, Q))


def renyi(g, a, e):
    return log(1 + g * (exp((a - 1) * e) - 1)) / (a - 1)


def thm1(item, dd, k, c, eps, delta, hs_cache=None):
    if item == "dobrushin":
        return eps, dobrushin(dd, k, c) * delta
    if item == "dobrushin_hs":
        et = log(1 + (exp(eps) - 1) / delta) if delta > 0 else inf
        g = hockey(dd, k, c, et) if et != inf else mpf(0)
        return eps, g * delta
    g = doeblin(dd, k, c) if item == "doeblin" else ultra(dd, k, c)
    e2 = log(1 + g * (exp(eps) - 1))
    if item == "doeblin":
        return e2, g * (1 - exp(e2 - eps) * (1 - delta))
    return e2, g * delta * exp(e2 - eps)


def coef_rows(args):
    dd, k, cs = args
    c = d(cs)
    out = [("dobrushin", dd, k, cs, "0", "0", dobrushin(dd, k, c)),
           ("doeblin", dd, k, cs, "0", "0", doeblin(dd, k, c)),
           ("ultra_mixing", dd, k, cs, "0", "0", ultra(dd, k, c))]
    if dd * k <= 100:
        for et in EPS_TILDES:
            out.append(("hockey", dd, k, cs, et, "0", hockey(dd, k, c, d(et))))
    return out


def default_orders():
    out = [d(repr(i / 10)) for i in range(11, 110)]
    out += [mpf(a) for a in range(11, 64)]
    out += [mpf(a) for a in (128, 256, 512, 1024)]
    return out


ORDERS = None


def profile(sigma, din):
    best = None
    for a in ORDERS:
        v = a / (2 * sigma * sigma) + log((a - 1) / a) - (log(din) + log(a)) / (a - 1)
        if best is None or v < best:
            best = v
    return max(mpf(0), best)


def approx_row(args):
    item, dd, k, cs, ss, ds = args
    global ORDERS
    if ORDERS is None:
        ORDERS = default_orders()
    c, sigma, delta = d(cs), d(ss), d(ds)
    # Coefficients once; thm1 recomputes only the hockey-stick sum.
    coef = {"dobrushin": dobrushin(dd, k, c), "doeblin": doeblin(dd, k, c), "ultra_mixing": ultra(dd, k, c)}
    P, Q = pq(dd * k, c)

    def apply(din):
        eps = profile(sigma, din)
        if item == "dobrushin":
            return eps, coef[item] * din
        if item == "dobrushin_hs":
            et = log(1 + (exp(eps) - 1) / din)
            g = sum(max(mpf(0), p - exp(et) * q) for p, q in zip(P, Q))
            return eps, g * din
        g = coef[item]
        e2 = log(1 + g * (exp(eps) - 1))
        if item == "doeblin":
            return e2, g * (1 - exp(e2 - eps) * (1 - din))
        return e2, g * din * exp(e2 - eps)

    def feasible(din):
        return apply(din)[1] <= delta

    N = 2000
    lo, hi = log(delta) - 6 * log(10), log(1 - mpf("1e-15"))
    us = [hi - (hi - lo) * i / (N - 1) for i in range(N)]  # decreasing
    for i, u in enumerate(us):
        if feasible(exp(u)):
            if i > 0:
                a, b = u, us[i - 1]  # a feasible, b infeasible
                for _ in range(120):
                    m = (a + b) / 2
                    if feasible(exp(m)):
                        a = m
                    else:
                        b = m
                u = a
            eps, _ = apply(exp(u))
            return (item, dd, k, cs, ss, ds, nstr(eps, 20), nstr(exp(u), 20), "0")
    return (item, dd, k, cs, ss, ds, "", "", "1")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with Pool(2) as pool:
        coef = pool.map(coef_rows, [(dd, k, cs) for dd, k in KERNELS for cs in CS])
        approx = pool.map(approx_row, [(it, dd, k, cs, ss, ds) for dd, k, cs in APPROX_KERNELS
                                       for ss in SIGMAS for ds in APPROX_DELTAS for it in ITEMS])
    with open(os.path.join(here, "mixing.csv"), "w") as f:
        f.write("kind,d,k,c,x,y,value\n")
        for rows in coef:
            for r in rows:
                f.write(",".join(str(x) for x in r[:6]) + "," + nstr(r[6], 20) + "\n")
        for gs, a, e in RENYI:
            f.write(f"renyi:{gs},0,0,0,{a},{e},{nstr(renyi(d(gs), d(a), d(e)), 20)}\n")
        for dd, k, cs, es, ds in THM1:
            for item in ITEMS:
                e2, d2 = thm1(item, dd, k, d(cs), d(es), d(ds))
                f.write(f"thm1_{item}_eps,{dd},{k},{cs},{es},{ds},{nstr(e2, 20)}\n")
                f.write(f"thm1_{item}_delta,{dd},{k},{cs},{es},{ds},{nstr(d2, 20)}\n")
    with open(os.path.join(here, "mixing_approx.csv"), "w") as f:
        f.write("item,d,k,c,sigma,delta,eps,delta_in,vacuous\n")
        for r in approx:
            f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
