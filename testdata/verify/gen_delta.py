#!/usr/bin/env python3
"""60-digit references for the delta-pieces certificates in testdata/verify/delta.

For each file (n, c, eps, eps_out, l1, l2 read as the exact decimals they spell),
prints the maximum over the cell vertices of

    Phi(p, q) = sum_j [M_j(p) - g M_j(q)]_+ - l1 h(p, q) - l2 h(q, p),
    M_j(x) = x B_j + (1-x) B_(n-j),  B_j = C(n, j) c^j (1-c)^(n-j),
    h(p, q) = [p - e q]_+ + [(1-p) - e (1-q)]_+,  e = exp(eps), g = exp(eps_out),

with the vertices found independently of the Go checker: every pairwise
intersection, inside the unit square, of the eight lines p - e q = 0,
p - e q = 1 - e, q - e p = 0, q - e p = 1 - e, p = 0, p = 1, q = 0, q = 1.
For n <= 1000 it also checks that Phi at 200 random points of the square is
at most the vertex maximum (Phi is convex on each cell; a failure raises).

    python3 testdata/verify/gen_delta.py > testdata/verify/delta/refs.csv
"""
import glob
import json
import os
import random

from mpmath import mp, mpf, exp, binomial

mp.dps = 60
TINY = mpf(10) ** -90  # weights below it: their terms add at most 2 TINY each


def weights(n, c):
    b = [mpf(0)] * (n + 1)
    b[0] = (1 - c) ** n
    r = c / (1 - c)
    for j in range(1, n + 1):
        b[j] = b[j - 1] * (n - j + 1) / j * r
    return b


def vertices(e):
    lines = [(1, -e, 0), (1, -e, 1 - e), (-e, 1, 0), (-e, 1, 1 - e),
             (1, 0, 0), (1, 0, 1), (0, 1, 0), (0, 1, 1)]
    tol = mpf(10) ** -50
    out = []
    for i in range(len(lines)):
        for k in range(i + 1, len(lines)):
            a1, b1, r1 = lines[i]
            a2, b2, r2 = lines[k]
            det = a1 * b2 - b1 * a2
            if abs(det) < tol:
                continue
            p = (r1 * b2 - b1 * r2) / det
            q = (a1 * r2 - r1 * a2) / det
            if -tol <= p <= 1 + tol and -tol <= q <= 1 + tol:
                p, q = min(max(p, 0), 1), min(max(q, 0), 1)
                if all(abs(p - x) > tol or abs(q - y) > tol for x, y in out):
                    out.append((p, q))
    return out


def phi(p, q, b, n, g, e, l1, l2, idx):
    s = mpf(0)
    for j in idx:
        t = p * b[j] + (1 - p) * b[n - j] - g * (q * b[j] + (1 - q) * b[n - j])
        if t > 0:
            s += t
    h = lambda x, y: max(x - e * y, 0) + max((1 - x) - e * (1 - y), 0)
    return s - l1 * h(p, q) - l2 * h(q, p)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    print("file,vertices,phi_max")
    for path in sorted(glob.glob(os.path.join(here, "delta", "*.json"))):
        f = json.load(open(path))
        n = f["n"]
        c, eps, eo = mpf(f["c"]), mpf(f["eps"]), mpf(f["eps_out"])
        l1, l2 = mpf(f["l1"]), mpf(f["l2"])
        e, g = exp(eps), exp(eo)
        b = weights(n, c)
        idx = [j for j in range(n + 1) if b[j] >= TINY or b[n - j] >= TINY]
        vs = vertices(e)
        best = max(phi(p, q, b, n, g, e, l1, l2, idx) for p, q in vs)
        if n <= 1000:
            rng = random.Random(31)
            for _ in range(200):
                p, q = mpf(rng.random()), mpf(rng.random())
                v = phi(p, q, b, n, g, e, l1, l2, idx)
                if v > best + mpf(10) ** -40:
                    raise SystemExit("%s: Phi(%s, %s) = %s above the vertex maximum %s" % (path, p, q, v, best))
        print("%s,%d,%s" % (os.path.basename(path), len(vs), mp.nstr(best, 40, min_fixed=-1000, max_fixed=1000)))


if __name__ == "__main__":
    main()
