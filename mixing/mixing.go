// Package mixing computes the generic amplification bounds of Balle,
// Barthe, Gaboardi and Geumlek, "Privacy amplification by mixing and
// diffusion mechanisms" (NeurIPS 2019), Section 3, for the Bernoulli
// sampling kernel of bernamp, as comparators for its exact values.
//
// The kernel B_k maps theta in [c, 1-c]^d to k rounds of d independent coin
// flips with biases theta. Balle et al. measure how much a Markov kernel K
// forgets of its input by three coefficients (Definition 1), each a number
// gamma in [0, 1], smaller meaning more amplification:
//
//   - gamma-Dobrushin: TV(K(x), K(x')) <= gamma for all inputs x, x';
//   - gamma-Doeblin: K(x) >= (1-gamma) omega for all x, for one distribution omega;
//   - gamma-ultra-mixing: dK(x)/dK(x') >= 1-gamma for all x, x'.
//
// Ultra-mixing implies Doeblin, which implies Dobrushin, each with the same
// gamma, so the smallest valid coefficients satisfy Dobrushin <= Doeblin <=
// UltraMixing. Their Theorem 1 turns a coefficient into an (eps', delta')-DP
// guarantee for K∘M from an (eps, delta)-DP guarantee for M: see Theorem1.
// The theorem is stated for (eps, delta)-DP only; Renyi gives the
// corresponding Rényi-DP bound, proved in its doc.
//
// Every coefficient here is rounded up and every bound is an upper bound on
// the privacy level it describes: each is a valid, and generally loose,
// guarantee for the amplified mechanism, never a claim about the truth from
// below. The outward margins keep each value within 1e-12 + 5 (n+8) ulps
// (relative, n = d k) of the exact value for the float64 inputs; the tests
// check this against 60-digit mpmath values.
package mixing

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Kernel is the Bernoulli sampling kernel B_K on [C, 1-C]^D.
type Kernel struct {
	D int     // dimension of theta, >= 1
	K int     // Bernoulli samples released, >= 1
	C float64 // range constant: theta in [C, 1-C]^D, 0 < C < 1/2
}

// MaxFlips is the largest D*K accepted: the coefficients cost O(D*K) and
// hold D*K+1 log-probabilities.
const MaxFlips = 1 << 22

// Validate returns an error naming the first field of k outside its domain,
// or D*K above MaxFlips.
func (k Kernel) Validate() error {
	for _, err := range []error{check.D(k.D), check.K(k.K), check.C(k.C)} {
		if err != nil {
			return err
		}
	}
	if k.D > MaxFlips/k.K {
		return fmt.Errorf("d*k is %d*%d, must be <= %d", k.D, k.K, MaxFlips)
	}
	return nil
}

// Bounds holds the three coefficients of one kernel, each the smallest
// valid gamma rounded up, and what HockeyStick needs. Make one with New;
// the zero Bounds is not usable. A Bounds is not modified after New, so it
// may be used from several goroutines.
type Bounds struct {
	Kernel
	// Dobrushin is sup_{x,x'} TV(B_k(x), B_k(x')) = TV(Bin(n, c), Bin(n,
	// 1-c)), n = d k: the supremum of a function convex in each theta_l is
	// at corners, and an antipodal pair of corners dominates every other
	// pair (coordinates on which two corners agree can be simulated), whose
	// likelihood ratio depends only on the total count of ones.
	Dobrushin float64
	// Doeblin is 1 - (sum_{m=0..k} C(k,m) min(c^m (1-c)^(k-m), c^(k-m) (1-c)^m))^d
	// (design/math.md section 6): the largest mass of a common minorant
	// omega is the sum over outputs of the minimum over inputs, attained at
	// corners coordinate by coordinate; the inner sum is the overlap
	// 1 - TV(Bin(k, c), Bin(k, 1-c)).
	Doeblin float64
	// UltraMixing is 1 - (c/(1-c))^(d k): the smallest likelihood ratio
	// between two outputs of B_k, at antipodal corners and all-zero counts.
	UltraMixing float64

	n      int       // d k
	logit  float64   // log((1-c)/c)
	logPMF []float64 // log Binomial(n, c) pmf at 0..n
}

// New validates k and computes its coefficients in O(d k) time.
func New(k Kernel) (*Bounds, error) {
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("mixing.New: %w", err)
	}
	n := k.D * k.K
	b := &Bounds{Kernel: k, n: n, logit: logspace.LogOdds(k.C), logPMF: logPMF(n, k.C)}
	// Dobrushin: gamma = 1 - overlap of Bin(n, c) and Bin(n, 1-c).
	b.Dobrushin = oneMinusExpUp(logComplement(b.logPMF, b.logit))
	// Doeblin: 1 - gamma = (overlap for n = k)^d.
	lc, rel := logComplement(logPMF(k.K, k.C), b.logit)
	b.Doeblin = oneMinusExpUp(float64(k.D)*lc, float64(k.D)*(rel+ulp*math.Abs(lc)))
	// Ultra-mixing: log(1 - gamma) = -n logit, with the relative error of
	// logit (a few ulps) and of the product.
	x := -float64(n) * b.logit
	b.UltraMixing = oneMinusExpUp(x, 8*ulp*math.Abs(x))
	return b, nil
}

// ulp is the unit in the last place of 1.
const ulp = 0x1p-52

// logPMF returns the log pmf of Binomial(n, c) at 0..n (Loader's method,
// internal/logspace: absolute error a few ulps of each log-probability).
func logPMF(n int, c float64) []float64 {
	lp := make([]float64, n+1)
	for j := range lp {
		lp[j] = logspace.BinomPMF(j, n, c, 1-c)
	}
	return lp
}

// logComplement returns log(1 - TV) for P = Bin(n, c), Q = Bin(n, 1-c) with
// logit D, and a bound rel on its absolute error (a relative error of 1 -
// TV). Q_j = P_(n-j), and P_j > Q_j exactly when j < n/2, so
//
//	TV      = sum_{j < n/2} P_j (1 - e^(-(n-2j) D)),
//	1 - TV  = 2 sum_{j < n/2} Q_j + [n even] P_(n/2),
//
// both sums of nonnegative terms. The log of the complement is taken from
// the overlap when TV >= 1/2 and as log1p(-TV) otherwise, so it keeps full
// relative accuracy both where TV is tiny (c near 1/2) and where the overlap
// is tiny (small c, large n).
//
// Error: each log-probability is within a few ulps of its size, and 1-c
// within half an ulp, which moves log P_j by at most n ulps; a sum of n+1
// positive terms adds n+1 roundings. So a relative error of 8 ulps times
// (the P-weighted mean of |log P_j|) + 4 (n+8) ulps bounds each sum.
func logComplement(lp []float64, D float64) (lc, rel float64) {
	n := len(lp) - 1
	tv, tvW := logspace.NewAcc(), logspace.NewAcc() // TV, and sum of terms |log term|
	ov, ovW := logspace.NewAcc(), logspace.NewAcc() // overlap / 2 (j < n/2), same
	for j := 0; 2*j < n; j++ {
		t := lp[j] + logspace.OneMinusExp(-float64(n-2*j)*D)
		tv.Add(t)
		tvW.Add(t + math.Log(math.Abs(t)+1))
		q := lp[n-j]
		ov.Add(q)
		ovW.Add(q + math.Log(math.Abs(q)+1))
	}
	logOv := ov.Log() + math.Ln2
	logOvW := ovW.Log() + math.Ln2
	if n%2 == 0 {
		m := lp[n/2]
		logOv = logspace.Add(logOv, m)
		logOvW = logspace.Add(logOvW, m+math.Log(math.Abs(m)+1))
	}
	base := 4 * float64(n+8) * ulp
	if tv.Log() < -math.Ln2 {
		// TV < 1/2: log1p(-TV) has absolute error at most TV/(1-TV) times
		// the relative error of TV, plus its own rounding.
		relTV := base + 8*ulp*math.Exp(tvW.Log()-tv.Log())
		t := math.Exp(tv.Log())
		lc := math.Log1p(-t)
		return lc, t/(1-t)*relTV + 2*ulp*math.Abs(lc)
	}
	return logOv, base + 8*ulp*math.Exp(logOvW-logOv) + 4*ulp*math.Abs(logOv)
}

// oneMinusExpUp returns 1 - e^x for x <= 0 whose absolute error is at most
// dx, rounded up: an upper bound on the exact 1 - e^x, at most 1. Since
// d(1 - e^x)/dx = e^x <= 1, moving x down by dx covers the error.
func oneMinusExpUp(x, dx float64) float64 {
	v := -math.Expm1(x - dx)
	v += 4 * ulp * v // expm1 is within an ulp or two
	return math.Min(1, math.Nextafter(v, 2))
}
