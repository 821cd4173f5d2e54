#!/usr/bin/env python3
"""60-digit references for the checker's enclosures (verify/arith_test.go).

Each row: kind, x, a, value. x and a are float64 values written with
repr (shortest round trip), read by mpmath exactly (mpf(float)); value is
exp(x), log(x) or x**a to 60 significant digits.
Run: python3 testdata/verify/gen_arith.py > testdata/verify/arith.csv
"""
import random
from mpmath import mp, mpf, exp, log, nstr

mp.dps = 80
rnd = random.Random(25)
rows = []
xs_exp = [0.0, 1e-300, -1e-300, 5e-324, 1e-9, -1e-9, 0.1, -0.1, 0.5, 1.0, -1.0, 2.0, 0.6931471805599453,
          10.0, -10.0, 100.5, -100.5, 700.0, -700.0, 745.2, 1e4, -1e4, 123456.789, -123456.789]
xs_exp += [rnd.uniform(-50, 50) for _ in range(20)] + [rnd.uniform(-1, 1) * 10 ** rnd.uniform(-20, 5) for _ in range(20)]
for x in xs_exp:
    rows.append(("exp", repr(x), "0", nstr(exp(mpf(x)), 60, min_fixed=-1, max_fixed=-1)))
xs_log = [5e-324, 1e-300, 1e-20, 0.1, 0.5, 0.7071067811865476, 0.7071067811865475, 0.9999999999999999, 1.0,
          1.0000000000000002, 1.5, 2.0, 3.0, 10.0, 1e20, 1e300, 1.7976931348623157e308]
xs_log += [10 ** rnd.uniform(-300, 300) for _ in range(20)] + [rnd.uniform(0.5, 2) for _ in range(20)]
for x in xs_log:
    rows.append(("log", repr(x), "0", nstr(log(mpf(x)), 60, min_fixed=-1, max_fixed=-1)))
pows = [(0.1, 5.0), (0.9, -49.0), (0.5, 50.0), (1e-10, 1.01), (0.3, 0.5), (2.5, -3.25), (1e-300, 1.5), (0.999, 1000.0)]
pows += [(10 ** rnd.uniform(-50, 0), rnd.uniform(-100, 100)) for _ in range(20)]
for x, a in pows:
    rows.append(("pow", repr(x), repr(a), nstr(mpf(x) ** mpf(a), 60, min_fixed=-1, max_fixed=-1)))
print("kind,x,a,value")
for r in rows:
    print(",".join(r))
