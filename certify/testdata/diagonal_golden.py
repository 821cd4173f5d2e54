#!/usr/bin/python3
"""Adds psi and its third derivatives in (s, r) at 60 digits to the
diagonal band's golden inputs (certify/diagonal_test.go).

    go test ./certify -run TestDiagonalGoldenInputs  (with DIAG_GOLDEN_WRITE=in.json)
    python3 certify/testdata/diagonal_golden.py in.json > certify/testdata/diagonal_golden.json

psi(p, q) = F_n(p, q)/U - k1 G(p, q)/E - k2 G(q, p)/E with U = e^LogU,
E = e^LogE, F_n the direct sum over j = 0..n of C(n, j) g(p b_j + (1-p)
b'_j, q b_j + (1-q) b'_j), b_j = c^j (1-c)^(n-j), b'_j = c^(n-j) (1-c)^j,
g(u, v) = u^alpha v^(1-alpha), G(p, q) = g(p, q) + g(1-p, 1-q); p =
1/(1+e^-s), q = 1/(1+e^-(s+r)). Derivatives by mpmath.diff at 60 digits.
"""
import json
import sys

from mpmath import mp, mpf, binomial, exp, diff, nstr

mp.dps = 60


def main():
    cases = json.load(open(sys.argv[1]))
    for cs in cases:
        n, c, a = cs["N"], mpf(cs["C"]), mpf(cs["Alpha"])
        k1, k2 = mpf(cs["K1"]), mpf(cs["K2"])
        U, E = exp(mpf(cs["LogU"])), exp(mpf(cs["LogE"]))
        w = [binomial(n, j) for j in range(n + 1)]
        b = [c**j * (1 - c) ** (n - j) for j in range(n + 1)]
        bb = [c ** (n - j) * (1 - c) ** j for j in range(n + 1)]

        def g(u, v):
            return u**a * v ** (1 - a)

        def psi(s, r):
            p = 1 / (1 + exp(-s))
            q = 1 / (1 + exp(-(s + r)))
            F = mp.fsum(w[j] * g(p * b[j] + (1 - p) * bb[j], q * b[j] + (1 - q) * bb[j]) for j in range(n + 1))
            G = g(p, q) + g(1 - p, 1 - q)
            H = g(q, p) + g(1 - q, 1 - p)
            return F / U - k1 * G / E - k2 * H / E

        for bx in cs["Boxes"]:
            bx["Psi"], bx["D3"] = [], []
            for s, r in bx["Points"]:
                s, r = mpf(s), mpf(r)
                bx["Psi"].append(nstr(psi(s, r), 40))
                bx["D3"].append([nstr(diff(psi, (s, r), (3 - k, k)), 30) for k in range(4)])
    json.dump(cases, sys.stdout, indent=1)
    print()


main()
