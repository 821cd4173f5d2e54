#!/usr/bin/python3
"""Writes the inputs of verify's golden band boxes where F's pieces nearly
cancel G's (verify/band_test.go, TestBandDiffGolden): large l, c near
1/2, n of hundreds to thousands, alpha 100-1000, boxes along the diagonal
with s in [-32, 0]. The values are added by the band's mpmath script:

    python3 verify/testdata/band_diff_inputs.py > in.json
    python3 certify/testdata/diagonal_golden.py in.json > verify/testdata/band_diff_golden.json

Multipliers: those of certificates written by bernamp post (l1, l2,
log_u of the files; LogE = (alpha-1) eps), or K1 = K2 = E/2, log U = 0,
with which psi vanishes on the diagonal (F_n(p, p) = G(p, p) = 1).
"""
import json
import math
import random
import sys

# (n, c, alpha, eps, multipliers: (k1, k2, log U) or None for E/2, E/2, 0)
CASES = [
    (3342, 0.4572, 377.353, 0.003274, (0.9999993235485495, 2.039157150314295e-07, 1.23217883072385)),
    (93, 0.2909, 312.409, 0.001479, (0.9999672206098937, 7.813538338845395e-06, 0.4605600871333623)),
    (299, 0.4196, 89.3407, 0.001629, (0.9913163177454999, 0.0017170824993743684, 0.14284251105769208)),
    (1000, 0.49, 1000, 1e-3, None),
    (500, 0.45, 150, 0.01, None),
    (2000, 0.48, 600, 0.002, None),
]

# The box of the survey point (3342, ...) where the solver's D^(0,3)
# enclosure went from [-4.47e6, 4.47e6] to [-21, -1.4].
SURVEY_BOX = [-0.25, -0.1875, 0.0159, 0.01656]


def main():
    rng = random.Random(20261127)
    out = []
    for n, c, a, eps, mult in CASES:
        le = (a - 1) * eps
        if mult is None:
            k1 = k2 = math.exp(le) / 2
            lu = 0.0
        else:
            k1, k2, lu = mult
        cs = {"N": n, "C": c, "Alpha": a, "Eps": eps, "K1": k1, "K2": k2, "LogU": lu, "LogE": le, "Boxes": []}
        boxes = []
        if n == 3342:
            boxes.append(SURVEY_BOX)
        while len(boxes) < 6:
            ws = 10 ** (-2 + 1.5 * rng.random())
            s2 = -32 * rng.random() ** 2  # more boxes near s = 0
            wr = 10 ** (-1.3 + 1.9 * rng.random()) / a
            r1 = (16 * rng.random() - 8) / a - wr / 2
            boxes.append([s2 - ws, s2, r1, r1 + wr])
        for b in boxes:
            s1, s2, r1, r2 = b
            pts = [[s1, r2]]  # a corner
            for _ in range(2):
                pts.append([s1 + (s2 - s1) * rng.random(), r1 + (r2 - r1) * rng.random()])
            cs["Boxes"].append({"B": b, "Points": pts})
        out.append(cs)
    json.dump(out, sys.stdout, indent=1)
    print()


main()
