package verify

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Convolution of nonnegative float64 arrays by a radix-2 FFT with a
// proved error bound, for the composition of a profile certificate.
//
// Error model: u = 2^-53 (IEEE round to nearest), gamma_2 = 2u/(1-2u). A
// complex product is computed as (ar br - ai bi) + i (ar bi + ai br) with
// each real product rounded (explicit conversions forbid fused
// multiply-adds), so |fl(a b) - a b| <= sqrt2 gamma_2 |a b| (Higham,
// Accuracy and Stability of Numerical Algorithms, Lemma 3.5); a complex
// sum has |fl(a + b) - (a + b)| <= u |a + b|. The twiddles w are stored
// as float64 values within mu of the exact roots of unity (twiddles).
//
// One stage of the transform maps pairs (x, y) to (x + w y, x - w y): it
// is sqrt2 times a unitary map. Computed, each output is within u |exact
// output| + (1 + u) beta |y| of its exact value, beta = mu + (1 + mu)
// sqrt2 gamma_2, so the stage's error is at most sqrt2 eta ||input||_2,
// eta = u + (1 + u) beta. By induction over the k = log2 L stages, the
// computed transform y^ of x has ||y^ - F x||_2 <= kappa ||F x||_2, kappa
// = (1 + eta)^k - 1, and ||F x||_2 = sqrt(L) ||x||_2.
//
// The circular convolution c of length L of a and b (the linear one a *
// b when L >= len a + len b - 1: no wrap) is F*(F a . F b)/L. With A^ =
// F a + E_A, B^ = F b + E_B (||E_A||_2 <= kappa sqrt(L) ||a||_2),
// ||B^||_inf <= Binf = ||b||_1 + kappa sqrt(L) ||b||_2, the pointwise
// product P^ has ||P^ - Fa.Fb||_2 <= sqrt(L) D,
//
//	D = kappa ||a||_2 Binf + kappa ||a||_1 ||b||_2 + sqrt2 gamma_2 (1 + kappa) ||a||_2 Binf,
//
// and the inverse transform adds kappa sqrt(L) ||P^||_2 <= kappa L
// (||a||_2 ||b||_1 + D), so after the exact division by L
//
//	||c^ - c||_2 <= D + kappa (||a||_2 ||b||_1 + D) + tiny,
//
// where tiny = 2^-900 covers every underflow (each rounding into the
// subnormal range errs by at most 2^-1075 absolute; there are fewer than
// 2^40 roundings, each amplified by at most L <= 2^24). Clamping c^ at 0
// only moves it towards c >= 0.

const u53 = 0x1p-53

// maxFFT caps the transform length of the checker's composition.
const maxFFT = 1 << 23

var gamma2 = up(up(2*u53) / dn(1-2*u53))

// twiddleMu bounds |w^ - w| of the stored twiddles: the two tables' entries
// are within u/2 + 2^-190 of exact roots (rounded to nearest from 256-bit
// values within 2^-200, see twiddles), and their float64 product adds
// sqrt2 gamma_2 (1 + mu1)^2: mu <= 2 mu1 + mu1^2 + sqrt2 gamma_2 (1 + mu1)^2.
var twiddleMu = func() float64 {
	mu1 := up(0.5*u53 + 0x1p-190)
	s2 := up(math.Sqrt2 * (1 + u53)) // above sqrt 2
	return up(up(2*mu1+up(mu1*mu1)) + up(up(s2*gamma2)*up(up(1+mu1)*up(1+mu1))))
}()

// fftKappa returns kappa = (1 + eta)^k - 1 rounded up.
func fftKappa(k int) float64 {
	s2 := up(math.Sqrt2 * (1 + u53))
	beta := up(twiddleMu + up(up(1+twiddleMu)*up(s2*gamma2)))
	eta := up(u53 + up(up(1+u53)*beta))
	p := 1.0
	for range k {
		p = up(p * up(1+eta))
	}
	return up(p - 1)
}

// twiddles returns w_j = e^(-2 pi i j / L), j < L/2, as float64 (re, im):
// the product of a coarse and a fine table, each entry a power of a root
// of unity computed at 256 bits (half angles from e^(i pi/2) = i, then
// repeated products), rounded to nearest. Each 256-bit value is within
// 2^-200 of the exact root (a few hundred operations at relative
// precision 2^-255 each, with a margin of 2^40).
func twiddles(L int) (re, im []float64) {
	const p = 256
	k := bits.Len(uint(L)) - 1
	root := func(kk int) (c, s *big.Float) { // cos, sin of 2 pi / 2^kk
		c, s = new(big.Float).SetPrec(p), new(big.Float).SetPrec(p).SetInt64(1)
		for j := 3; j <= kk; j++ {
			c1 := new(big.Float).SetPrec(p).Add(big.NewFloat(1), c)
			c1.Quo(c1, big.NewFloat(2))
			c1.Sqrt(c1)
			s1 := new(big.Float).SetPrec(p).Quo(s, c1)
			s1.Quo(s1, big.NewFloat(2))
			c, s = c1, s1
		}
		if kk == 1 { // e^(i pi) = -1
			return new(big.Float).SetPrec(p).SetInt64(-1), new(big.Float).SetPrec(p)
		}
		return c, s
	}
	table := func(kk, count int) (tr, ti []float64) {
		tr, ti = make([]float64, count), make([]float64, count)
		c, s := root(kk)
		s.Neg(s) // e^(-i theta)
		xr, xi := new(big.Float).SetPrec(p).SetInt64(1), new(big.Float).SetPrec(p)
		t1, t2 := new(big.Float).SetPrec(p), new(big.Float).SetPrec(p)
		for j := range count {
			tr[j], _ = xr.Float64()
			ti[j], _ = xi.Float64()
			nr := new(big.Float).SetPrec(p).Sub(t1.Mul(xr, c), t2.Mul(xi, s))
			ni := new(big.Float).SetPrec(p).Add(t1.Mul(xr, s), t2.Mul(xi, c))
			xr, xi = nr, ni
		}
		return tr, ti
	}
	half := L / 2
	fb := min(k-1, 11) // fine table: 2^fb entries
	fr, fim := table(k, 1<<fb)
	cr, cim := table(k-fb, max(1, half>>fb))
	re, im = make([]float64, half), make([]float64, half)
	mask := 1<<fb - 1
	for j := range half {
		a, b := cr[j>>fb], cim[j>>fb]
		c, d := fr[j&mask], fim[j&mask]
		re[j] = float64(a*c) - float64(b*d)
		im[j] = float64(a*d) + float64(b*c)
	}
	return re, im
}

// fft transforms (xr, xi) in place (length L = 2^k): forward with the
// twiddles w, inverse (unnormalized) with their conjugates.
func fft(xr, xi, wr, wi []float64, inverse bool) {
	L := len(xr)
	k := bits.Len(uint(L)) - 1
	for i := range L {
		j := int(bits.Reverse(uint(i)) >> (bits.UintSize - k))
		if i < j {
			xr[i], xr[j] = xr[j], xr[i]
			xi[i], xi[j] = xi[j], xi[i]
		}
	}
	sign := 1.0
	if inverse {
		sign = -1
	}
	for m := 2; m <= L; m <<= 1 {
		h := m / 2
		step := L / m
		for s := 0; s < L; s += m {
			for j := range h {
				ar, ai := wr[j*step], sign*wi[j*step]
				yr, yi := xr[s+j+h], xi[s+j+h]
				tr := float64(ar*yr) - float64(ai*yi)
				ti := float64(ar*yi) + float64(ai*yr)
				ur, ui := xr[s+j], xi[s+j]
				xr[s+j], xi[s+j] = ur+tr, ui+ti
				xr[s+j+h], xi[s+j+h] = ur-tr, ui-ti
			}
		}
	}
}

// norms returns upper bounds on ||x||_1 and ||x||_2 of x >= 0.
func norms(x []float64) (n1, n2 float64) {
	s1, s2 := 0.0, 0.0
	for _, v := range x {
		s1 = up(s1 + v)
		s2 = up(s2 + up(v*v))
	}
	return s1, up(math.Sqrt(s2))
}

// convPower returns the computed T-fold convolution power of a >= 0
// (length (len a - 1) T + 1), clamped at 0, and an upper bound on the
// 2-norm of its difference from the exact power: convProduct of one kind.
func convPower(a []float64, steps int) ([]float64, float64, error) {
	return convProduct([][]float64{a}, []int{steps})
}

// convProduct returns the computed convolution of the T_i-fold
// convolution powers of the arrays a_i >= 0 (length n = sum_i (len a_i -
// 1) T_i + 1), clamped at 0, and an upper bound on the 2-norm of its
// difference from the exact one: convCircular with L the least power of
// two >= n (no wrap: the circular convolution is the linear one).
//
// Errors: a transform longer than maxFFT.
func convProduct(as [][]float64, steps []int) ([]float64, float64, error) {
	n := int64(1)
	for i, a := range as {
		n += int64(len(a)-1) * int64(steps[i])
	}
	L := 2
	for int64(L) < n {
		L <<= 1
		if L > maxFFT {
			return nil, 0, fmt.Errorf("the composition needs a transform of more than %d points (the checker's cap)", maxFFT)
		}
	}
	out, e, err := convCircular(as, steps, L)
	if err != nil {
		return nil, 0, err
	}
	return out[:n], e, nil
}

// convCircular returns the computed circular convolution of length L (a
// power of two, 2 <= L <= maxFFT) of the T_i-fold convolution powers of
// the arrays a_i >= 0, clamped at 0, and an upper bound on the 2-norm of
// its difference from the exact one: entry r is the exact linear
// convolution's mass summed over the indices congruent to r mod L. It
// takes one transform of each a_i, the pointwise product of their T_i-th
// powers and one inverse transform. An a_i longer than L is folded first
// (entry j added into j mod L, rounded up): the circular convolution of
// the folded arrays is the folded linear one, and rounding a fold up only
// raises every entry of the exact result (all terms are >= 0).
//
// The bound below (and the transform's, in the package comment above)
// never uses that L covers the linear convolution: it bounds the computed
// F*(prod_i (F a_i)^T_i)/L against the exact one for the length-L arrays
// a_i (the folded ones), and the convolution theorem makes the exact one
// their circular convolution; ||F x||_2 = sqrt(L) ||x||_2 and |(F
// a_i)_k| <= ||a_i||_1 hold for any x, a_i of length L.
//
// With A_i = F a_i, A^_i its computed transform (||A^_i - A_i||_2 <=
// kappa sqrt(L) ||a_i||_2), R_i >= max_k max(|A_ik|, |A^_ik|) (|A_ik| <=
// ||a_i||_1), G = prod_j R_j^T_j and G_i = G / R_i: by telescoping over
// the kinds, |prod_i A^_ik^T_i - prod_i A_ik^T_i| <= sum_i G_i T_i |A^_ik
// - A_ik|, so ||prod A^^T - prod A^T||_2 <= sqrt(L) kappa sum_i T_i G_i
// ||a_i||_2. The powers by binary powering and the product of the kinds
// take at most m complex products on any point (the most a power takes,
// summed over the kinds, plus one per further kind), so the computed P is
// within rho = (1 + sqrt2 gamma_2)^m - 1 of prod_i A^_ik^T_i, relatively;
// and |prod_i A^_ik^T_i| <= G_i |A^_ik| for every i, so with M = min_i
// G_i ||a_i||_2, ||prod A^^T||_2 <= (1 + kappa) sqrt(L) M and ||prod
// A^T||_2 <= sqrt(L) M. Hence ||P - prod A^T||_2 <= Delta = sqrt(L)
// (kappa sum_i T_i G_i ||a_i||_2 + rho (1 + kappa) M), and after the
// inverse transform (kappa sqrt(L) ||P||_2 <= kappa sqrt(L) (sqrt(L) M +
// Delta)) and the exact division by L
//
//	||c^ - c||_2 <= (1 + kappa)(kappa sum_i T_i G_i ||a_i||_2 + rho (1 + kappa) M) + kappa M + tiny max(1, G).
//
// One kind (G_1 = R^(T-1)): G_1 ||a||_2 ((1 + kappa)(T kappa + rho (1 +
// kappa)) + kappa), the bound of the T-fold power alone. tiny (the
// package doc above) is scaled by G, the most an underflow's error is
// multiplied by in the products.
func convCircular(as [][]float64, steps []int, L int) ([]float64, float64, error) {
	if L < 2 || L > maxFFT || L&(L-1) != 0 {
		panic(fmt.Sprintf("verify: transform length %d", L))
	}
	k := bits.Len(uint(L)) - 1
	wr, wi := twiddles(L)
	accR, accI := make([]float64, L), make([]float64, L) // the product so far
	var sr, si []float64                                 // scratch for the kinds after the first
	if len(as) > 1 {
		sr, si = make([]float64, L), make([]float64, L)
	}
	Rs := make([]float64, len(as))
	a2s := make([]float64, len(as))
	mults := len(as) - 1
	for c, a := range as {
		xr, xi := accR, accI
		if c > 0 {
			xr, xi = sr, si
			clear(xr)
			clear(xi)
		}
		if len(a) <= L {
			copy(xr, a)
		} else {
			for j, v := range a {
				if v > 0 {
					xr[j%L] = up(xr[j%L] + v)
				}
			}
		}
		a1, a2 := norms(xr)
		fft(xr, xi, wr, wi, false)
		R := a1
		cnt := 0
		for i := range L {
			m := up(math.Sqrt(up(up(xr[i]*xr[i]) + up(xi[i]*xi[i]))))
			R = max(R, m)
			var pr, pi float64
			pr, pi, cnt = cpow(xr[i], xi[i], steps[c])
			if c == 0 {
				accR[i], accI[i] = pr, pi
			} else {
				ar, ai := accR[i], accI[i]
				accR[i], accI[i] = float64(ar*pr)-float64(ai*pi), float64(ar*pi)+float64(ai*pr)
			}
		}
		mults += cnt
		Rs[c], a2s[c] = R, a2
	}
	fft(accR, accI, wr, wi, true)
	out := make([]float64, L)
	inv := 1 / float64(L) // exact
	for i := range out {
		out[i] = max(0, accR[i]*inv)
	}
	kappa := fftKappa(k)
	s2 := up(math.Sqrt2 * (1 + u53))
	rho := 1.0
	for range mults {
		rho = up(rho * up(1+up(s2*gamma2)))
	}
	rho = up(rho - 1)
	// G_i = R_i^(T_i - 1) prod_{j != i} R_j^T_j, from above.
	pow := func(r float64, t int) float64 {
		g := 1.0
		for range t {
			g = up(g * r)
		}
		return g
	}
	G := 1.0
	for c := range as {
		G = up(G * pow(Rs[c], steps[c]))
	}
	sumT, M := 0.0, math.Inf(1)
	for c := range as {
		Gc := pow(Rs[c], steps[c]-1)
		for j := range as {
			if j != c {
				Gc = up(Gc * pow(Rs[j], steps[j]))
			}
		}
		if math.IsInf(Gc, 1) {
			return nil, 0, fmt.Errorf("the tilted step's transform exceeds 1 too much to raise it to the power %d", steps[c])
		}
		ga := up(Gc * a2s[c])
		sumT = up(sumT + up(float64(steps[c])*ga))
		M = min(M, ga)
	}
	inner := up(up(kappa*sumT) + up(rho*up(up(1+kappa)*M)))
	e := up(up(up(1+kappa)*inner) + up(kappa*M))
	return out, up(e + up(0x1p-900*max(1, G))), nil
}

// cpow returns z^t by binary powering, every product rounded (no fusion),
// and the number of complex products it took.
func cpow(zr, zi float64, t int) (pr, pi float64, cnt int) {
	br, bi := zr, zi
	pr, pi = 1.0, 0.0
	first := true
	for ; t > 0; t >>= 1 {
		if t&1 == 1 {
			if first {
				pr, pi, first = br, bi, false
			} else {
				pr, pi = float64(pr*br)-float64(pi*bi), float64(pr*bi)+float64(pi*br)
				cnt++
			}
		}
		if t > 1 {
			br, bi = float64(br*br)-float64(bi*bi), float64(br*bi)+float64(bi*br)
			cnt++
		}
	}
	return pr, pi, cnt
}
