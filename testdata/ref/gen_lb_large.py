#!/usr/bin/env python3
"""Golden values of the Theorem 4 lower bound LB at large n = d k (lb_large.csv).

Columns: d,k,c,alpha,eps,lb   (lb to 20 significant digits)

Definition (shared/design/math.md section 4), with n = d k and p in (0, 1/2] the root of
r_alpha(p) = eps:
    P_j = p c^j (1-c)^(n-j) + (1-p) c^(n-j) (1-c)^j
    Q_j = (1-p) c^j (1-c)^(n-j) + p c^(n-j) (1-c)^j
    LB  = log( f ) / (alpha-1),   f = sum_{j=0..n} C(n,j) P_j^alpha Q_j^(1-alpha).

Inputs: unlike bounds.csv, the input columns are read as the float64 values nearest to the
printed decimals, converted exactly (mpf(float(s))). Near c = 1/2 LB is proportional to
(1-2c)^2, and the decimal 0.4999999 and its double differ by 1e-10 relative in 1-2c, far more
than the 1e-12 the Go tests allow. alpha and eps are exact in binary here anyway.

Method. Write b_j = C(n,j) c^j (1-c)^(n-j) (the Binomial(n, c) pmf) and u_j = ((1-c)/c)^(2j-n).
Then C(n,j) P_j = b_j (p + (1-p) u_j), C(n,j) Q_j = b_j ((1-p) + p u_j), and the j-th term
of f is t_j = b_j X_j^alpha / Y_j^(alpha-1) with X_j = p + (1-p) u_j, Y_j = (1-p) + p u_j.
alpha is an integer in every row, so the powers are repeated multiplications.

Window and proved tail bound. The map (x, y) -> x^alpha y^(1-alpha) is convex and
1-homogeneous on (0, inf)^2, hence subadditive. (P_j, Q_j) = A_j (p, 1-p) + B_j (1-p, p)
with A_j = c^j (1-c)^(n-j), B_j = c^(n-j) (1-c)^j, so
    t_j <= K1 b_j + K2 b_{n-j},   K1 = p^alpha (1-p)^(1-alpha),  K2 = (1-p)^alpha p^(1-alpha).
The sum runs over W = [L, H] u [n-H, n-L] (one interval when they meet), L = floor(nc - z s),
H = ceil(nc + z s), s = sqrt(n c (1-c)). A j outside W has j outside [L, H] and n-j outside
[L, H], so the omitted part of f is at most (K1 + K2) Pr[X not in [L, H]], X ~ Binomial(n, c),
and by Chernoff Pr[X < L] <= exp(-n KL(L/n || c)), Pr[X > H] <= exp(-n KL(H/n || c)). The sum
over W is a lower bound on f; the script widens W (z += 2) until this tail bound T is below
1e-30 (f_W - 1), so the written lb is below the exact LB by less than 1e-30 relative.

Arithmetic. The setup (p, the first b_j and u_j of each interval, KL, logs) uses mpmath at
mp.dps = 80 (log C(n, j) is about 1e13 at n = 1e12, so 80 digits leave more than 60). The sum
over W, up to 4e7 terms, runs in Python's decimal module (libmpdec) at 60 digits, with the
recurrences b_{j+1} = b_j (n-j)/(j+1) c/(1-c) and u_{j+1} = u_j ((1-c)/c)^2, restarted from
mpmath at the start of each interval. Each step rounds at 1e-60 relative, so 4e7 steps move
b_j by at most about 1e-52 relative.

Usage:
  python3 gen_lb_large.py           write lb_large.csv next to this script
  python3 gen_lb_large.py --check   also recompute the rows with n <= 1e9 at 80 digits (decimal
                                    and mpmath) with z + 3, and the n = 1e4 rows by the plain
                                    full sum with exact integer binomials (as gen_bounds.py),
                                    and print the largest relative differences
Deterministic: fixed row list; rows computed one after another.
"""
import decimal
import os
import sys
import time

from mpmath import mp, mpf, log, exp, sqrt, loggamma, floor, ceil, nstr

# d, k, c, alpha, eps. y = (1-2c) sqrt(n) says where a row sits: n r_alpha(c) is about
# 2 alpha y^2, so LB is well below eps for y << 1 and is eps up to e^-(huge) for y >> 1.
ROWS = [
    # n = 1e4
    (10000, 1, "0.499", "5", "1"),          # y = 0.2
    (10000, 1, "0.4999", "2", "0.5"),       # y = 0.02: LB tiny
    (100, 100, "0.49", "50", "2"),          # y = 2
    (10000, 1, "0.4", "5", "1"),            # y = 20: LB = eps to more than 20 digits
    # n = 1e6
    (1000000, 1, "0.4999", "5", "1"),       # y = 0.2
    (1000, 1000, "0.4999", "50", "2"),      # y = 0.2
    (1000000, 1, "0.499", "2", "0.5"),      # y = 2
    (1000000, 1, "0.49", "5", "1"),         # y = 20: LB = eps to 20 digits
    # n = 1e9
    (1000000000, 1, "0.49999", "5", "1"),   # y = 0.32
    (1000000, 1000, "0.4999", "2", "2"),    # y = 6.3
    (1000, 1000000, "0.499999", "50", "0.5"),  # y = 0.063
    (1000000000, 1, "0.499", "5", "2"),     # y = 63: LB = eps to 20 digits
    # n = 1e12
    (1000000000000, 1, "0.4999999", "5", "1"),     # y = 0.2
    (1000000, 1000000, "0.499999", "2", "0.5"),    # y = 2
    (10000, 100000000, "0.4999995", "50", "2"),    # y = 1
    (1000000000000, 1, "0.4999", "2", "1"),        # y = 200: LB = eps to 20 digits
]


def renyi(p, a):
    return log(p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)) / (a - 1)


def solve_p(a, eps):
    # r_alpha is decreasing on (0, 1/2] from +inf to 0; bisection on log p. The bracket
    # [-(eps + 10), log(1/2)] is valid since r_alpha(p) >= KL-type bound (1-2p) log((1-p)/p).
    lo, hi = -(eps + 10), log(mpf(1) / 2)
    for _ in range(300):
        mid = (lo + hi) / 2
        if renyi(exp(mid), a) > eps:
            lo = mid
        else:
            hi = mid
    return exp((lo + hi) / 2)


def kl(x, c):
    return x * log(x / c) + (1 - x) * log((1 - x) / (1 - c))


def log_binom_pmf(n, j, c):
    return loggamma(n + 1) - loggamma(j + 1) - loggamma(n - j + 1) + j * log(c) + (n - j) * log(1 - c)


def interval_sum(n, lo, hi, c, p, a, prec):
    """sum_{j=lo..hi} b_j X_j^a / Y_j^(a-1) in decimal at prec digits (recurrences)."""
    ctx = decimal.Context(prec=prec, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    dig = prec + 10
    D = lambda x: ctx.create_decimal(nstr(x, dig, min_fixed=1, max_fixed=0))
    b = D(exp(log_binom_pmf(n, lo, c)))
    u = D(exp((2 * lo - n) * log((1 - c) / c)))
    kap = D(c / (1 - c))
    w2 = D(((1 - c) / c) ** 2)
    pd, qd = D(p), D(1 - p)
    ai = int(a)
    s = ctx.create_decimal(0)
    mul, div, add = ctx.multiply, ctx.divide, ctx.add
    for j in range(lo, hi + 1):
        X = add(pd, mul(qd, u))
        Y = add(qd, mul(pd, u))
        r = div(X, Y)
        s = add(s, mul(mul(b, X), ctx.power(r, ai - 1)))
        b = mul(b, div(mul(kap, n - j), j + 1))
        u = mul(u, w2)
    return mpf(str(s))


def lb_row(d, k, cs, als, es, dps=60, extra_z=0):
    mp.dps = dps + 20
    n = d * k
    c, a, eps = mpf(float(cs)), mpf(float(als)), mpf(float(es))
    assert a == int(a) and a >= 2
    p = solve_p(a, eps)
    assert abs(renyi(p, a) - eps) < mpf(10) ** (-(dps + 5)) * max(1, eps)
    K = p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)
    s = sqrt(n * c * (1 - c))
    z = sqrt(2 * (log(K) + 80)) + extra_z
    while True:
        L = int(max(0, floor(n * c - z * s)))
        H = int(min(n, ceil(n * c + z * s)))
        T = 0
        if L > 0:
            T += exp(-n * kl(mpf(L) / n, c))
        if H < n:
            T += exp(-n * kl(mpf(H) / n, c))
        T *= K
        if H >= n - H:   # the mirrored interval meets [L, H]: one interval
            parts = [(L, n - L)]
        else:
            parts = [(L, H), (n - H, n - L)]
        f = sum(interval_sum(n, lo, hi, c, p, a, dps) for lo, hi in parts)
        nterms = sum(hi - lo + 1 for lo, hi in parts)
        if T <= mpf(10) ** -30 * (f - 1):
            break
        z += 2
    lb = log(f) / (a - 1)
    return lb, dict(n=n, terms=nterms, z=float(z), tail_rel=float(T / (f - 1)) if f > 1 else 0.0)


def lb_full_exact(d, k, cs, als, es, dps=60):
    """Plain full sum over j = 0..n with exact integer binomials (as gen_bounds.py), log space."""
    mp.dps = dps
    n = d * k
    c, a, eps = mpf(float(cs)), mpf(float(als)), mpf(float(es))
    p = solve_p(a, eps)
    lc, l1c, lp, l1p = log(c), log(1 - c), log(p), log(1 - p)
    C = 1
    terms = []
    for j in range(n + 1):
        lA = j * lc + (n - j) * l1c
        lB = (n - j) * lc + j * l1c
        lP = mp.log(exp(lp + lA) + exp(l1p + lB))
        lQ = mp.log(exp(l1p + lA) + exp(lp + lB))
        terms.append(log(C) + a * lP + (1 - a) * lQ)
        C = C * (n - j) // (j + 1)
    m = max(terms)
    return (m + log(sum(exp(t - m) for t in terms))) / (a - 1)


def main():
    check = "--check" in sys.argv
    here = os.path.dirname(os.path.abspath(__file__))
    out = ["d,k,c,alpha,eps,lb"]
    worst = {}
    for row in ROWS:
        t0 = time.time()
        lb, info = lb_row(*row)
        out.append("%d,%d,%s,%s,%s,%s" % (row + (nstr(lb, 20),)))
        print(out[-1], info, "%.1fs" % (time.time() - t0), flush=True)
        if check and info["n"] <= 10**9:
            lb2, _ = lb_row(*row, dps=80, extra_z=3)
            mp.dps = 80
            r = abs(lb2 - lb) / lb
            worst["dps80,z+3"] = max(worst.get("dps80,z+3", 0), float(r))
            print("   check dps 80, z+3: rel diff %.2g" % r, flush=True)
            if info["n"] <= 10**4:
                lb3 = lb_full_exact(*row)
                mp.dps = 80
                r = abs(lb3 - lb) / lb
                worst["full exact sum"] = max(worst.get("full exact sum", 0), float(r))
                print("   check full exact sum: rel diff %.2g" % r, flush=True)
    with open(os.path.join(here, "lb_large.csv"), "w") as fh:
        fh.write("\n".join(out) + "\n")
    if check:
        print("largest relative differences:", worst)


if __name__ == "__main__":
    main()
