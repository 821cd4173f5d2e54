#!/usr/bin/python3
"""Independent reference for composing the exact amplified privacy profile.

Regenerate (from the repository root):

    PYTHONPATH=/work/shared/vendor/dp_accounting /usr/bin/python3 \
        testdata/ref/compose_ref.py > testdata/ref/compose_ref.csv

Progress goes to stderr. See README_compose_ref.md for what each row kind means.

Mathematics (design/math.md section 3d). A mechanism with privacy profile
delta_M(e) feeds n = d*k independent Bernoulli flips with range constant c in
(0, 1/2). For e' >= 0, g = e^e':

    delta'(e') = max_{t in {-1..n}} [ M_t delta_M(e') - m_t (delta_M(e') + g - 1) ]_+
    M_t = P(Binomial(n, c) <= t), m_t = P(Binomial(n, 1-c) <= t), M_-1 = m_-1 = 0.

The increment from t-1 to t is b_c(t) delta_M - b_{1-c}(t) (delta_M + g - 1), positive
while ((1-c)/c)^(n-2t) > (delta_M + g - 1)/delta_M, so the maximiser is the largest t
with that property; we evaluate t*-1, t*, t*+1 exactly and take the max (with 0).
Symmetric profiles: delta(-s) = 1 - e^-s + e^-s delta(s) for s >= 0.

All profile values are computed with mpmath at 50 significant digits; binomial
CDFs are exact sums of the pmf (terms all positive, no cancellation).
"""

import math
import multiprocessing
import sys
import time

import mpmath
from mpmath import mp, mpf

import numpy as np
import scipy

from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution

mp.dps = 50

DELTA = 1e-5
H = 1e-4
TAIL = mpf('1e-22')          # grid ends at the first multiple of h with delta' <= 1e-22
SIGMAS = [1, 2, 4]
CS = [0.1, 0.3]
NS = [1, 2, 4, 16, 100, 10000]
TS = [1, 10, 100, 1000]
LAPLACE_BS = [0.5, 1]
RR_PS = [0.75, 0.9]
EXTRA_CS = [0.1, 0.3]
EXTRA_NS = [1, 4, 100]
PROCESSES = 2


def log(msg):
  print(msg, file=sys.stderr, flush=True)


def round_up(x):
  """Smallest float64 >= x (x an mpf)."""
  f = float(x)
  if mpf(f) < x:
    f = math.nextafter(f, math.inf)
  return f


# ---------------------------------------------------------------- mechanisms

def delta_gauss(sigma, e):
  """Hockey-stick divergence of N(0,sigma^2) vs N(1,sigma^2) at e^e (e >= 0)."""
  mu = 1 / mpf(sigma)
  return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)


def delta_laplace(b, e):
  """Laplace, scale b, sensitivity 1: 1 - exp((e - 1/b)/2) on [0, 1/b], else 0."""
  eps0 = 1 / mpf(b)
  if e >= eps0:
    return mpf(0)
  return -mpmath.expm1((e - eps0) / 2)


def delta_rr(p, e):
  """Randomized response with truth probability p >= 1/2."""
  p = mpf(p)
  return max(mpf(0), p - mpmath.exp(e) * (1 - p))


# ---------------------------------------------------------------- amplification

class Amplifier:
  """Exact binomial CDFs for (n, c) and the amplified profile formula."""

  def __init__(self, n, c):
    self.n = n
    c = mpf(c)
    self.c = c
    self.logr = mpmath.log((1 - c) / c)
    # pmf of Binomial(n, c) by the exact ratio recursion.
    pmf = [mpf(0)] * (n + 1)
    pmf[0] = (1 - c) ** n
    q = c / (1 - c)
    for t in range(n):
      pmf[t + 1] = pmf[t] * (n - t) / (t + 1) * q
    # M[t+1] = P(Bin(n,c) <= t), t = -1..n  (index shift by one)
    M = [mpf(0)] * (n + 2)
    s = mpf(0)
    for t in range(n + 1):
      s += pmf[t]
      M[t + 1] = s
    # m_t = P(Bin(n,1-c) <= t) = sum_{j<=t} pmf_c(n-j): sum from the small end.
    m = [mpf(0)] * (n + 2)
    s = mpf(0)
    for t in range(n + 1):
      s += pmf[n - t]
      m[t + 1] = s
    self.M = M
    self.m = m

  def value_at(self, t, dm, g):
    return self.M[t + 1] * dm - self.m[t + 1] * (dm + g - 1)

  def amplify(self, dm, e):
    """delta'(e) for e >= 0 given dm = delta_M(e)."""
    if dm <= 0:
      return mpf(0)
    g = mpmath.exp(e)
    A = (dm + g - 1) / dm
    # largest t with (n - 2t) logr > log A  <=>  t < (n - logA/logr)/2
    x = (self.n - mpmath.log(A) / self.logr) / 2
    tstar = int(mpmath.ceil(x)) - 1
    best = mpf(0)
    for t in (tstar - 1, tstar, tstar + 1):
      if -1 <= t <= self.n:
        v = self.value_at(t, dm, g)
        if v > best:
          best = v
    return best

  def amplify_brute(self, dm, e):
    """Max over every t (for self-checks only)."""
    g = mpmath.exp(e)
    return max([mpf(0)] + [self.value_at(t, dm, g) for t in range(-1, self.n + 1)])


# ---------------------------------------------------------------- workers

_DM_CACHE = {}


def gauss_grid(sigma, upto):
  """delta_G(i*h) for i = 0..upto-1, memoised and extended on demand."""
  arr = _DM_CACHE.setdefault(sigma, [])
  hm = mpf(H)
  while len(arr) < upto:
    i = len(arr)
    arr.append(delta_gauss(sigma, mpf(i) * hm))
  return arr


def exact_pld_task(args):
  sigma, c, n = args
  t0 = time.time()
  amp = Amplifier(n, c)
  hm = mpf(H)
  cap = int(mpmath.ceil(n * amp.logr / hm))  # delta' = 0 at and beyond cap*h
  pos = []
  i = 0
  chunk = 4096
  while True:
    if i >= len(_DM_CACHE.get(sigma, [])):
      gauss_grid(sigma, i + chunk)
    dm = _DM_CACHE[sigma][i]
    e = mpf(i) * hm
    v = amp.amplify(dm, e)
    pos.append(v)
    if v <= TAIL or i >= cap:
      break
    i += 1
  N = len(pos) - 1      # L = N*h
  # Forward values for i = -N..N (negative side via the symmetric identity).
  deltas = []
  for j in range(N, 0, -1):
    s = mpf(j) * hm
    ems = mpmath.exp(-s)
    deltas.append(round_up(1 - ems + ems * pos[j]))
  for j in range(0, N + 1):
    deltas.append(round_up(pos[j]))
  deltas = np.minimum(np.array(deltas, dtype=float), 1.0)
  eps_idx = np.arange(-N, N + 1, dtype=int)
  t1 = time.time()
  pmf = pld_pmf.create_pmf_pessimistic_connect_dots(H, eps_idx, deltas)
  pld = privacy_loss_distribution.PrivacyLossDistribution(pmf)
  out = []
  for T in TS:
    eps = pld.self_compose(T).get_epsilon_for_delta(DELTA)
    out.append(('exact_pld', sigma, c, n, T, DELTA, H, eps))
  t2 = time.time()
  log(f'exact_pld sigma={sigma} c={c} n={n}: L={N}*h, delta\'(L)={mpmath.nstr(pos[N], 3)}, '
      f'profile {t1 - t0:.1f}s, compose {t2 - t1:.1f}s, eps={[r[-1] for r in out]}')
  return out


def gaussian_pld_task(args):
  sigma, = args
  t0 = time.time()
  pld = privacy_loss_distribution.from_gaussian_mechanism(
      standard_deviation=sigma, sensitivity=1, value_discretization_interval=H)
  out = []
  for T in TS:
    eps = pld.self_compose(T).get_epsilon_for_delta(DELTA)
    out.append(('gaussian_pld', sigma, '', '', T, DELTA, '', eps))
  log(f'gaussian_pld sigma={sigma}: {time.time() - t0:.1f}s, eps={[r[-1] for r in out]}')
  return out


def solve_root(prof, delta):
  """Exact e' >= 0 with prof(e') = delta (prof non-increasing); 0 if prof(0) <= delta."""
  delta = mpf(delta)
  if prof(mpf(0)) <= delta:
    return mpf(0)
  lo, hi = mpf(0), mpf(1)
  while prof(hi) > delta:
    lo, hi = hi, 2 * hi
  # Bisection (prof is continuous and non-increasing) to a relative width of
  # 1e-30, far below the 15 significant digits required.
  for _ in range(200):
    mid = (lo + hi) / 2
    if prof(mid) > delta:
      lo = mid
    else:
      hi = mid
    if hi - lo <= mpf('1e-30') * hi:
      break
  return (lo + hi) / 2


def root_task(args):
  kind, param, c, n = args
  amp = Amplifier(n, c)
  if kind == 'exact_root':
    dmf = lambda e: delta_gauss(param, e)
  elif kind == 'exact_root_laplace':
    dmf = lambda e: delta_laplace(param, e)
  elif kind == 'exact_root_rr':
    dmf = lambda e: delta_rr(param, e)
  else:
    raise ValueError(kind)
  prof = lambda e: amp.amplify(dmf(e), e)
  root = solve_root(prof, DELTA)
  # self-check: the windowed maximiser agrees with the brute-force maximum.
  if n <= 100:
    for e in (root, root / 2, root * 1.5 + mpf('0.01')):
      a, b = amp.amplify(dmf(e), e), amp.amplify_brute(dmf(e), e)
      assert abs(a - b) <= mpf('1e-40') * max(b, mpf(1)), (kind, param, c, n, e, a, b)
  r = float(root)
  assert abs(mpf(r) - root) <= mpf('1e-16') * max(root, mpf('1e-300'))
  log(f'{kind} {param} c={c} n={n}: eps={r!r}')
  return [(kind, param, c, n, 1, DELTA, '', r)]


def run_task(task):
  kind = task[0]
  if kind == 'exact_pld':
    return exact_pld_task(task[1:])
  if kind == 'gaussian_pld':
    return gaussian_pld_task(task[1:])
  return root_task(task)


def fmt(v):
  if v == '':
    return ''
  if isinstance(v, float):
    return repr(v)
  return str(v)


def main():
  start = time.time()
  log(f'python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, '
      f'mpmath {mpmath.__version__}, mp.dps={mp.dps}')
  tasks = []
  # Largest first (sigma = 1, large n have the longest grids).
  for sigma in SIGMAS:
    for c in CS:
      for n in sorted(NS, reverse=True):
        tasks.append(('exact_pld', sigma, c, n))
  for sigma in SIGMAS:
    tasks.append(('gaussian_pld', sigma))
  for sigma in SIGMAS:
    for c in CS:
      for n in NS:
        tasks.append(('exact_root', sigma, c, n))
  for b in LAPLACE_BS:
    for c in EXTRA_CS:
      for n in EXTRA_NS:
        tasks.append(('exact_root_laplace', b, c, n))
  for p in RR_PS:
    for c in EXTRA_CS:
      for n in EXTRA_NS:
        tasks.append(('exact_root_rr', p, c, n))
  with multiprocessing.Pool(PROCESSES) as pool:
    results = pool.map(run_task, tasks, chunksize=1)
  rows = [r for res in results for r in res]
  order = {'exact_pld': 0, 'gaussian_pld': 1, 'exact_root': 2,
           'exact_root_laplace': 3, 'exact_root_rr': 4}
  rows.sort(key=lambda r: (order[r[0]], r[1], r[2] if r[2] != '' else 0,
                           r[3] if r[3] != '' else 0, r[4]))
  print('kind,sigma,c,n,T,delta,h,eps')
  for r in rows:
    print(','.join(fmt(v) for v in r))
  log(f'{len(rows)} rows, total {time.time() - start:.1f}s')


if __name__ == '__main__':
  main()
