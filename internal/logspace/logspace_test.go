package logspace

import (
	"math"
	"math/big"
	"testing"
)

// bigLogPMF returns log( C(n,x) p^x (1-p)^(n-x) ) from exact integer
// binomials and 512-bit floating powers of the float64 p and the exact 1-p
// (not its float64 rounding, whose error n*ulp would dominate): an
// independent reference with far more precision than float64.
func bigLogPMF(x, n int, p float64) float64 {
	const prec = 512
	pow := func(b *big.Float, e int) *big.Float {
		r := new(big.Float).SetPrec(prec).SetInt64(1)
		f := new(big.Float).SetPrec(prec).Set(b)
		for ; e > 0; e >>= 1 {
			if e&1 == 1 {
				r.Mul(r, f)
			}
			f.Mul(f, f)
		}
		return r
	}
	v := new(big.Float).SetPrec(prec).SetInt(new(big.Int).Binomial(int64(n), int64(x)))
	bp := new(big.Float).SetPrec(prec).SetFloat64(p)
	bq := new(big.Float).SetPrec(prec).SetInt64(1)
	bq.Sub(bq, bp)
	v.Mul(v, pow(bp, x))
	v.Mul(v, pow(bq, n-x))
	mant := new(big.Float)
	exp := v.MantExp(mant)
	m, _ := mant.Float64()
	return math.Log(m) + float64(exp)*math.Ln2
}

func TestBinomPMF(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 7, 15, 16, 40, 100, 1000, 10000} {
		for _, p := range []float64{1e-6, 0.01, 0.1, 0.3, 0.49, 0.9} {
			q := 1 - p
			for _, x := range []int{0, 1, n / 3, n / 2, int(float64(n) * p), n - 1, n} {
				if x < 0 || x > n {
					continue
				}
				want := bigLogPMF(x, n, p)
				got := BinomPMF(x, n, p, q)
				// Absolute error in the log: a few ulps of its size.
				if math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
					t.Errorf("BinomPMF(%d, %d, %v) = %.17g, want %.17g (diff %.2g)", x, n, p, got, want, got-want)
				}
			}
		}
	}
}

func TestBinomPMFSumsToOne(t *testing.T) {
	t.Parallel()
	for _, n := range []int{5, 333, 10000} {
		for _, p := range []float64{1e-6, 0.2, 0.5} {
			s := make([]float64, n+1)
			for x := range s {
				s[x] = BinomPMF(x, n, p, 1-p)
			}
			if got := Sum(s); math.Abs(got) > 1e-13 {
				t.Errorf("n=%d p=%v: log sum of pmf = %v, want 0", n, p, got)
			}
		}
	}
}

func TestPrimitives(t *testing.T) {
	t.Parallel()
	const tol = 1e-15
	inf := math.Inf(1)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"Softplus(0)", Softplus(0), math.Ln2},
		{"Softplus(-800)", Softplus(-800), math.Exp(-800)},
		{"Softplus(800)", Softplus(800), 800},
		{"Softplus(-Inf)", Softplus(-inf), 0},
		{"Add(0, 0)", Add(0, 0), math.Ln2},
		{"Add(-Inf, -Inf)", Add(-inf, -inf), -inf},
		{"Add(1000, 1000)", Add(1000, 1000), 1000 + math.Ln2},
		{"Sum(empty)", Sum(nil), -inf},
		{"Sum(-Inf...)", Sum([]float64{-inf, -inf}), -inf},
		{"Sum(3 x 1000)", Sum([]float64{1000, 1000, 1000}), 1000 + math.Log(3)},
		{"Sinh(1e-8)", Sinh(1e-8), math.Log(1e-8)},
		{"Sinh(1000)", Sinh(1000), 1000 - math.Ln2},
		{"Cosh(1e-5)", Cosh(1e-5), 0.5e-10 - 1e-20/12},
		{"Cosh(1000)", Cosh(1000), 1000 - math.Ln2},
		{"OneMinusExp(-1e-20)", OneMinusExp(-1e-20), math.Log(1e-20)},
		{"OneMinusExp(-50)", OneMinusExp(-50), -math.Exp(-50)},
	} {
		if tc.got != tc.want && !(math.Abs(tc.got-tc.want) <= tol*math.Abs(tc.want)) {
			t.Errorf("%s = %.17g, want %.17g", tc.name, tc.got, tc.want)
		}
	}
}

// TestLogOdds checks LogOdds where log((1-p)/p) is known in closed form,
// including near 1/2 where a naive log(1-p) - log(p) cancels: at
// p = 1/2 - h it is 2 atanh(2h) = 4h + (2h)^3 2/3 + ...
func TestLogOdds(t *testing.T) {
	t.Parallel()
	h := 0x1p-40
	tests := []struct{ p, want float64 }{
		{0.25, math.Log(3)},
		{0.125, math.Log(7)},
		{1.0 / 1024, math.Log(1023)},
		{0.5 - h, 4*h + 2*math.Pow(2*h, 3)/3},
		{0x1p-1000, math.Log1p(-0x1p-1000) + 1000*math.Ln2},
	}
	for _, tc := range tests {
		if got := LogOdds(tc.p); math.Abs(got-tc.want) > 4*0x1p-52*tc.want {
			t.Errorf("LogOdds(%v) = %.17g, want %.17g", tc.p, got, tc.want)
		}
	}
}
