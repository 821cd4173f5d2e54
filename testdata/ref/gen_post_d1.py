#!/usr/bin/env python3
"""Golden values for the exact d = 1 program (Algorithm 1), independent of the Go code.

Writes post_d1.csv: k,c,alpha,eps,post,x,y,lb,method (20 significant digits).

Program: x, y in [0,1] (masses of P and Q on the corner theta = c), b(m) = C(k,m) c^m (1-c)^(k-m),
u_m = x b(m) + (1-x) b(k-m), v_m = y b(m) + (1-y) b(k-m), F = sum_m u_m^a v_m^(1-a),
g(x,y) = x^a y^(1-a) + (1-x)^a (1-y)^(1-a), feasible set S = {g(x,y) <= E, g(y,x) <= E},
E = exp((a-1) eps); post = log(max_S F) / (a-1). The conjecture post = lb is NOT used.

Method ("bscan+gss"):
  F is convex and S is convex, so max F is attained on the boundary of S. S contains the
  diagonal x = y (g = 1 there) and touches the edges of [0,1]^2 only at (0,0) and (1,1)
  (g = inf at (0,y>0), (x<1,1), ...). h = max(g(x,y), g(y,x)) is convex with minimum 1 on the
  diagonal, so along any line leaving a diagonal point it is nondecreasing: each line meets the
  boundary exactly once, at the root of h = E (log space). Two parameterizations of the boundary:
    S-scan: lines perpendicular to the diagonal, x = (s+sig t)/2, y = (s-sig t)/2,
            s in (0,2), sig = +1 (x > y) and -1 (x < y); NS points per side;
    R-scan: rays from (1/2,1/2) at angle theta in [0, 2 pi); NR points.
  1. float64 scan (log space) of log F along both parameterizations (NS = 1500 per side,
     NR = 3000, plus s = 1e-3..1e-8 and 2 - 1e-3..1e-8), and a coarser scan with every value
     in mpmath at mp.dps = 60 (NSM = 600 per side, NRM = 1200): float64 cannot rank points
     where F is flat near its max (k = 16, c = 0.01: post = eps (1 - 1e-13));
  2. the 3 best float64 grid local maxima per scan and the 12 best mpmath grid local maxima per
     scan are refined in mpmath at mp.dps = 60 by golden-section search on
     [param_{i-1}, param_{i+1}] down to a bracket of 1e-40, with the boundary point recomputed
     at 60 digits for every trial (bracketed Illinois/bisection root of log h = log E);
  3. kinks of the boundary (where the active constraint switches: g(x,y) = g(y,x) = E) are
     candidates too: the anti-diagonal point s = 1 (x + y = 1) is always one and is solved
     directly; any other sign change of g(x,y) - g(y,x) along the S-scan is refined by bisection
     in s (200 halvings) and added;
  4. post = log(max over all refined candidates)/(a-1); (x, y) is reported in the canonical
     half x + y <= 1 (F and S are invariant under (x,y) -> (1-x,1-y)), smaller x on ties.
  The method column is "bscan+gss:kink" when the maximizer is the anti-diagonal kink
  (x + y = 1, both constraints active; this is the Theorem 4 witness (p, 1-p)), "bscan+gss:kink2"
  for another kink, "bscan+gss:smooth" for an interior point of a constraint curve.
  Checks: (x, y) feasible at 60 digits; best S-refined and best R-refined values agree.

lb: Theorem 4 with n = k (log(sum_j C(k,j) P_j^a Q_j^(1-a))/(a-1), p from r_a(p) = eps by
bisection on log p), same formulas as gen_bounds.py, at mp.dps = 60.

Inputs are exact decimals (mpf("0.1")), like gen_bounds.py.
Usage: python3 gen_post_d1.py [--quick]   (--quick: the 3 sanity points only, prints, no file)
Deterministic: fixed grids, no randomness; points computed in a 2-process pool, written in order.
"""
import math
import os
import sys
import time
from multiprocessing import Pool

from mpmath import mp, mpf, log, exp, cos, sin, pi

DPS = 60
NS = 1500          # S-scan points per side
NR = 3000          # R-scan points
NSM, NRM = 600, 1200   # grids of the mpmath rescan (per side / full circle)
KS = [1, 2, 4, 8, 16]
CS = ["0.01", "0.1", "0.3"]
ALPHAS = ["2", "5", "50"]
EPSS = ["0.1", "0.5", "1", "2", "5"]
NEG_INF = float("-inf")
POS_INF = float("inf")


# ---------------------------------------------------------------- float64 (scan) -------------
def f_lterm(a, u, v):
    """log(u^a v^(1-a)) for u, v >= 0 (0 if u = 0, +inf if v = 0 < u)."""
    if u <= 0.0:
        return NEG_INF
    if v <= 0.0:
        return POS_INF
    return a * math.log(u) + (1 - a) * math.log(v)


def f_lae(p, q):
    if p < q:
        p, q = q, p
    if p == NEG_INF or p == POS_INF:
        return p
    return p + math.log1p(math.exp(q - p))


def f_point(line, tau):
    bx, by, dx, dy = line
    return bx + tau * dx, by + tau * dy, (1 - bx) - tau * dx, (1 - by) - tau * dy


def f_h(a, line, tau):
    x, y, xb, yb = f_point(line, tau)
    g1 = f_lae(f_lterm(a, x, y), f_lterm(a, xb, yb))
    g2 = f_lae(f_lterm(a, y, x), f_lterm(a, yb, xb))
    return max(g1, g2), g1 - g2 if g1 < POS_INF and g2 < POS_INF else 0.0


def taumax(line):
    bx, by, dx, dy = line
    m = POS_INF
    for b, dd in ((bx, dx), (by, dy)):
        if dd > 0:
            m = min(m, (1 - b) / dd)
        elif dd < 0:
            m = min(m, b / -dd)
    return m


def f_root(a, line, L):
    lo, hi = 0.0, taumax(line)
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        if f_h(a, line, mid)[0] > L:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def f_logF(a, bm, x, y, xb, yb):
    k = len(bm) - 1
    acc = NEG_INF
    for m in range(k + 1):
        u = x * bm[m] + xb * bm[k - m]
        v = y * bm[m] + yb * bm[k - m]
        acc = f_lae(acc, a * math.log(u) + (1 - a) * math.log(v))
    return acc


# ---------------------------------------------------------------- mpmath ---------------------
def m_g(a, x, y, xb, yb):
    return x**a * y**(1 - a) + xb**a * yb**(1 - a)


def m_point(line, tau):
    bx, by, dx, dy = line
    return bx + tau * dx, by + tau * dy, (1 - bx) - tau * dx, (1 - by) - tau * dy


def m_h(a, line, tau):
    x, y, xb, yb = m_point(line, tau)
    if min(x, y, xb, yb) <= 0:
        return mpf("inf")
    return log(max(m_g(a, x, y, xb, yb), m_g(a, y, x, yb, xb)))


def m_root(a, line, L, tau_f, tmax):
    """root of h(tau) = L near the float estimate tau_f: bracket, then Illinois/bisection."""
    rel = mpf(10)**-12
    while True:
        lo = max(mpf(0), tau_f * (1 - rel))
        hi = min(tmax, tau_f * (1 + rel))
        flo, fhi = m_h(a, line, lo) - L, m_h(a, line, hi) - L
        if flo <= 0 <= fhi:
            break
        if rel > 1:
            lo, hi = mpf(0), tmax
            flo, fhi = m_h(a, line, lo) - L, mpf("inf")
            break
        rel *= 100
    if flo == 0:
        return lo
    tol = mpf(2)**(-mp.prec + 8) * hi
    side = 0
    for it in range(400):
        if hi - lo <= tol:
            break
        if fhi == mpf("inf") or it % 4 == 3:
            c = (lo + hi) / 2
        else:
            c = (lo * fhi - hi * flo) / (fhi - flo)
            if not (lo < c < hi):
                c = (lo + hi) / 2
        fc = m_h(a, line, c) - L
        if fc == 0:
            return c
        if fc < 0:
            lo, flo = c, fc
            if side == -1:
                fhi /= 2
            side = -1
        else:
            hi, fhi = c, fc
            if side == 1:
                flo /= 2
            side = 1
        # stop if the secant iterate is already converged to working precision
        if abs(fc) < mpf(2)**(-mp.prec + 4):
            return c
    return (lo + hi) / 2


def m_F(a, bm, x, y, xb, yb):
    k = len(bm) - 1
    s = mpf(0)
    for m in range(k + 1):
        u = x * bm[m] + xb * bm[k - m]
        v = y * bm[m] + yb * bm[k - m]
        s += u**a * v**(1 - a)
    return s


# ---------------------------------------------------------------- parameterizations ----------
def line_S(s, sig, half):
    return (s / 2, s / 2, sig * half, -sig * half)


def line_R(th, cosf, sinf, half):
    return (half, half, cosf(th), sinf(th))


class Problem:
    def __init__(self, k, cs, as_, es):
        self.k, self.cs, self.as_, self.es = k, cs, as_, es
        mp.dps = DPS
        self.c, self.a, self.eps = mpf(cs), mpf(as_), mpf(es)
        self.L = (self.a - 1) * self.eps                       # log E
        self.bm = [mpf(math.comb(k, m)) * self.c**m * (1 - self.c)**(k - m) for m in range(k + 1)]
        self.fa, self.fL = float(self.a), float(self.L)
        self.fbm = [float(b) for b in self.bm]

    # boundary evaluation along a parameterization, float
    def f_eval(self, line):
        tau = f_root(self.fa, line, self.fL)
        x, y, xb, yb = f_point(line, tau)
        return f_logF(self.fa, self.fbm, x, y, xb, yb), f_h(self.fa, line, tau)[1], tau

    def m_eval(self, line_f, line_m):
        """F at the boundary point on line (float line for the start, mp line for the root)."""
        tau_f = f_root(self.fa, line_f, self.fL)
        tmax = taumax_m(line_m)
        tau = m_root(self.a, line_m, self.L, mpf(tau_f), tmax)
        x, y, xb, yb = m_point(line_m, tau)
        return m_F(self.a, self.bm, x, y, xb, yb), (x, y, xb, yb)


def taumax_m(line):
    bx, by, dx, dy = line
    m = None
    for b, dd in ((bx, dx), (by, dy)):
        if dd > 0:
            t = (1 - b) / dd
        elif dd < 0:
            t = b / -dd
        else:
            continue
        m = t if m is None else min(m, t)
    return m


def golden_max(fun, A, B, tol):
    """max of a unimodal fun on [A, B] (mp); returns (value, arg, payload)."""
    r = (mp.sqrt(5) - 1) / 2
    x1, x2 = B - r * (B - A), A + r * (B - A)
    f1, f2 = fun(x1), fun(x2)
    while B - A > tol:
        if f1[0] >= f2[0]:
            B, x2, f2 = x2, x1, f1
            x1 = B - r * (B - A)
            f1 = fun(x1)
        else:
            A, x1, f1 = x1, x2, f2
            x2 = A + r * (B - A)
            f2 = fun(x2)
    return (f1 if f1[0] >= f2[0] else f2) + ((x1 if f1[0] >= f2[0] else x2),)


def local_maxima(vals, top=12):
    idx = [i for i in range(1, len(vals) - 1) if vals[i] >= vals[i - 1] and vals[i] >= vals[i + 1]]
    idx.sort(key=lambda i: -vals[i])
    return idx[:top]


def solve(args):
    k, cs, as_, es = args
    t0 = time.time()
    P = Problem(k, cs, as_, es)
    a, half = P.a, mpf(1) / 2
    gtol = mpf(10)**-40
    cands = []          # (F, (x, y, xb, yb), tag, scan)

    # ---- float64 scans. S: s grid includes 1 exactly, finer near the ends; R: theta grid
    #      includes the anti-diagonal directions 3pi/4 (i = NR/4) and 7pi/4
    sgrid = sorted(set([i / NS * 2 for i in range(1, NS)] + [10.0**-j for j in range(3, 9)]
                       + [2 - 10.0**-j for j in range(3, 9)]))
    rgrid = [2 * math.pi * i / NR + math.pi / 4 for i in range(NR)]
    scans = {}
    for sig in (1, -1):
        ev = [P.f_eval(line_S(s, sig, 0.5)) for s in sgrid]
        scans[sig] = ([e[0] for e in ev], [e[1] for e in ev])
    scans["R"] = ([P.f_eval(line_R(th, math.cos, math.sin, 0.5))[0] for th in rgrid], None)
    # ---- mpmath rescan on coarser grids (every value at mp.dps = 60): float64 cannot rank
    #      points where F is flat near its max (e.g. k = 16, c = 0.01: post = eps (1 - 1e-13)).
    #      Candidates = top 3 float64 local maxima per scan + all mpmath local maxima (up to 12).
    fscans = scans
    fsgrid, frgrid = sgrid, rgrid
    sgrid = sorted(set([i / NSM * 2 for i in range(1, NSM)] + [10.0**-j for j in range(3, 9)]
                       + [2 - 10.0**-j for j in range(3, 9)]))
    rgrid = [2 * math.pi * i / NRM + math.pi / 4 for i in range(NRM)]
    scans = {}
    for sig in (1, -1):
        vals, dif = [], []
        for s in sgrid:
            F, (x, y, xb, yb) = P.m_eval(line_S(s, sig, 0.5), line_S(mpf(s), sig, half))
            vals.append(F)
            dif.append(m_g(a, x, y, xb, yb) - m_g(a, y, x, yb, xb))
        scans[sig] = (vals, dif)
    scans["R"] = ([P.m_eval(line_R(th, math.cos, math.sin, 0.5),
                            line_R(mpf(th), cos, sin, half))[0] for th in rgrid], None)
    for sig in (1, -1):
        vals = fscans[sig][0]
        for i in local_maxima(vals, top=3):
            A, B = mpf(fsgrid[i - 1]), mpf(fsgrid[i + 1])
            fun = lambda s, sig=sig: P.m_eval(line_S(float(s), sig, 0.5), line_S(s, sig, half))
            F, pt, arg = golden_max(fun, A, B, gtol)
            cands.append((F, pt, "gss", "S"))
    vals = fscans["R"][0]
    vals_c = vals[-1:] + vals + vals[:1]
    for i in local_maxima(vals_c, top=3):
        j = i - 1
        A = mpf(2) * pi * (j - 1) / NR + pi / 4
        B = mpf(2) * pi * (j + 1) / NR + pi / 4
        fun = lambda th: P.m_eval(line_R(float(th), math.cos, math.sin, 0.5),
                                  line_R(th, cos, sin, half))
        F, pt, arg = golden_max(fun, A, B, gtol)
        cands.append((F, pt, "gss", "R"))
    nr = len(rgrid)

    for sig in (1, -1):
        vals, dif = scans[sig]
        for i in local_maxima(vals):
            A, B = mpf(sgrid[i - 1]), mpf(sgrid[i + 1])
            fun = lambda s, sig=sig: P.m_eval(line_S(float(s), sig, 0.5), line_S(s, sig, half))
            F, pt, arg = golden_max(fun, A, B, gtol)
            cands.append((F, pt, "gss", "S"))
        # kinks: sign changes of g(x,y)-g(y,x) along the boundary, away from s = 1
        for i in range(len(sgrid) - 1):
            if abs(sgrid[i] - 1) < 1e-12 or abs(sgrid[i + 1] - 1) < 1e-12:
                continue
            if dif[i] == 0 or (dif[i] > 0) != (dif[i + 1] > 0):
                lo, hi = mpf(sgrid[i]), mpf(sgrid[i + 1])

                def D(s):
                    ln = line_S(s, sig, half)
                    tau = m_root(a, ln, P.L, mpf(f_root(P.fa, line_S(float(s), sig, 0.5), P.fL)),
                                 taumax_m(ln))
                    x, y, xb, yb = m_point(ln, tau)
                    return m_g(a, x, y, xb, yb) - m_g(a, y, x, yb, xb), (x, y, xb, yb)
                dlo = D(lo)[0]
                for _ in range(200):
                    mid = (lo + hi) / 2
                    if (D(mid)[0] > 0) == (dlo > 0):
                        lo = mid
                    else:
                        hi = mid
                pt = D((lo + hi) / 2)[1]
                cands.append((m_F(a, P.bm, *pt), pt, "kink2", "S"))
    # anti-diagonal kink s = 1: x = q, y = 1 - q with g(q, 1-q) = E, solved directly
    ln = line_S(mpf(1), -1, half)
    tau = m_root(a, ln, P.L, mpf(f_root(P.fa, line_S(1.0, -1, 0.5), P.fL)), taumax_m(ln))
    pt = m_point(ln, tau)
    cands.append((m_F(a, P.bm, *pt), pt, "kink", "S"))

    # ---- R candidates (circular grid)
    vals = scans["R"][0]
    vals_c = vals[-1:] + vals + vals[:1]
    mth = lambda i: 2 * pi * i / nr + pi / 4
    for i in local_maxima(vals_c):
        j = i - 1
        A, B = mth(j - 1), mth(j + 1)
        fun = lambda th: P.m_eval(line_R(float(th), math.cos, math.sin, 0.5),
                                  line_R(th, cos, sin, half))
        F, pt, arg = golden_max(fun, A, B, gtol)
        cands.append((F, pt, "gss", "R"))

    # ---- choose
    Fmax = max(c[0] for c in cands)
    bestS = max(c[0] for c in cands if c[3] == "S")
    bestR = max(c[0] for c in cands if c[3] == "R")
    tie = [c for c in cands if c[0] >= Fmax * (1 - mpf(10)**-40)]

    def canon(pt):
        x, y, xb, yb = pt
        return (xb, yb, x, y) if x + y > 1 else (x, y, xb, yb)
    tie = sorted(tie, key=lambda c: (c[2] != "kink", canon(c[1])[0]))
    F, pt, tag, _ = tie[0]
    x, y, xb, yb = canon(pt)
    E = exp(P.L)
    assert m_g(a, x, y, xb, yb) <= E * (1 + mpf(10)**-45)
    assert m_g(a, y, x, yb, xb) <= E * (1 + mpf(10)**-45)
    post = log(Fmax) / (a - 1)
    if tag == "gss":
        # is the gss maximizer actually the anti-diagonal kink (within its resolution)?
        kink = [c for c in cands if c[2] == "kink"][0]
        if abs(x + y - 1) < mpf(10)**-25:
            tag = "kink"
        else:
            tag = "smooth"
    lbv = lb(k, P.c, a, P.eps)
    agree = abs(log(bestS) - log(bestR)) / (a - 1)
    return dict(post=post, x=x, y=y, lb=lbv, tag=tag, agreeSR=agree,
                kinkF=[c for c in cands if c[2] == "kink"][0][0], Fmax=Fmax,
                ncand=len(cands), n_kink2=sum(1 for c in cands if c[2] == "kink2"),
                secs=time.time() - t0)


# ---------------------------------------------------------------- LB (Theorem 4, n = k) ------
def r_(p, a):
    return log(p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)) / (a - 1)


def p_of(eps, a):
    lo = -(eps + 10)
    while not r_(exp(lo), a) > eps:
        lo *= 2
    hi = log(mpf(1) / 2)
    for _ in range(260):
        m = (lo + hi) / 2
        if r_(exp(m), a) > eps:
            lo = m
        else:
            hi = m
    return exp((lo + hi) / 2)


def lb(n, c, a, eps):
    p = p_of(eps, a)
    s = mpf(0)
    for j in range(n + 1):
        A = c**j * (1 - c)**(n - j)
        B = c**(n - j) * (1 - c)**j
        P, Q = p * A + (1 - p) * B, (1 - p) * A + p * B
        s += mpf(math.comb(n, j)) * P**a * Q**(1 - a)
    return log(s) / (a - 1)


def points():
    return [(k, c, a, e) for k in KS for c in CS for a in ALPHAS for e in EPSS]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if "--quick" in sys.argv:
        for e in ["0.5", "1", "2"]:
            res = solve((1, "0.1", "5", e))
            mp.dps = DPS
            print(e, {kk: (mp.nstr(v, 20) if not isinstance(v, (str, int, float)) else v)
                      for kk, v in res.items()})
        return
    pts = points()
    t0 = time.time()
    with Pool(2) as pool:
        res = pool.map(solve, pts, chunksize=1)
    mp.dps = DPS
    lines = ["k,c,alpha,eps,post,x,y,lb,method"]
    worst, worst_pt, worst_agree, worst_agree_pt, slowest = mpf(0), None, mpf(0), None, 0.0
    tags = {}
    for (k, c, a, e), r in zip(pts, res):
        lines.append(",".join([str(k), c, a, e] + [mp.nstr(r[n], 20) for n in ("post", "x", "y", "lb")]
                              + ["bscan+gss:" + r["tag"]]))
        dlt = abs(r["post"] - r["lb"])
        if dlt > worst:
            worst, worst_pt = dlt, (k, c, a, e)
        if r["agreeSR"] > worst_agree:
            worst_agree, worst_agree_pt = r["agreeSR"], (k, c, a, e)
        slowest = max(slowest, r["secs"])
        tags[r["tag"]] = tags.get(r["tag"], 0) + 1
        if r["post"] > r["lb"] + mpf(10)**-10:
            print("COUNTEREXAMPLE? post > lb + 1e-10 at", (k, c, a, e), mp.nstr(r["post"], 25),
                  mp.nstr(r["lb"], 25))
        if r["n_kink2"]:
            print("note: %d extra kink(s) at %s" % (r["n_kink2"], (k, c, a, e)))
    with open(os.path.join(here, "post_d1.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d rows in %.0f s (slowest point %.1f s)" % (len(pts), time.time() - t0, slowest))
    print("max |post - lb| = %s at %s" % (mp.nstr(worst, 5), worst_pt))
    print("max |post_S - post_R| (two boundary parameterizations) = %s at %s"
          % (mp.nstr(worst_agree, 5), worst_agree_pt))
    print("maximizer types:", tags)


if __name__ == "__main__":
    main()
