#!/usr/bin/env python3
"""The 60-digit values of certify's TestFindingSmallEps (issue 33 item 5).

At n = 2, c = 0.001, alpha = 1.01, eps = 1e-6 (the definitions of gen_certify_kkt.py:
g(u, v) = u^a v^(1-a), r(p) = log(g(p, 1-p) + g(1-p, p))/(a-1), p* < 1/2 with r(p*) = eps,
F, G, U = F(p*, 1-p*), E = exp((a-1) eps)), it prints
  * the first-order multipliers of the normalized inequality F/U - k1 G/E - k2 G^T/E <= l0
    (gradients by mpmath.diff, Cramer's rule): k1 = 0.99799600003214905..., k2 = 1.99999...e-6;
  * psi(p, p) - l0 on the diagonal with those multipliers (-6.7e-21: the inequality holds there)
    and with the solver's float64 ones, k1 = 0.998003804615572, k2 = 0 (+5.804592222e-14: it
    fails, by more than tau = 5e-16 at tol 1e-13).
Usage: python3 gen_finding_small_eps.py   (about a second; prints only)
"""
from mpmath import mp, mpf, log, exp, binomial, findroot, diff

mp.dps = 60
n, c, a, eps = 2, mpf("0.001"), mpf("1.01"), mpf("1e-6")


def g(u, v):
    return u**a * v**(1 - a)


def r(p):
    return log(g(p, 1 - p) + g(1 - p, p)) / (a - 1)


ps = findroot(lambda p: r(p) - eps, mpf("0.4999"))
assert 0 < ps < mpf(1) / 2
b = [c**j * (1 - c) ** (n - j) for j in range(n + 1)]
bp = [c ** (n - j) * (1 - c) ** j for j in range(n + 1)]


def F(p, q):
    return sum(binomial(n, j) * g(p * b[j] + (1 - p) * bp[j], q * b[j] + (1 - q) * bp[j]) for j in range(n + 1))


def G(p, q):
    return g(p, q) + g(1 - p, 1 - q)


E = exp((a - 1) * eps)
U = F(ps, 1 - ps)
fp, fq = diff(lambda p: F(p, 1 - ps), ps) / U, diff(lambda q: F(ps, q), 1 - ps) / U
gp, gq = diff(lambda p: G(p, 1 - ps), ps) / E, diff(lambda q: G(ps, q), 1 - ps) / E
hp, hq = diff(lambda p: G(1 - ps, p), ps) / E, diff(lambda q: G(q, ps), 1 - ps) / E
det = gp * hq - hp * gq
k1, k2 = (fp * hq - hp * fq) / det, (gp * fq - fp * gq) / det
print("p*", mp.nstr(ps, 20), "LB", mp.nstr(log(U) / (a - 1), 20))
print("k1", mp.nstr(k1, 20), "k2", mp.nstr(k2, 20))
for name, K1, K2 in [("reference", k1, k2), ("solver", mpf(0.998003804615572), 0)]:
    def psi(p, q):
        return F(p, q) / U - K1 * G(p, q) / E - K2 * G(q, p) / E
    l0 = psi(ps, 1 - ps)
    for p in ["0.3775406687981454", "0.2"]:
        print(name, "multipliers: psi(p, p) - l0 at p =", p, mp.nstr(psi(mpf(p), mpf(p)) - l0, 10))
