#!/usr/bin/python3
"""Reference values of the exact amplified Gaussian profile at extreme points.

Regenerate (from the repository root):

    /usr/bin/python3 testdata/ref/amplified_profile.py > testdata/ref/amplified_profile.csv

Progress and self-checks go to stderr; the script stops (AssertionError) if a
self-check fails. Needs only mpmath (Debian's python3-mpmath). It does not read
or run any Go code.

Mathematics (shared/design/math.md section 3d). The Gaussian mechanism with
sensitivity 1 and noise sigma (mu = 1/sigma) has the profile

    delta_M(e) = Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu).

Fed into n = d*k Bernoulli samples over [c, 1-c]^d, its exact amplified profile
at e' >= 0, g = e^e', is

    delta'(e') = max_{t = -1..n} [ M_t delta_M - m_t (delta_M + g - 1) ]_+ ,
    M_t = P(Binomial(n, c) <= t),  m_t = P(Binomial(n, 1-c) <= t),  M_-1 = m_-1 = 0.

The increment from t-1 to t is b_c(t) delta_M - b_{1-c}(t) (delta_M + g - 1)
(b = binomial pmf), positive iff ((1-c)/c)^(n-2t) > (delta_M + g - 1)/delta_M,
a condition monotone in t; so the maximiser is the largest such t,

    t* = ceil((n - lambda/log rho)/2) - 1,  lambda = log((delta_M + g - 1)/delta_M),
    rho = (1-c)/c,

clamped to [-1, n]. The script evaluates t*-1, t*, t*+1 and takes the max with
0, and checks the sign of the increments at t* and t*+1 from the pmfs (so t* is
the argmax, not just assumed to be); for n in {1, 7} it also takes the maximum
over every t.

Binomial cdfs. mpmath.betainc (regularized) is used as a cross-check for n <= 1000,
but its hypergeometric series does not converge for n = 10^6 at c = 0.1 ("converges
too slowly"), so the values come from direct sums of the pmf: the tail on the far side
of t from the mode, P(X <= t) for t below the mode and 1 - P(X > t) otherwise,
summed outward from t with the ratio recurrence of the pmf. All terms are positive; the
terms decrease outward (log-concavity), so after stopping at term T with next ratio
r < 1 the remainder is at most T r/(1-r), which the script asserts is below
10^-(dps+5) of the sum. The first term is exp(log C(n,t) + t log p + (n-t) log q)
with loggamma at the working precision. Working precision: mp.dps = 50 (plus 20
guard digits inside the cdf); every row is recomputed at mp.dps = 70 and the two
must agree to 1e-40 relative (absolute 1e-400 for values that small).

Inputs: the grid values are Python floats (IEEE doubles), converted to mpf
exactly, so the reference is the exact value at the same doubles a float64
program sees (c = 0.1 means the double nearest to 0.1). sigma in {0.5, 2, 8}
makes mu exact.

Grid: n in {1, 7, 1000, 10^6, 10^9}, c in {1e-6, 1e-3, 0.1, 0.3, 0.49},
sigma in {0.5, 2, 8}, e' in {0, 0.01, 1, 5, 20, 50}: 450 rows, all written.
A delta' below 1e-300 is written as it rounds to a double (possibly a
subnormal, or 0.0 when it is below 2^-1075); the Go test treats values within
1e-300 absolute as equal.

Output columns: n,c,sigma,eps,delta; c, sigma, eps and delta are repr() of
doubles (delta rounded to nearest from the 50-digit value).
"""

import sys
import time

import mpmath
from mpmath import mp, mpf

NS = [1, 7, 1000, 10**6, 10**9]
CS = [1e-6, 1e-3, 0.1, 0.3, 0.49]
SIGMAS = [0.5, 2.0, 8.0]
EPSS = [0.0, 0.01, 1.0, 5.0, 20.0, 50.0]


def log_pmf(j, n, p, q):
    """log of the Binomial(n, p) pmf at j (q = 1 - p)."""
    lc = mp.loggamma(n + 1) - mp.loggamma(j + 1) - mp.loggamma(n - j + 1)
    lp = (j * mp.log(p) if j > 0 else mpf(0)) + ((n - j) * mp.log(q) if n - j > 0 else mpf(0))
    return lc + lp


def tail_sum(n, p, q, start, step):
    """sum of pmf(j) for j = start, start+step, ... within [0, n], where the
    terms decrease in the direction of step from start on (start on the far
    side of the mode)."""
    if start < 0 or start > n:
        return mpf(0)
    term = mp.exp(log_pmf(start, n, p, q))
    s = term
    j = start
    tol = mpf(10) ** (-(mp.dps + 5))
    while True:
        if step < 0:
            if j == 0:
                return s
            r = (j * q) / ((n - j + 1) * p)  # pmf(j-1)/pmf(j)
        else:
            if j == n:
                return s
            r = ((n - j) * p) / ((j + 1) * q)  # pmf(j+1)/pmf(j)
        assert r < 1, (n, p, start, step, j)
        if term * r / (1 - r) < tol * s:
            # The remainder: the ratios only fall further out, so the
            # remaining terms are below a geometric series of ratio r.
            return s
        term = term * r
        j += step
        s += term


def cdf(n, p, t):
    """P(Binomial(n, p) <= t) for integer t, p in (0, 1)."""
    if t < 0:
        return mpf(0)
    if t >= n:
        return mpf(1)
    with mp.extradps(20):  # loggamma(n+1) ~ 2e10 at n = 10^9: 11 digits go to its size
        q = 1 - p  # exact: p is a double or 1 - a double
        mode = int(mp.floor((n + 1) * p))
        if t < mode:
            v = tail_sum(n, p, q, t, -1)
        else:
            v = 1 - tail_sum(n, p, q, t + 1, +1)
    return +v


def delta_gauss(sigma, e):
    mu = 1 / sigma
    return mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu)


def value_at(n, c, dm, gm1, t):
    if t < 0 or t > n:
        return mpf(0)
    M = cdf(n, c, t)
    m = cdf(n, 1 - c, t)
    return M * dm - m * (dm + gm1)


def amplified(n, c, sigma, e):
    """delta'(e) at the current precision, and the t* used."""
    c = mpf(c)
    e = mpf(e)
    dm = delta_gauss(mpf(sigma), e)
    assert dm > 0
    gm1 = mp.expm1(e)
    lrho = mp.log((1 - c) / c)
    lam = mp.log1p(gm1 / dm)
    x = (n - lam / lrho) / 2
    if x > n + 1:
        ts = n
    elif x < 0:
        ts = -1
    else:
        ts = int(mp.ceil(x)) - 1
    best = mpf(0)
    for t in (ts - 1, ts, ts + 1):
        best = max(best, value_at(n, c, dm, gm1, t))
    # t* is the argmax: the increment at t* is > 0 and at t*+1 is <= 0.
    q = 1 - c

    def incr(t):
        return mp.exp(log_pmf(t, n, c, q)) * dm - mp.exp(log_pmf(t, n, q, c)) * (dm + gm1)

    if 0 <= ts <= n:
        assert incr(ts) > 0, (n, c, sigma, e, ts)
    if 0 <= ts + 1 <= n:
        assert incr(ts + 1) <= 0, (n, c, sigma, e, ts)
    if n <= 7:
        brute = max([mpf(0)] + [value_at(n, c, dm, gm1, t) for t in range(n + 1)])
        assert brute == best, (n, c, sigma, e, brute, best)
    return best, ts


def close(a, b, rel, absl):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + absl


def selfcheck_cdf():
    """mpmath.betainc against the pmf sums where betainc converges (n <= 1000)."""
    mp.dps = 50
    for n in [1, 7, 1000]:
        for c in CS:
            c = mpf(c)
            for t in sorted({0, 1, n // 2 - 1, n // 2, n // 2 + 1, int(n * c), int(n * c) + 3, n - 1}):
                if t < 0 or t >= n:
                    continue
                for p in (c, 1 - c):
                    # P(Bin(n, p) <= t) = I_{1-p}(n - t, t + 1)
                    ref = mpmath.betainc(n - t, t + 1, 0, 1 - p, regularized=True)
                    got = cdf(n, p, t)
                    assert close(got, ref, mpf(10) ** -40, mpf(0)), (n, p, t, got, ref)


def main():
    t0 = time.time()
    selfcheck_cdf()
    print("cdf self-check against betainc: ok (%.1f s)" % (time.time() - t0), file=sys.stderr)
    out = ["n,c,sigma,eps,delta"]
    zeros = 0
    for n in NS:
        for c in CS:
            for sigma in SIGMAS:
                for e in EPSS:
                    mp.dps = 50
                    v50, ts = amplified(n, c, sigma, e)
                    mp.dps = 70
                    v70, ts70 = amplified(n, c, sigma, e)
                    assert ts == ts70, (n, c, sigma, e)
                    assert close(v50, v70, mpf(10) ** -40, mpf(10) ** -400), (n, c, sigma, e, v50, v70)
                    mp.dps = 50
                    f = float(v50)
                    if f < 1e-300:
                        zeros += 1
                    out.append("%d,%r,%r,%r,%r" % (n, c, sigma, e, f))
            print("n=%d c=%r done (%.1f s)" % (n, c, time.time() - t0), file=sys.stderr)
    print("\n".join(out))
    print("%d rows, %d below 1e-300, %.1f s" % (len(out) - 1, zeros, time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
