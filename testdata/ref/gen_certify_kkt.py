#!/usr/bin/env python3
"""Golden values for the dual certificate of design/math.md section 3c (certify_kkt.csv).

Independent of the Go code (written from the mathematics only; no Go code read or run).

Parameters: n >= 1, c in (0, 1/2), alpha = a > 1, eps > 0.  g(u, v) = u^a v^(1-a),
E = exp((a-1) eps).
  r(p)   = log(p^a (1-p)^(1-a) + (1-p)^a p^(1-a)) / (a-1); p* in (0, 1/2] solves r(p*) = eps
           (bisection on log p in [-(eps+10), log 1/2], mp.prec + 40 halvings: the bracket is
           valid because r(p) >= (1-2p) log((1-p)/p), asserted anyway)
  b_j    = c^j (1-c)^(n-j),  b'_j = c^(n-j) (1-c)^j
  F(p,q) = sum_{j=0..n} C(n,j) g(p b_j + (1-p) b'_j, q b_j + (1-q) b'_j)
  G(p,q) = g(p,q) + g(1-p,1-q),   GT(p,q) = G(q,p)
  lb     = log F(p*, 1-p*) / (a-1)            (Theorem 4 lower bound; G(p*,1-p*) = E asserted)
  l1,l2  solve  dF/dp = l1 dG/dp + l2 dGT/dp,  dF/dq = l1 dG/dq + l2 dGT/dq  at (p*, 1-p*)
         (analytic derivatives: d/du g = a (u/v)^(a-1), d/dv g = (1-a) (u/v)^a; Cramer's rule)
  l0     = F(p*, 1-p*) - (l1 + l2) E
  m0     = (l0 + l1 + l2 - 1) / E     (margin of F <= l0 + l1 G + l2 GT on the diagonal p = q,
                                       where F = G = GT = 1)
  grid_max = max over a grid of (F - l0 - l1 G - l2 GT) / E, evaluated at mp.dps = 30 (the
         multipliers are computed at 60 digits and rounded to 30).  Grid: logits s, t in
         [-40, 40], 161 x 161 points (step 0.5), p = 1/(1+e^-s), 1-p = 1/(1+e^s) (both computed
         directly, no cancellation), plus a 41 x 41 patch of half-width 0.01 in logit centred at
         (logit p*, logit(1-p*)) (the tangent point is the patch centre).  Terms are evaluated as
         exp(log C(n,j) + a log u_j + (1-a) log v_j).  Empty for n > 60.

Columns: n,c,alpha,eps,p,lb,l0_over_E,l1,l2,m0_over_E,grid_max_over_E
  20 significant digits (mp.nstr(v, 20)); everything except grid_max at mp.dps = 60.
Inputs are read as exact decimals (mpf("0.1") rounded to the working precision).

Checks done on every run (printed to stdout, one line per row):
  * every quantity except the grid is recomputed at mp.dps = 90; the number of agreeing
    significant digits (relative, every column) is printed and must be >= 25 (5 more than
    printed).  l0, l2 and m0 come from a cancellation of O(1) terms, so at 60 digits they are
    only resolved down to ~1e-35 relative to E; where they are smaller (they can be ~c^n, e.g.
    1e-1500), the row is recomputed at dps 180, 360, ... (doubling, p* polished by Newton)
    until two successive precisions agree to >= 25 digits in every column, and the lower of
    the two is written (log line "ADAPTIVE").  The grid check and the derivative checks use
    the dps-60 values;
  * the analytic gradients of F, G, GT are compared with mpmath's numerical mp.diff (at the
    row's precision, for n <= 500);
  * the Hessian of the gap h = l0 + l1 G + l2 GT - F at (p*, 1-p*) (numerical, mp.diff) is
    printed as its two eigenvalues divided by E (expected >= 0: h has a minimum 0 there);
  * the location of the grid maximum (coarse grid and patch separately), and the gap at that
    grid point recomputed at the row's precision (dps 60, or the adaptive one) from the same
    logits, to tell rounding of the 30-digit grid from a real positive value.
Usage:  python3 gen_certify_kkt.py      (writes certify_kkt.csv next to this script)
Deterministic: fixed row list, fixed grids, no randomness; rows are computed in a 2-process pool
and written in the fixed order.
"""
import os
import sys
import time
from multiprocessing import Pool

from mpmath import mp, mpf, log, exp, sqrt

DPS = 60
DPS_CHECK = 90
DPS_GRID = 30
GRID_NMAX = 60

# (n, c, alpha, eps) as strings; the first 25 were prescribed, the last 15 chosen to spread
# over n 1..500, c 1e-3..0.49, alpha 1.01..100, eps 0.01..10.
ROWS = [
    (4, "0.1", "5", "1"),
    (20, "0.1", "50", "2"),
    (1, "0.1", "5", "0.5"),
    (1, "0.1", "5", "1"),
    (2, "0.1", "5", "1"),
    (3, "0.2", "4", "1.5"),
    (6, "0.3", "5", "1"),
    (10, "0.3", "50", "0.5"),
    (15, "0.3", "50", "2"),
    (5, "0.01", "50", "0.1"),
    (3, "0.01", "5", "0.1"),
    (2, "0.01", "50", "3"),
    (50, "0.4", "20", "1"),
    (100, "0.45", "2", "0.3"),
    (200, "0.45", "10", "2"),
    (1000, "0.49", "5", "1"),
    (10000, "0.499", "5", "1"),
    (10000, "0.49", "2", "0.5"),
    (12, "0.2", "1.01", "0.05"),
    (8, "0.25", "1.001", "0.01"),
    (4, "0.1", "1000", "5"),
    (30, "0.4999", "1000", "50"),
    (5, "1e-6", "5", "1"),
    (3, "0.4999", "5", "1e-6"),
    (7, "0.35", "3", "0.7"),
    # chosen
    (1, "0.3", "2", "0.2"),
    (2, "0.45", "1.5", "0.05"),
    (3, "0.001", "10", "5"),
    (5, "0.15", "1.01", "0.01"),
    (8, "0.05", "20", "10"),
    (11, "0.2", "7", "3"),
    (17, "0.4", "1.2", "0.1"),
    (25, "0.1", "2.5", "0.8"),
    (40, "0.02", "100", "4"),
    (60, "0.35", "30", "0.3"),
    (80, "0.25", "3", "6"),
    (120, "0.49", "100", "1"),
    (250, "0.3", "1.1", "0.02"),
    (400, "0.45", "15", "2.5"),
    (500, "0.001", "4", "0.7"),
]


def r(p, a):
    return log(p**a * (1 - p)**(1 - a) + (1 - p)**a * p**(1 - a)) / (a - 1)


def p_of(eps, a):
    """bisection on t = log p (mp.prec + 40 halvings) up to dps 90; above, Newton polish in t
    starting from the dps-90 bisection (used only by the adaptive high-precision rows)."""
    if mp.dps > 90:
        dps = mp.dps
        mp.dps = 90
        t = log(p_of(eps, a))
        mp.dps = dps
        t = +t
        for _ in range(60):
            p = exp(t)
            q = 1 - p
            S = p**a * q**(1 - a) + q**a * p**(1 - a)
            dS = (a * p**(a - 1) * q**(1 - a) - (1 - a) * p**a * q**(-a)
                  - a * q**(a - 1) * p**(1 - a) + (1 - a) * q**a * p**(-a))
            step = (log(S) / (a - 1) - eps) / (p * dS / ((a - 1) * S))
            t -= step
            if abs(step) < mpf(2)**(-mp.prec + 8):
                break
        else:
            raise RuntimeError("Newton did not converge")
        return exp(t)
    lo = -(eps + 10)
    assert r(exp(lo), a) > eps
    hi = log(mpf(1) / 2)
    assert r(exp(hi), a) < eps
    for _ in range(mp.prec + 40):
        m = (lo + hi) / 2
        if r(exp(m), a) > eps:
            lo = m
        else:
            hi = m
    return exp((lo + hi) / 2)


def binoms(n):
    out, C = [], 1
    for j in range(n + 1):
        out.append(C)
        C = C * (n - j) // (j + 1)
    return out


def bb(n, c):
    """lists b_j, b'_j"""
    cp = [c**j for j in range(n + 1)]
    dp = [(1 - c)**j for j in range(n + 1)]
    return [cp[j] * dp[n - j] for j in range(n + 1)], [cp[n - j] * dp[j] for j in range(n + 1)]


def F_and_grad(n, c, a, p, pc, q, qc, B=None):
    """F(p,q), dF/dp, dF/dq; pc = 1-p, qc = 1-q passed explicitly."""
    C = binoms(n)
    b, b2 = B if B is not None else bb(n, c)
    F = Fp = Fq = mpf(0)
    for j in range(n + 1):
        u = p * b[j] + pc * b2[j]
        v = q * b[j] + qc * b2[j]
        t = u / v
        ta1 = t**(a - 1)
        ta = ta1 * t
        d = b[j] - b2[j]
        F += C[j] * v * ta
        Fp += C[j] * a * ta1 * d
        Fq += C[j] * (1 - a) * ta * d
    return F, Fp, Fq


def g(u, v, a):
    return u**a * v**(1 - a)


def gu(u, v, a):
    return a * (u / v)**(a - 1)


def gv(u, v, a):
    return (1 - a) * (u / v)**a


def G_and_grad(a, p, pc, q, qc):
    """G(p,q) = g(p,q) + g(1-p,1-q) and its gradient."""
    G = g(p, q, a) + g(pc, qc, a)
    Gp = gu(p, q, a) - gu(pc, qc, a)
    Gq = gv(p, q, a) - gv(pc, qc, a)
    return G, Gp, Gq


def GT_and_grad(a, p, pc, q, qc):
    """GT(p,q) = G(q,p) and its gradient in (p, q)."""
    G, Gq_, Gp_ = G_and_grad(a, q, qc, p, pc)   # derivative wrt first arg of G is d/dq here
    return G, Gp_, Gq_


def core(n, cs, as_, es, dps):
    mp.dps = dps
    c, a, eps = mpf(cs), mpf(as_), mpf(es)
    E = exp((a - 1) * eps)
    p = p_of(eps, a)
    pc = 1 - p
    q, qc = pc, p
    F, Fp, Fq = F_and_grad(n, c, a, p, pc, q, qc)
    G, Gp, Gq = G_and_grad(a, p, pc, q, qc)
    GT, GTp, GTq = GT_and_grad(a, p, pc, q, qc)
    tol = mpf(10)**(-(dps - 12))
    assert abs(G / E - 1) < tol and abs(GT / E - 1) < tol, (G / E, GT / E)
    det = Gp * GTq - GTp * Gq
    l1 = (Fp * GTq - GTp * Fq) / det
    l2 = (Gp * Fq - Fp * Gq) / det
    l0 = F - (l1 + l2) * E
    lb = log(F) / (a - 1)
    m0 = (l0 + l1 + l2 - 1) / E
    assert abs(r(p, a) - eps) <= tol * (1 + eps)
    return dict(c=c, a=a, eps=eps, E=E, p=p, lb=lb, l0E=l0 / E, l0=l0, l1=l1, l2=l2, m0E=m0,
                F=F, grads=(Fp, Fq, Gp, Gq, GTp, GTq))


def gap_fn(n, c, a, l0, l1, l2, B):
    """h(p, q) = l0 + l1 G + l2 GT - F  (general p, q; 1-p, 1-q by subtraction)"""
    def h(p, q):
        F = F_and_grad(n, c, a, p, 1 - p, q, 1 - q, B)[0]
        G = g(p, q, a) + g(1 - p, 1 - q, a)
        GT = g(q, p, a) + g(1 - q, 1 - p, a)
        return l0 + l1 * G + l2 * GT - F
    return h


def checks(n, R, dps):
    """numerical-derivative check of the gradients and Hessian of the gap at the tangent."""
    mp.dps = dps
    c, a, p = R["c"], R["a"], R["p"]
    B = bb(n, c)
    out = {}
    if n <= 500:
        Ff = lambda x, y: F_and_grad(n, c, a, x, 1 - x, y, 1 - y, B)[0]
        Gf = lambda x, y: g(x, y, a) + g(1 - x, 1 - y, a)
        GTf = lambda x, y: g(y, x, a) + g(1 - y, 1 - x, a)
        num = []
        for f in (Ff, Gf, GTf):
            num.append(mp.diff(f, (p, 1 - p), (1, 0)))
            num.append(mp.diff(f, (p, 1 - p), (0, 1)))
        worst = mpf(0)
        for x, y in zip(R["grads"], num):
            worst = max(worst, abs(x - y) / max(abs(x), abs(y), mpf(10)**-300))
        out["grad_reldiff"] = worst
        h = gap_fn(n, c, a, R["l0"], R["l1"], R["l2"], B)
        hpp = mp.diff(h, (p, 1 - p), (2, 0))
        hqq = mp.diff(h, (p, 1 - p), (0, 2))
        hpq = mp.diff(h, (p, 1 - p), (1, 1))
        tr, dt = hpp + hqq, hpp * hqq - hpq**2
        disc = sqrt(max(tr**2 / 4 - dt, mpf(0)))
        out["hess_eig_over_E"] = ((tr / 2 - disc) / R["E"], (tr / 2 + disc) / R["E"])
        out["h_at_tangent_over_E"] = h(p, 1 - p) / R["E"]
    return out


def grid_max(n, R):
    mp.dps = DPS_GRID
    c, a = +R["c"], +R["a"]
    l0, l1, l2, E = +R["l0"], +R["l1"], +R["l2"], +R["E"]
    C = binoms(n)
    b, b2 = bb(n, c)
    logC = [log(mpf(x)) for x in C]

    def coord(s):
        # p and 1-p from the logit, both without cancellation
        return 1 / (1 + exp(-s)), 1 / (1 + exp(s))

    def prep(s):
        p, pc = coord(s)
        lu = [log(p * b[j] + pc * b2[j]) for j in range(n + 1)]
        return log(p), log(pc), lu

    def block(S, T):
        PS = [prep(s) for s in S]
        PT = [prep(t) for t in T]
        # A[s][j] = log C + a log u_j(s);  Bt[t][j] = (1-a) log v_j(t)
        A = [[logC[j] + a * lu[j] for j in range(n + 1)] for (_, _, lu) in PS]
        Bt = [[(1 - a) * lv[j] for j in range(n + 1)] for (_, _, lv) in PT]
        best = None
        for i, (lp, lpc, _) in enumerate(PS):
            Ai = A[i]
            for k, (lq, lqc, _) in enumerate(PT):
                Bk = Bt[k]
                F = mpf(0)
                for j in range(n + 1):
                    F += exp(Ai[j] + Bk[j])
                G = exp(a * lp + (1 - a) * lq) + exp(a * lpc + (1 - a) * lqc)
                GT = exp(a * lq + (1 - a) * lp) + exp(a * lqc + (1 - a) * lpc)
                val = (F - l0 - l1 * G - l2 * GT) / E
                if best is None or val > best[0]:
                    best = (val, S[i], T[k])
        return best

    S = [mpf(-40) + mpf(i) / 2 for i in range(161)]
    b1 = block(S, S)
    s0 = log(R["p"] / (1 - R["p"]))
    s0 = +s0
    Sp = [s0 + mpf(i - 20) / 2000 for i in range(41)]
    Tp = [-s0 + mpf(i - 20) / 2000 for i in range(41)]
    b2_ = block(Sp, Tp)
    best = b1 if b1[0] >= b2_[0] else b2_
    return best, b1, b2_


def recheck(n, R, dps, s, t):
    """the gap (F - l0 - l1 G - l2 GT)/E at the grid argmax logits (s, t), at dps (>= 60),
    with p, 1-p, q, 1-q computed from the logits without cancellation"""
    mp.dps = dps
    s, t = mpf(s), mpf(t)
    p, pc = 1 / (1 + exp(-s)), 1 / (1 + exp(s))
    q, qc = 1 / (1 + exp(-t)), 1 / (1 + exp(t))
    a = R["a"]
    F = F_and_grad(n, R["c"], a, p, pc, q, qc)[0]
    G = g(p, q, a) + g(pc, qc, a)
    GT = g(q, p, a) + g(qc, pc, a)
    return (F - R["l0"] - R["l1"] * G - R["l2"] * GT) / R["E"]


def digits(x, y, absolute):
    d = abs(x - y)
    if not absolute:
        s = max(abs(x), abs(y))
        if s == 0:
            return 999
        d = d / s
    if d == 0:
        return 999
    return int(-mp.log10(d))


KEYS = ("p", "lb", "l0E", "l1", "l2", "m0E")
AGREE_MIN = 25
DPS_CAP = 8000


def agreement(R1, R2):
    mp.dps = max(mp.dps, 100)
    return {k: digits(R1[k], R2[k], False) for k in KEYS}


def compute(row):
    n, cs, as_, es = row
    t0 = time.time()
    R = core(n, cs, as_, es, DPS)
    R90 = core(n, cs, as_, es, DPS_CHECK)
    mp.dps = DPS_CHECK + 10
    agree = agreement(R, R90)
    agree60 = dict(agree)
    used = DPS
    # Adaptive precision: where a column is so small (l0, l2, m0 ~ c^n) that 60 digits of
    # cancellation do not resolve it, double the precision until two successive runs agree to
    # AGREE_MIN significant digits in every column; report the lower of the two.
    lo, Rlo = DPS_CHECK, R90
    while min(agree.values()) < AGREE_MIN:
        hi = 2 * lo
        if hi > DPS_CAP:
            raise RuntimeError("no agreement up to dps %d: %s" % (DPS_CAP, row))
        Rhi = core(n, cs, as_, es, hi)
        mp.dps = hi + 10
        agree = agreement(Rlo, Rhi)
        R, used = Rlo, lo
        lo, Rlo = hi, Rhi
    chk = checks(n, R, used)
    gm = None
    if n <= GRID_NMAX:
        gm = grid_max(n, R)
        gm = gm + (recheck(n, R, used, gm[0][1], gm[0][2]),)
    mp.dps = DPS
    return R, agree60, agree, used, chk, gm, time.time() - t0


def fmt(v):
    return "" if v is None else mp.nstr(v, 20)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    t0 = time.time()
    # big rows first in the pool queue so that the two workers finish together
    order = sorted(range(len(ROWS)), key=lambda i: -(ROWS[i][0] if ROWS[i][0] <= GRID_NMAX
                                                      else ROWS[i][0] / 200))
    with Pool(2) as pool:
        res = pool.map(compute, [ROWS[i] for i in order], chunksize=1)
    out = [None] * len(ROWS)
    for i, v in zip(order, res):
        out[i] = v
    mp.dps = DPS
    lines = ["n,c,alpha,eps,p,lb,l0_over_E,l1,l2,m0_over_E,grid_max_over_E"]
    for (n, cs, as_, es), (R, agree60, agree, used, chk, gm, dt) in zip(ROWS, out):
        lines.append(",".join([str(n), cs, as_, es] + [fmt(R[k]) for k in
                              ("p", "lb", "l0E", "l1", "l2", "m0E")] +
                              [fmt(gm[0][0]) if gm else ""]))
        assert min(agree.values()) >= AGREE_MIN, ((n, cs, as_, es), agree)
        info = ["row n=%d c=%s a=%s eps=%s  %.1fs" % (n, cs, as_, es, dt),
                "agree(dps60 vs 90) " + " ".join("%s:%d" % kv for kv in agree60.items())]
        if used != DPS:
            info.append("ADAPTIVE: reported at dps %d, agree with dps %d: %s" % (
                used, 2 * used, " ".join("%s:%d" % kv for kv in agree.items())))
        if chk:
            info.append("grad_reldiff %s" % mp.nstr(chk["grad_reldiff"], 3))
            info.append("hess_eig/E %s %s" % tuple(mp.nstr(x, 5) for x in chk["hess_eig_over_E"]))
            info.append("h(tangent)/E %s" % mp.nstr(chk["h_at_tangent_over_E"], 3))
        if gm:
            (val, s, t), mg, mpch, rc = gm
            info.append("grid_max/E %s at logit (%s, %s) [coarse %s at (%s, %s), patch %s]"
                        " recheck at dps %d: %s" % (
                            mp.nstr(val, 5), mp.nstr(s, 8), mp.nstr(t, 8), mp.nstr(mg[0], 3),
                            mp.nstr(mg[1], 4), mp.nstr(mg[2], 4), mp.nstr(mpch[0], 3), used,
                            mp.nstr(rc, 3)))
        flags = []
        if R["l1"] < 0 or R["l2"] < 0:
            flags.append("NEGATIVE MULTIPLIER")
        if gm and gm[0][0] > mpf(10)**-20:
            flags.append("POSITIVE GRID MAX")
        if flags:
            info.append("!!! " + ", ".join(flags))
        print(" | ".join(info), flush=True)
    with open(os.path.join(here, "certify_kkt.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d rows in %.0f s" % (len(ROWS), time.time() - t0))


if __name__ == "__main__":
    main()
