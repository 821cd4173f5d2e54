package verify

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// exactBinom holds the exact Bin(n, a/b) cdf at the t asked for:
// prefix sums S_t of the integers T_j = C(n, j) a^j (b-a)^(n-j) (T_(j+1)
// = T_j (n-j) a/((j+1) (b-a)), an exact division), P(X <= t) = S_t / b^n,
// and the exact quotients enclosed at 256 bits (directed rounding).
type exactBinom struct {
	n   int
	pre map[int]*big.Int
	den *big.Int
}

func newExactBinom(n int, a, b int64, want map[int]bool) *exactBinom {
	e := &exactBinom{n: n, pre: map[int]*big.Int{}, den: new(big.Int).Exp(big.NewInt(b), big.NewInt(int64(n)), nil)}
	term := new(big.Int).Exp(big.NewInt(b-a), big.NewInt(int64(n)), nil)
	sum := new(big.Int)
	x, y := new(big.Int), new(big.Int)
	for j := 0; j <= n; j++ {
		if j > 0 {
			term.Mul(term, x.SetInt64(int64(n-j+1)*a))
			term.Quo(term, y.SetInt64(int64(j)*(b-a)))
		}
		sum.Add(sum, term)
		if want[j] {
			e.pre[j] = new(big.Int).Set(sum)
		}
	}
	return e
}

// quo encloses p/q (integers, q > 0) at 256 bits.
func quo(p, q *big.Int) (lo, hi *big.Float) {
	f := func(m big.RoundingMode, x *big.Int) *big.Float {
		return new(big.Float).SetPrec(256).SetMode(m).SetInt(x)
	}
	lo = f(big.ToNegativeInf, p)
	lo.Quo(lo, f(big.ToPositiveInf, q))
	hi = f(big.ToPositiveInf, p)
	hi.Quo(hi, f(big.ToNegativeInf, q))
	return lo, hi
}

// cdfFrac and survFrac return P(X <= t) and P(X >= s) as p/q.
func (e *exactBinom) cdfFrac(t int) (p, q *big.Int) {
	switch {
	case t < 0:
		return new(big.Int), e.den
	case t >= e.n:
		return e.den, e.den
	}
	return e.pre[t], e.den
}

func (e *exactBinom) survFrac(s int) (p, q *big.Int) {
	p, _ = e.cdfFrac(s - 1)
	return new(big.Int).Sub(e.den, p), e.den
}

// cdf encloses P(X <= t), surv P(X >= s) (t, s - 1 asked for).
func (e *exactBinom) cdf(t int) (lo, hi *big.Float) {
	switch {
	case t < 0:
		return quo(new(big.Int), e.den)
	case t >= e.n:
		return quo(e.den, e.den)
	}
	return quo(e.pre[t], e.den)
}

func (e *exactBinom) surv(s int) (lo, hi *big.Float) {
	if s <= 0 {
		return quo(e.den, e.den)
	}
	r := new(big.Int).Set(e.den)
	if s-1 < e.n {
		r.Sub(r, e.pre[s-1])
	} else {
		r.SetInt64(0)
	}
	return quo(r, e.den)
}

// cmpExact compares x with p/q (q > 0) exactly: the sign of x q - p.
func cmpExact(x float64, p, q *big.Int) int {
	pr := uint(q.BitLen() + p.BitLen() + 128)
	xq := new(big.Float).SetPrec(pr).SetFloat64(x)
	xq.Mul(xq, new(big.Float).SetPrec(pr).SetInt(q)) // exact: 53 + bits(q) bits
	return xq.Cmp(new(big.Float).SetPrec(pr).SetInt(p))
}

// relGap returns (x - v)/v for v > 0, in float64.
func relGap(x float64, v *big.Float) float64 {
	d := new(big.Float).SetPrec(256).Sub(new(big.Float).SetFloat64(x), v)
	f, _ := d.Quo(d, v).Float64()
	return f
}

// TestBinomWindowExact: the window's upper bounds on P(X <= t) and
// lower bounds on P(X >= s) against exact rational sums (math/big) at
// random (n, c, t) up to n = 10^5: on the right side always, and within
// 1e-13 relative wherever the exact value is above 1e-300 (the window's
// depth; below it the bounds may be 0 or the tail bound).
func TestBinomWindowExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	type cs struct {
		n    int
		a, b int64
	}
	cases := []cs{{1, 1, 3}, {7, 2, 5}, {2000, 9, 20}, {3000, 9, 20}, {10000, 1, 1000}, {20000, 49, 100}, {100000, 9, 20}}
	for range 4 {
		b := int64(2 + rng.IntN(1000))
		cases = append(cases, cs{1 + rng.IntN(30000), 1 + rng.Int64N((b-1)/2), b})
	}
	for _, tc := range cases {
		if 2*tc.a >= tc.b {
			tc.a = (tc.b - 1) / 2
		}
		c := big.NewRat(tc.a, tc.b)
		w := newBinomWindow(tc.n, c)
		ts := []int{0, 1, tc.n - 1, tc.n, w.lo - 1, w.lo, w.hi, w.hi + 1}
		mode := int(float64(tc.n) * float64(tc.a) / float64(tc.b))
		sd := math.Sqrt(float64(tc.n) * 0.25)
		for range 40 {
			ts = append(ts, mode+int(rng.NormFloat64()*3*sd), rng.IntN(tc.n+1))
		}
		ks := make([]int, 30)
		for i := range ks {
			ks[i] = rng.IntN(tc.n + 1)
		}
		want := map[int]bool{}
		for _, x := range append(ts, ks...) {
			want[x], want[x-1] = true, true
		}
		ex := newExactBinom(tc.n, tc.a, tc.b, want)
		for _, x := range ts {
			if x < 0 || x > tc.n {
				continue
			}
			up, lo := w.cdfUp(x), w.survLo(x)
			euLo, euHi := ex.cdf(x)
			elLo, elHi := ex.surv(x)
			if p, q := ex.cdfFrac(x); cmpExact(up, p, q) < 0 {
				t.Errorf("n %d c %v t %d: cdf bound %v below the exact %s", tc.n, c, x, up, euHi.Text('g', 20))
			}
			if p, q := ex.survFrac(x); cmpExact(lo, p, q) > 0 {
				t.Errorf("n %d c %v s %d: surv bound %v above the exact %s", tc.n, c, x, lo, elLo.Text('g', 20))
			}
			// Tightness above 1e-290: the tail bounds are at least
			// expHi's floor, about 1e-304, absolute.
			if f, _ := euLo.Float64(); f > 1e-290 && relGap(up, euLo) > 1e-13 {
				t.Errorf("n %d c %v t %d: cdf bound %v is %g above the exact", tc.n, c, x, up, relGap(up, euLo))
			}
			if f, _ := elHi.Float64(); f > 1e-290 && -relGap(lo, elHi) > 1e-13 {
				t.Errorf("n %d c %v s %d: surv bound %v is %g below the exact", tc.n, c, x, lo, -relGap(lo, elHi))
			}
		}
		// The Chernoff tails never below the exact ones, at every k of a
		// sample on each side of n c.
		lc, l1c := binomLogs(c)
		for _, k := range ks {
			p, q := ex.cdfFrac(k)
			if new(big.Rat).SetInt64(int64(k)).Cmp(new(big.Rat).Mul(c, new(big.Rat).SetInt64(int64(tc.n)))) > 0 {
				p, q = ex.survFrac(k)
			}
			if ch := chernoffUp(tc.n, k, lc, l1c); cmpExact(ch, p, q) < 0 {
				t.Errorf("n %d c %v k %d: Chernoff %v below the exact tail", tc.n, c, k, ch)
			}
		}
		if tc.n >= 10000 && w.hi-w.lo+1 >= tc.n {
			t.Errorf("n %d: window [%d, %d] is not narrower than n", tc.n, w.lo, w.hi)
		}
	}
}

// TestBinomWindowMpmath: n = 10^6 and 10^9 (beyond exact sums), against
// mpmath at 50 digits, computed for this test by summing the pmf (log-
// gamma at 50 digits, then the ratio recurrence) from t outward until a
// term is below 1e-45 of the sum (P(X <= t) = 1 - P(X >= t + 1) for t
// above n c):
//
//	def pmf(n,c,j): return exp(loggamma(n+1)-loggamma(j+1)-loggamma(n-j+1)+j*log(c)+(n-j)*log(1-c))
func TestBinomWindowMpmath(t *testing.T) {
	for _, tc := range []struct {
		n, t      int
		c         *big.Rat
		cdf, surv float64 // P(X <= t), P(X >= t + 1)
	}{
		{1000000, 449500, big.NewRat(9, 20), 0.15768134164284549559, 0.84231865835715450441},
		{1000000, 447000, big.NewRat(9, 20), 8.1764743877349229133e-10, 0.99999999918235256123},
		{1000000, 1010, big.NewRat(1, 1000), 0.63189670766305205017, 0.36810329233694794983},
		{1000000, 900, big.NewRat(1, 1000), 0.00069401546228685692469, 0.99930598453771314308},
		{1000000000, 449990000, big.NewRat(9, 20), 0.26251554906083438476, 0.73748445093916561524},
		{1000000000, 450010000, big.NewRat(9, 20), 0.73750558237606081893, 0.26249441762393918107},
		{1000000000, 449900000, big.NewRat(9, 20), 1.0325008809343719092e-10, 0.99999999989674991191},
		{1000000000, 450100000, big.NewRat(9, 20), 0.99999999989673652471, 1.0326347529386495856e-10},
	} {
		w := newBinomWindow(tc.n, tc.c)
		// The references are within an ulp; the bounds must be on their
		// side within 1e-13 relative.
		if up := w.cdfUp(tc.t); up < tc.cdf*(1-1e-15) || up > tc.cdf*(1+1e-13) {
			t.Errorf("n %d c %v t %d: cdf bound %v, mpmath %v", tc.n, tc.c, tc.t, up, tc.cdf)
		}
		if lo := w.survLo(tc.t + 1); lo > tc.surv*(1+1e-15) || lo < tc.surv*(1-1e-13) {
			t.Errorf("n %d c %v s %d: surv bound %v, mpmath %v", tc.n, tc.c, tc.t+1, lo, tc.surv)
		}
	}
}

// refCDFs is the checker's former enclosure of the cdfs (every t, the
// pmf at 128 bits by groupWeights, summed, rounded outward): upper
// bounds on M_t = P(Bin(n, c) <= t), lower on m_t = P(Bin(n, 1-c) <= t).
func refCDFs(n int, c *big.Rat) (M, m []float64) {
	w := groupWeights(n, c)
	M, m = make([]float64, n+1), make([]float64, n+1)
	sM, sm := constIval(0), constIval(0)
	for j := 0; j <= n; j++ {
		sM, sm = sM.add(w[j]), sm.add(w[n-j])
		M[j] = min(1, floatUp(sM.hi))
		m[j] = max(0, floatDown(sm.lo))
	}
	M[n], m[n] = 1, 1
	return M, m
}

// refUp is the former amplifier.up: every t evaluated on refCDFs.
func refUp(M, m []float64, delta, gm1 float64) float64 {
	best := 0.0
	for t := 0; t+1 < len(M); t++ {
		best = max(best, up(up(M[t]*delta)-dn(m[t]*dn(delta+gm1))))
	}
	return min(best, delta)
}

// TestAmplifierThreshold: the threshold's value against the former
// all-t maximum (refUp) at random (n, c, delta, g), n <= 2000: never
// below it by more than the cdfs' rounding (1e-13 delta; the window's
// truncation, at most 1e-304 (d + g - 1), is below that for g <= e^300),
// never above it by more; and a threshold off by one the wrong way (t* +
// 1 only, or t* - 1 only) falls short of the maximum somewhere.
func TestAmplifierThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 8))
	wrongLow, wrongHigh, evals := 0, 0, 0
	for range 40 {
		n := 1 + rng.IntN(2000)
		c := big.NewRat(1+rng.Int64N(499), 1000)
		if rng.IntN(4) == 0 {
			c = big.NewRat(1+rng.Int64N(9), 1000000)
		}
		a := newAmplifier(n, c)
		M, m := refCDFs(n, c)
		for range 50 {
			delta := math.Pow(10, -12*rng.Float64())
			l := (a.L.lo + a.L.hi) / 2
			gm1 := math.Expm1(min(300, rng.Float64()*float64(n)*l/float64(1+rng.IntN(4))))
			if rng.IntN(10) == 0 {
				gm1 = 0
			}
			got, want := a.up(delta, gm1), refUp(M, m, delta, gm1)
			if got < want-1e-13*delta-1e-300 || got > want+1e-13*delta+1e-300 {
				t.Fatalf("n %d c %v delta %v gm1 %v: threshold %v, all t %v", n, c, delta, gm1, got, want)
			}
			t0, t1, ok := a.candidates(delta, gm1)
			if !ok || t1-t0 > 1 {
				t.Errorf("n %d c %v delta %v gm1 %v: candidates [%d, %d] %v", n, c, delta, gm1, t0, t1, ok)
			}
			if t1 < 0 || want < 1e-290 {
				continue
			}
			evals++
			// Off by one: a neighbour alone falls short somewhere.
			if t1+1 < n && min(a.at(t1+1, delta, gm1), delta) < want-1e-13*delta {
				wrongHigh++
			}
			if t0 >= 1 && min(a.at(t0-1, delta, gm1), delta) < want-1e-13*delta {
				wrongLow++
			}
		}
	}
	if wrongHigh == 0 || wrongLow == 0 || evals < 100 {
		t.Errorf("a threshold off by one was never caught: %d (t*+1), %d (t*-1) of %d", wrongHigh, wrongLow, evals)
	}
	t.Logf("off by one caught: %d (t*+1), %d (t*-1) of %d", wrongHigh, wrongLow, evals)
}

// TestProfileLargeN: honest compose certificates past the former cap of
// n = 2000 (bernamp compose --steps 10 --discretization 0.01
// --certificate-out: gaussian sigma 2 at d 3000 and 10^5, c 0.45;
// gaussian sigma 0.5 at d 10^4, c 0.4999, where amplification is large;
// subsampled Gaussian q 0.1 sigma 1 at d 10^4, c 0.49) are accepted, and
// mutations rejected: the claim lowered, c moved toward 0, n doubled
// (less private: more coins; a smaller n is more private, and the file
// rightly stays accepted). At d 10^5, c 0.45 no amplification is left
// (eps_upper is the mechanism's own): neither c nor n moves its profile,
// so that file takes the claim's mutation only (it checks the window at
// n = 10^5 accepts).
func TestProfileLargeN(t *testing.T) {
	files := []struct {
		name      string
		amplified bool
	}{
		{"profile-gaussian-d3000-k1-c0.45-steps10-delta1e-05.json", true},
		{"profile-gaussian-d100000-k1-c0.45-steps10-delta1e-05.json", false},
		{"profile-gaussian-d10000-k1-c0.4999-steps10-delta1e-05.json", true},
		{"profile-subsampled-gaussian-d10000-k1-c0.49-steps10-delta1e-05.json", true},
	}
	for _, fl := range files {
		name := fl.name
		f := readProfile(t, name)
		if rep, err := Check(context.Background(), f, nil); err != nil || !rep.Accepted {
			t.Errorf("%s: %+v, %v; want accepted", name, rep, err)
		}
		for _, tc := range []struct {
			what string
			mut  func(f *certfile.File)
			want string
		}{
			{"claim lowered 2%", func(f *certfile.File) {
				c, _ := strconv.ParseFloat(f.Claim, 64)
				f.Claim = certfile.Exact(c * 0.98)
			}, "above delta"},
			{"c toward 0", func(f *certfile.File) {
				c, _ := strconv.ParseFloat(f.C, 64)
				f.C = certfile.Exact(c * 0.8)
			}, "does not dominate"},
			{"n doubled", func(f *certfile.File) { f.D *= 2; f.N = f.D * f.K }, "does not dominate"},
		} {
			if tc.what != "claim lowered 2%" && !fl.amplified {
				continue
			}
			f := readProfile(t, name)
			tc.mut(f)
			rep, err := Check(context.Background(), f, nil)
			if err != nil || rep.Accepted || !strings.Contains(rep.Failure, tc.want) {
				t.Errorf("%s, %s: %+v, %v; want a rejection with %q", name, tc.what, rep, err, tc.want)
			}
		}
	}
}

// BenchmarkBinomWindow: the window's construction (once per step kind).
func BenchmarkBinomWindow(b *testing.B) {
	for _, n := range []int{2000, 10000, 100000, 1000000, 1000000000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				newAmplifier(n, big.NewRat(9, 20))
			}
		})
	}
}
