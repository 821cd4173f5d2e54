"""Reference values for package hockey (see README.md), with mpmath at 60 digits.

delta_ref.csv: delta'(eps') of the d = 1 corner program, by exact vertex
enumeration of the feasible polygon in the two masses (a, b) = (P(c), Q(c)):
the constraints H_e(P||Q) <= delta and H_e(Q||P) <= delta are the four lines
a - e b <= delta, (1-a) - e(1-b) <= delta and their mirrors, plus the unit
square; the objective H_g(B_k P || B_k Q) is convex in (a, b), so its maximum
over the polygon is at a vertex. No canonical pair, no linear program.

profile_ref.csv: the same vertex enumeration on a grid of eps' including
negative eps' (level e^eps' < 1), for the privacy profile of `bernamp delta
--profile`.

gaussian_ref.csv: the Gaussian privacy profile of Balle and Wang (2018),
delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s).
"""
import itertools
from mpmath import mp, mpf, exp, binomial, ncdf, nstr

mp.dps = 60


def delta_out(k, c, eps, delta, eps_out):
    c, eps, delta, eps_out = mpf(c), mpf(eps), mpf(delta), mpf(eps_out)
    e, g = exp(eps), exp(eps_out)
    w0 = [binomial(k, m) * c**m * (1 - c)**(k - m) for m in range(k + 1)]
    w1 = [binomial(k, m) * (1 - c)**m * c**(k - m) for m in range(k + 1)]
    # lines p*a + q*b <= r
    lines = [
        (1, -e, delta),            # a - e b <= delta
        (-1, e, delta + e - 1),    # (1-a) - e(1-b) <= delta
        (-e, 1, delta),            # b - e a <= delta
        (e, -1, delta + e - 1),    # (1-b) - e(1-a) <= delta
        (1, 0, 1), (-1, 0, 0), (0, 1, 1), (0, -1, 0),
    ]
    tol = mpf(10)**-45
    best = mpf(-1)
    for (p1, q1, r1), (p2, q2, r2) in itertools.combinations(lines, 2):
        det = p1 * q2 - p2 * q1
        if det == 0:
            continue
        a = (r1 * q2 - r2 * q1) / det
        b = (p1 * r2 - p2 * r1) / det
        if any(p * a + q * b > r + tol for p, q, r in lines):
            continue
        h = mpf(0)
        for m in range(k + 1):
            u = a * w0[m] + (1 - a) * w1[m]
            v = b * w0[m] + (1 - b) * w1[m]
            if u > g * v:
                h += u - g * v
        best = max(best, h)
    return best


cases = []
for k in (1, 2, 4, 8):
    for c in ("0.1", "0.3"):
        for eps, delta, eps_out in (("1", "0.05", "0.3"), ("1", "0", "0.5"), ("2", "1e-5", "0"),
                                    ("0.5", "0.2", "0.5"), ("5", "1e-3", "1.5")):
            cases.append((k, c, eps, delta, eps_out))

with open("delta_ref.csv", "w") as f:
    f.write("d,k,c,eps,delta,eps_out,delta_out\n")
    for k, c, eps, delta, eps_out in cases:
        v = delta_out(k, c, eps, delta, eps_out)
        f.write(f"1,{k},{c},{eps},{delta},{eps_out},{nstr(v, 30, min_fixed=-1, max_fixed=-1)}\n")

with open("gaussian_ref.csv", "w") as f:
    f.write("sigma,eps,delta\n")
    for s in ("0.5", "1", "2", "4"):
        for eps in ("0", "0.25", "1", "2", "4"):
            S, E = mpf(s), mpf(eps)
            d = ncdf(1 / (2 * S) - E * S) - exp(E) * ncdf(-1 / (2 * S) - E * S)
            f.write(f"{s},{eps},{nstr(d, 30, min_fixed=-1, max_fixed=-1)}\n")

# Privacy profiles: eps' from -3 to 3 (step 0.25, plus 2.19 and 2.2 either side of
# log((1-c)/c) = 2.1972 at c = 0.1, k = 1).
profile_cases = [(1, "0.1", "1", "0.05"), (2, "0.1", "1", "0.05"), (3, "0.2", "0.5", "1e-3"), (1, "0.1", "2", "0")]
grid = [f"{i / 4:g}" for i in range(-12, 13)] + ["2.19", "2.2"]
with open("profile_ref.csv", "w") as f:
    f.write("d,k,c,eps,delta,eps_out,delta_out\n")
    for k, c, eps, delta in profile_cases:
        for eps_out in grid:
            v = delta_out(k, c, eps, delta, eps_out)
            f.write(f"1,{k},{c},{eps},{delta},{eps_out},{nstr(v, 30, min_fixed=-1, max_fixed=-1)}\n")
