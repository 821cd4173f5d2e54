#!/usr/bin/env python3
"""References for package accountant and rdp.DPAccounting (see README.md).

dp_accounting.csv: Google dp_accounting's compute_epsilon and compute_delta
(python/dp_accounting/dp_accounting/rdp/rdp_privacy_accountant.py), the rule
as published, evaluated in mpmath at 60 digits on Gaussian curves.
asymptote.csv: d k r_alpha(c), the amplified level of an order with eps = inf.
"""
from mpmath import mp, mpf, log, log1p, expm1, exp, sqrt

mp.dps = 60


def default_orders():
    return [i / 10 for i in range(11, 110)] + list(range(11, 64)) + [128, 256, 512, 1024]


ORDERS = {"default": default_orders(), "low": [1.001, 1.005, 1.01, 1.02, 1.5, 2, 4, 8, 16]}


def gaussian(sigma, orders):
    s = mpf(sigma)
    return [mpf(a) / (2 * s * s) for a in orders]


def compute_epsilon(orders, rdp, delta):
    """dp_accounting.rdp.compute_epsilon, exactly as published, in mpmath."""
    d = mpf(delta)
    eps = []
    for a, r in zip(orders, rdp):
        a = mpf(a)
        if d**2 + expm1(-r) > 0:
            e = mpf(0)
        elif a > mpf(1.01):
            e = r + log1p(-1 / a) - log(d * a) / (a - 1)
        else:
            e = mp.inf
        eps.append(e)
    i = min(range(len(eps)), key=lambda j: (eps[j], j))
    return max(mpf(0), eps[i]), orders[i], eps


def compute_delta(orders, rdp, epsilon):
    """dp_accounting.rdp.compute_delta, exactly as published, in mpmath."""
    e = mpf(epsilon)
    ld = []
    for a, r in zip(orders, rdp):
        a = mpf(a)
        l = -mp.inf if r == 0 else log1p(-exp(-r)) / 2
        if a > mpf(1.01):
            l = min(l, (a - 1) * (r - e + log1p(-1 / a)) - log(a))
        ld.append(l)
    i = min(range(len(ld)), key=lambda j: (ld[j], j))
    return min(exp(ld[i]), mpf(1)), orders[i], ld


def gap(vals, i):
    """Relative distance from vals[i] to the nearest other distinct value."""
    best = mp.inf
    for j, v in enumerate(vals):
        if j != i and v != vals[i] and v != mp.inf:
            best = min(best, abs(v - vals[i]) / max(abs(vals[i]), mpf(1e-300)))
    return best


def main():
    with open("dp_accounting.csv", "w") as f:
        f.write("kind,orders,sigma,delta,eps_out,value,order\n")
        for grid in ("default", "low"):
            orders = ORDERS[grid]
            for sigma in (0.5, 1, 2, 5, 50, 1000):
                rdp = gaussian(sigma, orders)
                for delta in (0.1, 1e-3, 1e-5, 1e-10):
                    eps, order, vals = compute_epsilon(orders, rdp, delta)
                    i = orders.index(order)
                    # the argmin must not hinge on rounding (ties at an exact 0 of the
                    # KL line keep the first index, in both codes)
                    assert vals[i] == 0 or gap(vals, i) > 1e-9, (grid, sigma, delta)
                    # the KL test must not hinge on rounding either
                    for r in rdp:
                        t = mpf(delta) ** 2 + expm1(-r)
                        assert abs(t) > 1e-12 * mpf(delta) ** 2, (grid, sigma, delta)
                    if eps == mp.inf:
                        continue
                    f.write(f"epsilon,{grid},{sigma},{delta},,{mp.nstr(eps, 25)},{order}\n")
                for eps_out in (0, 0.5, 1, 5):
                    dl, order, vals = compute_delta(orders, rdp, eps_out)
                    i = orders.index(order)
                    assert dl == 0 or dl == 1 or gap(vals, i) > 1e-9, (grid, sigma, eps_out)
                    f.write(f"delta,{grid},{sigma},,{eps_out},{mp.nstr(dl, 25)},{order}\n")
    with open("asymptote.csv", "w") as f:
        f.write("d,k,c,alpha,asymptote\n")
        for d, k in ((1, 1), (1, 4), (2, 1), (3, 2)):
            for c in (0.01, 0.1, 0.3, 0.45):
                for alpha in (1.1, 2, 10.5, 63, 1024):
                    p, a = mpf(c), mpf(alpha)
                    r = log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)
                    f.write(f"{d},{k},{c},{alpha},{mp.nstr(d * k * r, 25)}\n")


CAL_ORDERS = [2, 4, 8, 16, 32, 64]


def balle(a, r, delta):
    a = mpf(a)
    return r + log1p(-1 / a) - (log(mpf(delta)) + log(a)) / (a - 1)


def sampling_alone_eps(n, c, steps, delta):
    """eps of steps releases of B_k on [c, 1-c]^d with eps = inf at every order:
    the curve steps * n * r_alpha(c), n = d k, converted by Balle et al. 2020
    Theorem 21 (clamped at 0) over CAL_ORDERS."""
    p = mpf(c)
    best = mp.inf
    for a in CAL_ORDERS:
        a = mpf(a)
        r = log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)
        best = min(best, balle(a, steps * n * r, delta))
    return max(mpf(0), best)


def calibrate():
    """calibrate.csv: the exact answers of accountant.Calibrate on a curve with
    eps = inf at every order (only the sampling protects), where the amplified
    curve is the closed form d k r_alpha(c)."""
    rows = []
    for d, k, steps, target, delta in ((1, 1, 1, 1.0, 1e-5), (2, 1, 10, 2.0, 1e-5), (1, 3, 100, 5.0, 1e-6)):
        # smallest c with sampling_alone_eps <= target: the eps falls as c grows
        lo, hi = mpf("1e-12"), mpf("0.5") - mpf("1e-12")
        assert sampling_alone_eps(d * k, hi, steps, delta) < target < sampling_alone_eps(d * k, lo, steps, delta)
        for _ in range(200):
            mid = (lo + hi) / 2
            if sampling_alone_eps(d * k, mid, steps, delta) <= target:
                hi = mid
            else:
                lo = mid
        rows.append(f"c,{d},{k},,{steps},{target},{delta},{mp.nstr(hi, 25)}")
    for d, c, steps, target, delta in ((1, 0.3, 1, 3.0, 1e-5), (1, 0.4, 10, 20.0, 1e-5), (2, 0.45, 100, 50.0, 1e-6)):
        kk = 0
        while sampling_alone_eps(d * (kk + 1), c, steps, delta) <= target:
            kk += 1
        assert kk >= 1
        # the boundary must not hinge on rounding
        assert abs(sampling_alone_eps(d * kk, c, steps, delta) - target) > 1e-6
        assert abs(sampling_alone_eps(d * (kk + 1), c, steps, delta) - target) > 1e-6
        rows.append(f"k,{d},,{c},{steps},{target},{delta},{kk}")
    with open("calibrate.csv", "w") as f:
        f.write("solve,d,k,c,steps,eps,delta,answer\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
    calibrate()
