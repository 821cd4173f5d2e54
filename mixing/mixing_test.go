package mixing

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/rdp"
)

// tolFor is the accuracy the package documents for a value that involves
// sums over the n = d k coin flips: 1e-12 + 5 (n+8) ulps relative. The
// outward padding is 4 (n+8) ulps of each sum (about 9e-12 at n = 1e4, the
// largest in the references) plus a margin for the error of each log,
// which grows with the size of the logs involved.
func tolFor(n int) float64 { return 1e-12 + float64(5*(n+8))*0x1p-52 }

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// upperWithin reports whether got is at or above want (exact for the
// float64 inputs) and within tol relative of it.
func upperWithin(got, want, tol float64) bool {
	return got >= want && got <= want+tol*math.Abs(want)+1e-300
}

func newBounds(t *testing.T, d, k int, c float64) *Bounds {
	t.Helper()
	b, err := New(Kernel{D: d, K: k, C: c})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAgainstHighPrecision compares coefficients, hockey-stick
// coefficients, the Rényi bound and the maps of Theorem 1 with
// testdata/ref/mixing.csv (mpmath, 60 digits, gen_mixing.py): each value
// must be an upper bound on the exact one and within relTol of it.
func TestAgainstHighPrecision(t *testing.T) {
	t.Parallel()
	cache := map[string]*Bounds{}
	get := func(rec []string) *Bounds {
		key := strings.Join(rec[1:4], ",")
		if b, ok := cache[key]; ok {
			return b
		}
		b := newBounds(t, atoi(t, rec[1]), atoi(t, rec[2]), testref.Float(t, rec[3]))
		cache[key] = b
		return b
	}
	seen := map[string]int{}
	for _, rec := range testref.Rows(t, "../testdata/ref/mixing.csv", 400) {
		kind, x, y, want := rec[0], testref.Float(t, rec[4]), testref.Float(t, rec[5]), testref.Float(t, rec[6])
		tol := tolFor(atoi(t, rec[1]) * atoi(t, rec[2]))
		var got float64
		switch {
		case kind == "dobrushin":
			got = get(rec).Dobrushin
		case kind == "doeblin":
			got = get(rec).Doeblin
		case kind == "ultra_mixing":
			got = get(rec).UltraMixing
		case kind == "hockey":
			got = get(rec).HockeyStick(x)
		case strings.HasPrefix(kind, "renyi:"):
			got = Renyi(testref.Float(t, strings.TrimPrefix(kind, "renyi:")), x, y)
		case strings.HasPrefix(kind, "thm1_"):
			name := strings.TrimPrefix(kind, "thm1_")
			name, isEps := strings.CutSuffix(name, "_eps")
			name = strings.TrimSuffix(name, "_delta")
			it := itemNamed(t, name)
			e, d := get(rec).Theorem1(it, x, y)
			got = d
			if isEps {
				got = e
			}
			if it == Doeblin && !isEps {
				// Doeblin's delta' is not monotone in gamma: Theorem1
				// applies the theorem with the rounded-up gamma (valid,
				// since a gamma-Doeblin kernel is gamma'-Doeblin for every
				// gamma' >= gamma), whose delta' may fall a little below
				// the one at the exact gamma. Only closeness is asked.
				if math.Abs(got-want) > tol*want {
					t.Errorf("%s d=%s k=%s c=%s x=%v y=%v: %.17g, want %.17g (rel %.2g)",
						kind, rec[1], rec[2], rec[3], x, y, got, want, (got-want)/want)
				}
				seen[kind]++
				continue
			}
		default:
			t.Fatalf("unknown kind %q", kind)
		}
		seen[strings.SplitN(kind, ":", 2)[0]]++
		if !upperWithin(got, want, tol) {
			t.Errorf("%s d=%s k=%s c=%s x=%v y=%v: %.17g, want %.17g rounded up (rel %.2g)",
				kind, rec[1], rec[2], rec[3], x, y, got, want, (got-want)/want)
		}
	}
	if seen["dobrushin"] < 60 || seen["hockey"] < 100 || seen["renyi"] < 10 || seen["thm1_doeblin_delta"] < 7 {
		t.Errorf("reference rows by kind: %v", seen)
	}
}

func itemNamed(t *testing.T, name string) Item {
	t.Helper()
	for _, it := range Items {
		if it.String() == name {
			return it
		}
	}
	t.Fatalf("unknown item %q", name)
	return 0
}

// TestApproxAgainstHighPrecision compares the searched (eps, delta)
// guarantees with testdata/ref/mixing_approx.csv, where an independent
// high-precision search located the optimal input delta. A claim below the
// optimum would be wrong; one more than 1e-9 above it a poor search.
func TestApproxAgainstHighPrecision(t *testing.T) {
	t.Parallel()
	const searchTol = 1e-9
	for _, rec := range testref.Rows(t, "../testdata/ref/mixing_approx.csv", 40) {
		it := itemNamed(t, rec[0])
		b := newBounds(t, atoi(t, rec[1]), atoi(t, rec[2]), testref.Float(t, rec[3]))
		sigma, delta := testref.Float(t, rec[4]), testref.Float(t, rec[5])
		curve, err := rdp.Gaussian(sigma, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := b.Approx(it, curve, rdp.Balle2020, delta)
		if err != nil {
			t.Fatal(err)
		}
		desc := strings.Join(rec[:6], ",")
		if vac := rec[8] == "1"; cl.Vacuous != vac {
			t.Errorf("%s: vacuous %v, want %v", desc, cl.Vacuous, vac)
			continue
		}
		if cl.Vacuous {
			if !math.IsInf(cl.Eps, 1) {
				t.Errorf("%s: vacuous claim with eps %v", desc, cl.Eps)
			}
			continue
		}
		want := testref.Float(t, rec[6])
		if cl.Eps < want*(1-1e-12) || cl.Eps > want*(1+searchTol) {
			t.Errorf("%s: eps %.17g (delta_in %.6g), want %.17g (delta_in %s), rel %.2g", desc, cl.Eps, cl.DeltaIn, want, rec[7], (cl.Eps-want)/want)
		}
		// The claim is self-consistent: Theorem 1 at (EpsIn, DeltaIn)
		// gives (Eps, DeltaOut) with DeltaOut <= delta, and EpsIn is the
		// conversion of the curve at DeltaIn.
		e, d := b.Theorem1(it, cl.EpsIn, cl.DeltaIn)
		a, _ := rdp.ToApprox(curve, cl.DeltaIn, rdp.Balle2020)
		if e != cl.Eps || d != cl.DeltaOut || d > delta || a.Eps != cl.EpsIn || a.Order != cl.Order {
			t.Errorf("%s: claim %+v inconsistent: Theorem1 gives (%v, %v), conversion %v at %v", desc, cl, e, d, a.Eps, a.Order)
		}
	}
}

// TestOrdering checks the implications between the conditions:
// Dobrushin <= Doeblin <= UltraMixing, the hockey-stick coefficient is
// decreasing from Dobrushin at eps~ = 0, and the Rényi bound is at most eps
// and increasing in gamma.
func TestOrdering(t *testing.T) {
	t.Parallel()
	for _, k := range []Kernel{{1, 1, 0.1}, {2, 3, 0.2}, {5, 1, 0.01}, {1, 50, 0.4}, {30, 30, 0.3}} {
		b := newBounds(t, k.D, k.K, k.C)
		if !(b.Dobrushin <= b.Doeblin && b.Doeblin <= b.UltraMixing && b.UltraMixing <= 1 && b.Dobrushin > 0) {
			t.Errorf("%+v: dobrushin %v, doeblin %v, ultra-mixing %v not increasing in (0, 1]", k, b.Dobrushin, b.Doeblin, b.UltraMixing)
		}
		// Two computations of one TV, each rounded up by its own margin.
		if hs := b.HockeyStick(0); math.Abs(hs-b.Dobrushin) > 2*tolFor(k.D*k.K)*hs {
			t.Errorf("%+v: HockeyStick(0) = %v, want Dobrushin %v", k, hs, b.Dobrushin)
		}
		prev := b.HockeyStick(0)
		for _, et := range []float64{0.01, 0.1, 1, 3, 10, 100} {
			hs := b.HockeyStick(et)
			if hs > prev {
				t.Errorf("%+v: HockeyStick(%v) = %v > %v at a smaller eps~", k, et, hs, prev)
			}
			prev = hs
		}
		if b.HockeyStick(math.Inf(1)) != 0 {
			t.Errorf("%+v: HockeyStick(+Inf) != 0", k)
		}
	}
	for _, alpha := range []float64{1.1, 2, 10, 1024} {
		for _, eps := range []float64{0, 1e-8, 0.5, 5, 1e3} {
			prev := 0.0
			for _, g := range []float64{0, 1e-6, 0.3, 0.9, 1} {
				r := Renyi(g, alpha, eps)
				if r < prev || r > eps*(1+1e-14) {
					t.Errorf("Renyi(%v, %v, %v) = %v: not in [%v, eps]", g, alpha, eps, r, prev)
				}
				prev = r
			}
		}
	}
}

// TestBruteForceSmall checks the coefficients of d = 2, k = 2 against their
// definitions over all 2^2 corners and all 9 output count vectors, and the
// Rényi bound against the exact amplified level of random pairs of input
// distributions: every RDP bound must hold for every input pair.
func TestBruteForceSmall(t *testing.T) {
	t.Parallel()
	const d, k, c = 2, 2, 0.2
	b := newBounds(t, d, k, c)
	// Output m = (m1, m2), each in 0..2; corner z = (z1, z2) in {c, 1-c}^2.
	binom := func(m int, th float64) float64 {
		return []float64{1, 2, 1}[m] * math.Pow(th, float64(m)) * math.Pow(1-th, float64(k-m))
	}
	corners := [][2]float64{{c, c}, {c, 1 - c}, {1 - c, c}, {1 - c, 1 - c}}
	kern := func(z [2]float64, m1, m2 int) float64 { return binom(m1, z[0]) * binom(m2, z[1]) }
	var tvMax, minSum float64
	ratioMin := math.Inf(1)
	for _, z := range corners {
		for _, w := range corners {
			var tv float64
			for m1 := 0; m1 <= k; m1++ {
				for m2 := 0; m2 <= k; m2++ {
					tv += math.Abs(kern(z, m1, m2)-kern(w, m1, m2)) / 2
					ratioMin = math.Min(ratioMin, kern(z, m1, m2)/kern(w, m1, m2))
				}
			}
			tvMax = math.Max(tvMax, tv)
		}
	}
	for m1 := 0; m1 <= k; m1++ {
		for m2 := 0; m2 <= k; m2++ {
			lo := math.Inf(1)
			for _, z := range corners {
				lo = math.Min(lo, kern(z, m1, m2))
			}
			minSum += lo
		}
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"dobrushin", b.Dobrushin, tvMax},
		{"doeblin", b.Doeblin, 1 - minSum},
		{"ultra-mixing", b.UltraMixing, 1 - ratioMin},
	} {
		if math.Abs(tc.got-tc.want) > 1e-13 || tc.got < tc.want-1e-15 {
			t.Errorf("%s = %.17g, brute force %.17g", tc.name, tc.got, tc.want)
		}
	}
	// Random input pairs on the corners, their exact Rényi divergence
	// before and after the kernel, and the Dobrushin Rényi bound.
	rng := rand.New(rand.NewPCG(1, 1))
	renyi := func(alpha float64, p, q []float64) float64 {
		var s float64
		for i := range p {
			s += math.Pow(p[i], alpha) * math.Pow(q[i], 1-alpha)
		}
		return math.Log(s) / (alpha - 1)
	}
	push := func(x []float64) []float64 {
		var out []float64
		for m1 := 0; m1 <= k; m1++ {
			for m2 := 0; m2 <= k; m2++ {
				var s float64
				for i, z := range corners {
					s += x[i] * kern(z, m1, m2)
				}
				out = append(out, s)
			}
		}
		return out
	}
	random := func() []float64 {
		x := make([]float64, 4)
		var s float64
		for i := range x {
			x[i] = math.Pow(rng.Float64(), 4) + 1e-9
			s += x[i]
		}
		for i := range x {
			x[i] /= s
		}
		return x
	}
	for range 2000 {
		p, q := random(), random()
		alpha := 1 + 20*rng.Float64()
		eps := renyi(alpha, p, q)
		after := renyi(alpha, push(p), push(q))
		if bound := Renyi(b.Dobrushin, alpha, eps); after > bound*(1+1e-9)+1e-12 {
			t.Fatalf("alpha %v: R(PK||QK) = %v above the Dobrushin bound %v (R(P||Q) = %v)", alpha, after, bound, eps)
		}
	}
}

// TestAgainstPost checks every Rényi bound against bernamp's proved lower
// bound on the exact amplified level: a valid upper bound is never below a
// verified witness.
func TestAgainstPost(t *testing.T) {
	t.Parallel()
	for _, p := range []bernamp.Params{
		{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1}, {D: 1, K: 4, C: 0.3, Alpha: 2, Eps: 0.5},
		{D: 3, K: 2, C: 0.2, Alpha: 20, Eps: 3}, {D: 10, K: 1, C: 0.45, Alpha: 1.5, Eps: 0.2},
		{D: 1, K: 16, C: 0.01, Alpha: 64, Eps: 8},
	} {
		r, err := bernamp.Bounds(p)
		if err != nil {
			t.Fatal(err)
		}
		b := newBounds(t, p.D, p.K, p.C)
		for _, it := range []Item{Dobrushin, Doeblin, UltraMixing} {
			if u := Renyi(b.Coefficient(it), p.Alpha, p.Eps); u < r.LB {
				t.Errorf("%+v: %v bound %v below the verified lower bound %v", p, it, u, r.LB)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for _, k := range []Kernel{{0, 1, 0.1}, {1, 0, 0.1}, {1, 1, 0}, {1, 1, 0.5}, {1, 1, math.NaN()}, {1 << 13, 1 << 12, 0.1}} {
		if _, err := New(k); err == nil {
			t.Errorf("New(%+v): no error", k)
		}
	}
	b := newBounds(t, 1, 1, 0.1)
	c, _ := rdp.Gaussian(1, nil)
	for _, delta := range []float64{0, 1, math.NaN()} {
		if _, err := b.Approx(Dobrushin, c, rdp.Balle2020, delta); err == nil {
			t.Errorf("Approx at delta %v: no error", delta)
		}
	}
	if _, err := b.Approx(Dobrushin, rdp.Curve{Orders: []float64{2, 3}, Eps: []float64{1, 0.5}}, rdp.Balle2020, 1e-5); err == nil {
		t.Error("Approx with a decreasing curve: no error")
	}
}
