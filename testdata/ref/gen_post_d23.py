#!/usr/bin/env python3
"""Reference values for the corner program at d = 2, 3 (Algorithms 2 and 3), independent of the Go code.

Writes post_d23.csv: d,k,c,alpha,eps,post,lb,support,restarts,seconds (20 significant digits).

Program (shared/design/math.md sections 1, 2, 4), with the paper's RAW outputs of Algorithm 3:
  corners z in {0,1}^d (bit l of the integer z is coordinate l; bit 0 -> theta_l = c, 1 -> 1-c);
  outputs o = k-tuples of d-bit strings, o in 0 .. 2^(dk)-1 (bits s*d .. s*d+d-1 = round s),
  K[o, z] = prod_{s,l} theta_l^b (1-theta_l)^(1-b)  (b = bit l of round s of o);
  NO sufficient-statistic reduction is used.
  F(x, y) = sum_o (Kx)_o^a (Ky)_o^(1-a); g(x, y) = sum_z x_z^a y_z^(1-a);
  feasible: g(x, y) <= E and g(y, x) <= E, E = exp((a-1) eps); post = log(max F)/(a-1).
  The conjecture post = lb is NOT used; lb comes from shared/tools/hpref.py (mpmath, 60 digits).

Method (global search, plain float64, then mpmath verification):
  * Support S: every subset of corners of size 2, 3, 4, and the full set (x and y must share
    the support: for a > 1, x_z = 0 < y_z makes g(y, x) infinite).
  * Parameterization: softmax logits for x and y on S (first logit fixed to 0). A logit pair
    (x, y) is mapped to the feasible boundary by a RADIAL PROJECTION: m = (x+y)/2,
    x_t = m + t (x-m), y_t = m - t (x-m). h(t) = max(g(x_t,y_t), g(y_t,x_t)) is convex in t with
    h(0) = 1 < E and h -> inf at the simplex edge t_max, so there is exactly one t* with
    h(t*) = E. F(x_t, y_t) is convex in t with its minimum 1 at t = 0, hence nondecreasing for
    t >= 0: the projection never lowers F, and every projected point is feasible.
  * Local ascent: Nelder-Mead on -log F(projection(logits)) (one restart of the simplex at the
    best vertex), from random starts (logits ~ N(0, sd^2), sd drawn from {0.5, 1, 2, 4}) on
    every support, plus starts at the Theorem 4 (LB) pair (support {0^d, 1^d}) and at small
    random perturbations of it on every support that contains 0^d and 1^d. The number of
    restarts per support is fixed (deterministic; seed per point).
  * The projected point is renormalized to sum 1 in float (for nearly mirrored x, y the step t
    is huge and an O(1e-16) sum(x-y) would leave O(1e-13) excess mass that float F rewards).
  * Polish: the 8 best local results are re-run with a tight Nelder-Mead; corners with mass
    < 1e-12 in both x and y are dropped and the reduced support re-polished (kept if not worse).
  * Verification (mpmath, mp.dps = 40): the best point's direction is projected again in mpmath
    (bisection, 150 halvings, keeping the FEASIBLE end: g(x,y) <= E and g(y,x) <= E checked
    exactly at 40 digits); F is evaluated at 40 digits on the raw 2^(dk) outputs; post =
    log(F)/(a-1). The Theorem 4 pair itself is verified the same way; post is the larger of the
    two verified values (the search alone is reported on stderr as search_minus_lb). The CSV
    value is thus a verified LOWER bound on Post (a feasible witness), not an upper bound.
  Support column: the corners with nonzero mass of the verified point, as bit strings written
  coordinate 1 first (e.g. "01" = theta_1 = c, theta_2 = 1-c), joined by ';'.

Usage: python3 gen_post_d23.py [out.csv]      (2 worker processes; deterministic)
"""
import itertools
import math
import os
import random
import subprocess
import sys
import time
from multiprocessing import Pool

from mpmath import mp, mpf

HERE = os.path.dirname(os.path.abspath(__file__))
HPREF = os.path.join(HERE, "..", "..", "..", "shared", "tools", "hpref.py")
if not os.path.exists(HPREF):
    HPREF = "/work/shared/tools/hpref.py"

# (d, k, c, alpha, eps, restarts per support)
POINTS = [
    (2, 1, "0.1", "5", "0.5", 120),
    (2, 1, "0.1", "5", "1", 120),
    (2, 1, "0.1", "5", "2", 120),
    (2, 1, "0.3", "2", "3", 120),
    (2, 1, "0.2", "4", "1.5", 120),
    (2, 2, "0.2", "3", "1.3", 100),
    (2, 2, "0.1", "5", "1", 100),
    (2, 2, "0.1", "5", "3", 100),
    (2, 2, "0.3", "2", "0.5", 100),
    (3, 1, "0.2", "4", "1.5", 6),
    (3, 1, "0.1", "2", "2", 6),
    (3, 1, "0.3", "5", "1", 6),
]


def kernel(d, k, c, one, mul):
    """Raw-output kernel K[o][z] over 2^(dk) outputs and 2^d corners (generic arithmetic)."""
    n_out, n_cor = 2 ** (d * k), 2 ** d
    K = []
    for o in range(n_out):
        row = []
        for z in range(n_cor):
            val = one
            for s in range(k):
                for l in range(d):
                    th = c if ((z >> l) & 1) == 0 else one - c
                    b = (o >> (s * d + l)) & 1
                    val = mul(val, th if b else one - th)
            row.append(val)
        K.append(row)
    return K


class Problem:
    def __init__(self, d, k, c, a, eps):
        self.d, self.k, self.c, self.a, self.eps = d, k, c, a, eps
        self.E = math.exp((a - 1) * eps)
        self.logE = (a - 1) * eps
        self.K = kernel(d, k, c, 1.0, lambda u, v: u * v)
        self.nevals = 0

    def g(self, x, y):
        a = self.a
        s = 0.0
        for xi, yi in zip(x, y):
            if xi == 0.0 and yi == 0.0:
                continue
            if yi <= 0.0:
                return math.inf
            if xi <= 0.0:
                continue
            s += math.exp(a * math.log(xi) + (1 - a) * math.log(yi))
        return s

    def h(self, x, y):
        return max(self.g(x, y), self.g(y, x))

    def logF(self, S, xs, ys):
        a = self.a
        tot = 0.0
        for row in self.K:
            u = 0.0
            v = 0.0
            for i, z in enumerate(S):
                kz = row[z]
                u += kz * xs[i]
                v += kz * ys[i]
            tot += math.exp(a * math.log(u) + (1 - a) * math.log(v))
        return math.log(tot)

    def project(self, xs, ys):
        """Radial projection of (xs, ys) to the boundary h = E; returns (t, x_t, y_t)."""
        n = len(xs)
        m = [(xs[i] + ys[i]) / 2 for i in range(n)]
        dx = [(xs[i] - ys[i]) / 2 for i in range(n)]
        tmax = math.inf
        for i in range(n):
            if dx[i] != 0.0:
                tmax = min(tmax, m[i] / abs(dx[i]))
        if tmax == math.inf:
            return None

        def pt(t):
            # renormalize: for nearly mirrored (x, y) the step t is large and sum(dx) = O(1e-16)
            # would otherwise leave O(1e-13) excess mass, which float F rewards spuriously
            u = [m[i] + t * dx[i] for i in range(n)]
            w = [m[i] - t * dx[i] for i in range(n)]
            su, sw = sum(u), sum(w)
            return [v / su for v in u], [v / sw for v in w]

        def phi(t):
            x, y = pt(t)
            if min(x) <= 0.0 or min(y) <= 0.0:
                return math.inf
            hv = self.h(x, y)
            return math.log(hv) - self.logE if hv > 0 else -math.inf

        lo, hi = 0.0, tmax
        flo, fhi = -self.logE, math.inf
        # bisection until phi(hi) finite, then Illinois regula falsi on the bracket
        side = 0
        for it in range(200):
            if hi - lo <= 1e-15 * tmax:
                break
            if math.isinf(fhi) or it % 4 == 3:
                t = 0.5 * (lo + hi)
            else:
                t = hi - fhi * (hi - lo) / (fhi - flo)
                if not (lo < t < hi):
                    t = 0.5 * (lo + hi)
            f = phi(t)
            if f <= 0.0:
                lo, flo = t, f
                if side == -1:
                    fhi *= 0.5
                side = -1
            else:
                hi, fhi = t, f
                if side == 1:
                    flo *= 0.5
                side = 1
            if abs(f) < 1e-15:
                break
        x, y = pt(lo)
        return lo, x, y

    def value(self, S, params):
        """-log F at the projection of softmax(params); params = 2(n-1) logits."""
        self.nevals += 1
        n = len(S)
        lx = [0.0] + list(params[: n - 1])
        ly = [0.0] + list(params[n - 1:])
        xs, ys = softmax(lx), softmax(ly)
        r = self.project(xs, ys)
        if r is None:
            return 0.0, xs, ys
        _, x, y = r
        return -self.logF(S, x, y), x, y


def softmax(l):
    mx = max(l)
    e = [math.exp(v - mx) for v in l]
    s = sum(e)
    return [v / s for v in e]


def logit(p):
    return [math.log(max(v, 1e-300)) - math.log(max(p[0], 1e-300)) for v in p[1:]]


def nelder_mead(f, x0, step, maxev, tol=1e-13):
    n = len(x0)
    pts = [list(x0)]
    for i in range(n):
        p = list(x0)
        p[i] += step
        pts.append(p)
    vals = [f(p) for p in pts]
    ev = n + 1
    while ev < maxev:
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) <= tol * (1 + abs(vals[0])):
            spread = max(max(abs(pts[i][j] - pts[0][j]) for j in range(n)) for i in range(1, n + 1))
            if spread < 1e-9:
                break
        cen = [sum(pts[i][j] for i in range(n)) / n for j in range(n)]
        xr = [cen[j] + (cen[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        ev += 1
        if fr < vals[0]:
            xe = [cen[j] + 2 * (cen[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            ev += 1
            if fe < fr:
                pts[-1], vals[-1] = xe, fe
            else:
                pts[-1], vals[-1] = xr, fr
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            if fr < vals[-1]:
                xc = [cen[j] + 0.5 * (xr[j] - cen[j]) for j in range(n)]
            else:
                xc = [cen[j] + 0.5 * (pts[-1][j] - cen[j]) for j in range(n)]
            fc = f(xc)
            ev += 1
            if fc < min(fr, vals[-1]):
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
                    ev += 1
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i], vals[i], ev


def local(prob, S, p0, step=0.5, maxev=None, tol=1e-13):
    n = len(S)
    if maxev is None:
        maxev = 120 * (2 * n - 2) + 200
    f = lambda p: prob.value(S, p)[0]
    p, v, _ = nelder_mead(f, p0, step, maxev, tol)
    p, v, _ = nelder_mead(f, p, step * 0.1, maxev, tol)  # restart at the best vertex
    return v, p


def lb_pair(d, p):
    """Theorem 4 pair on support {0^d, 1^d}: x = (p, 1-p), y = (1-p, p)."""
    return [0, 2 ** d - 1], [p, 1 - p], [1 - p, p]


def hpref(d, k, c, a, eps):
    out = subprocess.run([sys.executable, HPREF, str(d), str(k), c, a, eps],
                         capture_output=True, text=True, check=True).stdout.strip()
    f = out.split(",")
    return f[5], f[6]  # p, lb


def bits(z, d):
    return "".join(str((z >> l) & 1) for l in range(d))


# ---------------------------------------------------------------- mpmath verification
def verify(d, k, c_s, a_s, eps_s, S, x, y):
    mp.dps = 40
    c, a, eps = mpf(c_s), mpf(a_s), mpf(eps_s)
    E = mp.exp((a - 1) * eps)
    K = kernel(d, k, c, mpf(1), lambda u, v: u * v)
    xs = [mpf(v) for v in x]
    ys = [mpf(v) for v in y]
    sx, sy = sum(xs), sum(ys)
    xs = [v / sx for v in xs]
    ys = [v / sy for v in ys]

    def g(u, v):
        return sum(ui ** a * vi ** (1 - a) for ui, vi in zip(u, v))

    n = len(S)
    m = [(xs[i] + ys[i]) / 2 for i in range(n)]
    dx = [(xs[i] - ys[i]) / 2 for i in range(n)]
    tmax = min(m[i] / abs(dx[i]) for i in range(n) if dx[i] != 0)

    def pt(t):
        return [m[i] + t * dx[i] for i in range(n)], [m[i] - t * dx[i] for i in range(n)]

    def feas(t):
        u, v = pt(t)
        if min(u) <= 0 or min(v) <= 0:
            return False
        return g(u, v) <= E and g(v, u) <= E

    lo, hi = mpf(0), tmax
    for _ in range(150):
        mid = (lo + hi) / 2
        if feas(mid):
            lo = mid
        else:
            hi = mid
    u, v = pt(lo)
    g1, g2 = g(u, v), g(v, u)
    assert g1 <= E and g2 <= E and min(u) > 0 and min(v) > 0
    assert abs(sum(u) - 1) < mpf(10) ** -35 and abs(sum(v) - 1) < mpf(10) ** -35
    Fv = mpf(0)
    for row in K:
        U = sum(row[z] * u[i] for i, z in enumerate(S))
        V = sum(row[z] * v[i] for i, z in enumerate(S))
        Fv += U ** a * V ** (1 - a)
    post = mp.log(Fv) / (a - 1)
    return post, u, v, E - g1, E - g2


def run_point(args):
    idx, (d, k, c_s, a_s, eps_s, R) = args
    t0 = time.time()
    c0 = time.process_time()
    rng = random.Random(20230 + 7919 * idx)
    prob = Problem(d, k, float(c_s), float(a_s), float(eps_s))
    p_s, lb_s = hpref(d, k, c_s, a_s, eps_s)
    p = float(p_s)
    nc = 2 ** d
    supports = []
    for sz in (2, 3, 4):
        supports += [list(s) for s in itertools.combinations(range(nc), sz)]
    if nc > 4:
        supports.append(list(range(nc)))
    results = []  # (negLogF, S, params)
    rand = []  # random-start results only (negLogF, S)
    restarts = 0
    # LB-pair start(s)
    S0, x0, y0 = lb_pair(d, p)
    par0 = logit(x0) + logit(y0)
    results.append((prob.value(S0, par0)[0], S0, par0))
    v, par = local(prob, S0, par0, step=0.05)
    results.append((v, S0, par))
    restarts += 1
    for S in supports:
        n = len(S)
        # perturbed LB pair on supports containing 0^d and 1^d
        if 0 in S and nc - 1 in S:
            for _ in range(3):
                xs = [1e-3 * rng.random() for _ in S]
                ys = [1e-3 * rng.random() for _ in S]
                xs[S.index(0)] += p
                xs[S.index(nc - 1)] += 1 - p
                ys[S.index(0)] += 1 - p
                ys[S.index(nc - 1)] += p
                pr = logit(xs) + logit(ys)
                v, par = local(prob, S, pr, step=0.3)
                results.append((v, S, par))
                restarts += 1
        for _ in range(R):
            sd = rng.choice((0.5, 1.0, 2.0, 4.0))
            pr = [rng.gauss(0, sd) for _ in range(2 * n - 2)]
            v, par = local(prob, S, pr, step=max(0.3, sd / 2))
            results.append((v, S, par))
            rand.append((v, S))
            restarts += 1
    results.sort(key=lambda r: r[0])
    # polish the best few
    polished = []
    seen = 0
    for v, S, par in results[:8]:
        v2, par2 = local(prob, S, par, step=0.02, maxev=4000, tol=1e-16)
        if v2 > v:
            v2, par2 = v, par
        _, x, y = prob.value(S, par2)
        keep = [i for i in range(len(S)) if max(x[i], y[i]) >= 1e-12]
        if len(keep) >= 2 and len(keep) < len(S):
            S3 = [S[i] for i in keep]
            pr3 = logit([x[i] for i in keep]) + logit([y[i] for i in keep])
            v3, par3 = local(prob, S3, pr3, step=0.02, maxev=4000, tol=1e-16)
            if v3 <= v2:
                v2, S, par2 = v3, S3, par3
        polished.append((v2, S, par2))
    polished.sort(key=lambda r: r[0])
    # verify the best few in mpmath, keep the best verified
    best = None
    for v, S, par in polished[:3]:
        _, x, y = prob.value(S, par)
        post, u, w, s1, s2 = verify(d, k, c_s, a_s, eps_s, S, x, y)
        if best is None or post > best[0]:
            best = (post, S, u, w, s1, s2)
    search_post = best[0]
    # also verify the LB pair itself (exact witness of lb), keep whichever is larger
    post0, u0, w0, s10, s20 = verify(d, k, c_s, a_s, eps_s, S0, x0, y0)
    lbpair_post = post0
    if post0 > best[0]:
        best = (post0, S0, u0, w0, s10, s20)
    post, S, u, w, s1, s2 = best
    mp.dps = 40
    sup = ";".join(bits(z, d) for i, z in enumerate(S) if u[i] > 0 or w[i] > 0)
    secs = time.time() - t0
    diff = post - mpf(lb_s)
    info = dict(idx=idx, d=d, k=k, c=c_s, a=a_s, eps=eps_s, post=mp.nstr(post, 20), lb=lb_s,
                support=sup, restarts=restarts, seconds=secs, diff=mp.nstr(diff, 5), search_minus_lb=mp.nstr(search_post - mpf(lb_s), 5),
                slack=(mp.nstr(s1, 3), mp.nstr(s2, 3)), lbpair=mp.nstr(lbpair_post, 20),
                x=[mp.nstr(t, 12) for t in u], y=[mp.nstr(t, 12) for t in w],
                nevals=prob.nevals, cpu=time.process_time() - c0, float_best=-results[0][0] / (float(a_s) - 1),
                rand_best=-min(r[0] for r in rand) / (float(a_s) - 1),
                rand_hits=sum(1 for r in rand if r[0] <= results[0][0] + 1e-9),
                rand_n=len(rand),
                best_by_size={sz: -min(r[0] for r in rand if len(r[1]) == sz) / (float(a_s) - 1)
                              for sz in sorted(set(len(r[1]) for r in rand))})
    print(info, file=sys.stderr, flush=True)
    return info


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "post_d23.csv")
    t0 = time.time()
    with Pool(2) as pool:
        res = pool.map(run_point, list(enumerate(POINTS)), chunksize=1)
    with open(out, "w") as fh:
        fh.write("d,k,c,alpha,eps,post,lb,support,restarts,seconds\n")
        for r in res:
            fh.write("%d,%d,%s,%s,%s,%s,%s,%s,%d,%.1f\n" % (
                r["d"], r["k"], r["c"], r["a"], r["eps"], r["post"], r["lb"], r["support"],
                r["restarts"], r["seconds"]))
    print("total %.1f s" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
