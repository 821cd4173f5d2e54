#!/usr/bin/env python3
"""Golden values for the per-coordinate ranges bounds (ranges.csv), independent of the Go code.

Columns: k,alpha,eps,ranges,asym,ub,lb0,lb   (20 significant digits, mpmath, mp.dps = 80)
  ranges  "lo:hi,lo:hi,..." one interval [lo_l, hi_l] per coordinate theta_l
  asym    U_inf = k sum_l max(R(hi_l||lo_l), R(lo_l||hi_l)),
          R(a||b) = log(a^al b^(1-al) + (1-a)^al (1-b)^(1-al)) / (al-1)
  ub      min(eps, asym)
  lb0     the Theorem 4 pair on the antipodal corners a = (lo_l), b = (hi_l):
          P = p delta_a + (1-p) delta_b, Q = (1-p) delta_a + p delta_b, r_al(p) = eps,
          value max(R(B_k P || B_k Q), R(B_k Q || B_k P))
  lb      the same pair maximized over every orientation of the corners (a_l in {lo_l, hi_l},
          b_l the other end), i.e. over the 2^(d-1) antipodal pairs in both directions

R(B_k P || B_k Q) is evaluated by brute force over outputs: for each coordinate the count of
ones among its k draws (a sufficient statistic), outputs m in {0..k}^d, A_m = prod_l
C(k, m_l) a_l^m_l (1-a_l)^(k-m_l), B_m likewise, P_m = p A_m + (1-p) B_m, Q_m = (1-p) A_m +
p B_m, value log(sum_m P_m^al Q_m^(1-al)) / (al-1). Rows with (k+1)^d > 20000 outputs merge
coordinates that share a range and an orientation into one count (Binomial(k n, theta)), and
orientations that differ only by permuting such coordinates are tried once; every row with
(k+1)^d <= 20000 is computed both ways and the script asserts that they agree to 1e-50.

p: the root of r_al(p) = log(p^al (1-p)^(1-al) + (1-p)^al p^(1-al)) / (al-1) = eps on
(0, 1/2], by bisection on log p in [-(eps + 10), log(1/2)] with 300 halvings.

Inputs: every number (lo, hi, alpha, eps) is read as the float64 nearest to its decimal string
and then used exactly (mpf(float(s))), which is what a float64 program sees: narrow ranges such
as 0.5:0.5000001 would otherwise differ from the program's input in the 10th digit of hi-lo.

Usage: python3 gen_ranges.py   writes ranges.csv next to this script (about 5 s on 2 cores).
Deterministic: fixed row list, no randomness.
"""
import csv
import itertools
import os
from multiprocessing import Pool

from mpmath import mp, mpf, log, binomial, nstr

DPS = 80

# (k, alpha, eps, ranges)
ROWS = [
    # the sanity rows of design/math.md section 4 as ranges (c = 0.1: 0.1:0.9)
    (1, "5", "0.5", "0.1:0.9"),
    (1, "5", "1", "0.1:0.9"),
    (1, "5", "2", "0.1:0.9"),
    # symmetric ranges with d > 1
    (2, "3", "1", "0.2:0.8,0.2:0.8,0.2:0.8"),
    (4, "50", "5", "0.01:0.99,0.01:0.99"),
    # one asymmetric coordinate
    (3, "5", "1", "0.2:0.6"),
    (1, "2", "0.3", "0.05:0.5"),
    (8, "10", "2", "0.6:0.95"),
    (16, "1.5", "0.05", "0.3:0.35"),
    # several coordinates, all different
    (2, "2", "0.5", "0.01:0.5,0.3:0.4"),
    (2, "5", "1", "0.1:0.9,0.2:0.9,0.01:0.5,0.3:0.4"),
    (1, "5", "2", "0.1:0.2,0.1:0.3,0.7:0.9"),
    (3, "20", "4", "0.05:0.95,0.4:0.6"),
    (1, "1.01", "0.001", "0.2:0.25,0.5:0.7,0.1:0.15,0.85:0.9,0.3:0.31"),
    # equal asymmetric ranges (grouped counts in the program)
    (2, "4", "1.5", "0.05:0.3,0.05:0.3,0.05:0.3"),
    (1, "7", "0.8", "0.15:0.4,0.15:0.4,0.15:0.4,0.6:0.85,0.6:0.85"),
    # mixtures with many coordinates (merged counts here too)
    (3, "3", "0.7", ",".join(["0.3:0.7"] * 10 + ["0.05:0.2"] * 2)),
    (1, "2", "1", ",".join(["0.1:0.4"] * 20)),
    # narrow ranges: tiny divergences, cancellation in the direct formula
    (1, "10", "2", "0.5:0.5000001,0.5:0.5000001,0.5:0.5000001"),
    (4, "2", "0.1", "0.3:0.30001,0.7:0.7001"),
    # extremes
    (2, "50", "5", "1e-6:0.999999,1e-6:0.999999"),
    (1, "1000", "50", "0.001:0.9,0.02:0.5"),
    (5, "1.01", "0.001", "0.001:0.002,0.001:0.002"),
    (2, "100", "20", "0.01:0.02,0.98:0.99"),
    # tiny probabilities and large eps: log-likelihood ratios far from 0
    (1, "1.5", "50", "1e-6:0.999999"),
    (1, "1.5", "50", "1e-9:0.01"),
    (2, "2", "30", "1e-6:0.5,0.3:0.999999"),
    (3, "1.2", "40", "0.99:0.999999999,0.001:0.9"),
]


def num(s):
    return mpf(float(s))


def parse(ranges):
    out = []
    for item in ranges.split(","):
        lo, hi = item.split(":")
        out.append((num(lo), num(hi)))
    return out


def renyi(a, b, al):
    return log(a**al * b**(1 - al) + (1 - a)**al * (1 - b)**(1 - al)) / (al - 1)


def rsym(p, al):
    # written out (not renyi(p, 1 - p, al), whose 1 - (1 - p) cancels when p is tiny)
    q = 1 - p
    return log(p**al * q**(1 - al) + q**al * p**(1 - al)) / (al - 1)


def p_of(al, eps):
    lo, hi = -(eps + 10), log(mpf(1) / 2)  # r(e^lo) > eps >= r(e^hi) = 0
    for _ in range(300):
        mid = (lo + hi) / 2
        if rsym(mp.exp(mid), al) > eps:
            lo = mid
        else:
            hi = mid
    return mp.exp(hi)


def binpmf(n, m, t):
    return binomial(n, m) * t**m * (1 - t)**(n - m)


def pair_value(subs, p, al):
    """subs: list of (a, b, n): n coins, bias a under corner a and b under corner b.
    Returns max(R(BP||BQ), R(BQ||BP))."""
    tabs = [([binpmf(n, m, a) for m in range(n + 1)], [binpmf(n, m, b) for m in range(n + 1)])
            for a, b, n in subs]
    fpq = fqp = mpf(0)
    for ms in itertools.product(*[range(n + 1) for _, _, n in subs]):
        A = B = mpf(1)
        for (ta, tb), m in zip(tabs, ms):
            A *= ta[m]
            B *= tb[m]
        P = p * A + (1 - p) * B
        Q = (1 - p) * A + p * B
        fpq += P**al * Q**(1 - al)
        fqp += Q**al * P**(1 - al)
    return max(log(fpq), log(fqp)) / (al - 1)


def ungrouped(rs, k, orient, p, al):
    """orient[l] = 1 when corner a takes hi_l. One count per coordinate."""
    subs = [((hi, lo, k) if o else (lo, hi, k)) for (lo, hi), o in zip(rs, orient)]
    return pair_value(subs, p, al)


def grouped(rs, k, flips, groups, p, al):
    """groups: list of (lo, hi, size); flips[g] of the group's coordinates have a = hi."""
    subs = []
    for (lo, hi, size), f in zip(groups, flips):
        if f > 0:
            subs.append((hi, lo, k * f))
        if f < size:
            subs.append((lo, hi, k * (size - f)))
    return pair_value(subs, p, al)


def row(spec):
    mp.dps = DPS
    k, als, epss, rstr = spec
    al, eps = num(als), num(epss)
    rs = parse(rstr)
    d = len(rs)
    asym = k * sum(max(renyi(hi, lo, al), renyi(lo, hi, al)) for lo, hi in rs)
    ub = min(eps, asym)
    p = p_of(al, eps)
    assert abs(rsym(p, al) - eps) < mpf(10)**(-60)
    groups = []
    for lo, hi in rs:
        for g in groups:
            if g[0] == lo and g[1] == hi:
                g[2] += 1
                break
        else:
            groups.append([lo, hi, 1])
    classes = list(itertools.product(*[range(g[2] + 1) for g in groups]))
    vals = {fl: grouped(rs, k, fl, groups, p, al) for fl in classes}
    lb0 = vals[tuple(0 for _ in groups)]
    lb = max(vals.values())
    if (k + 1)**d <= 20000:
        # cross-check: one count per coordinate, every orientation vector
        best = mpf("-inf")
        for orient in itertools.product([0, 1], repeat=d):
            v = ungrouped(rs, k, orient, p, al)
            best = max(best, v)
            if not any(orient):
                assert abs(v - lb0) <= mpf(10)**(-50) * abs(lb0), (spec, v, lb0)
        assert abs(best - lb) <= mpf(10)**(-50) * abs(lb), (spec, best, lb)
    assert 0 <= lb0 <= lb <= ub * (1 + mpf(10)**(-50)), (spec, lb0, lb, ub)
    return [str(k), als, epss, rstr] + [nstr(v, 20) for v in (asym, ub, lb0, lb)]


def main():
    with Pool(2) as pool:
        out = pool.map(row, ROWS)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ranges.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["k", "alpha", "eps", "ranges", "asym", "ub", "lb0", "lb"])
        w.writerows(out)


if __name__ == "__main__":
    main()
