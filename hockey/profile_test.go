package hockey_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/bernamp/bernamp/hockey"
	"github.com/bernamp/bernamp/internal/testref"
	"github.com/bernamp/bernamp/mixing"
)

func profile(t *testing.T, p hockey.Params, eps []float64) *hockey.ProfileResult {
	t.Helper()
	r, err := hockey.Profile(context.Background(), p, eps)
	if err != nil {
		t.Fatalf("%+v: %v", p, err)
	}
	for i := range eps {
		if !(0 <= r.Lower[i] && r.Lower[i] <= r.Upper[i] && r.Upper[i] <= 1) {
			t.Fatalf("%+v eps'=%v: enclosure broken: [%v, %v]", p, eps[i], r.Lower[i], r.Upper[i])
		}
	}
	return r
}

func grid(lo, hi, h float64) []float64 {
	var g []float64
	for i := math.Round(lo / h); i*h <= hi+1e-12; i++ {
		g = append(g, i*h)
	}
	return g
}

// TestProfileReference compares with the 60-digit mpmath values of
// testdata/hockey/profile_ref.csv (vertex enumeration of the d = 1
// polygon at eps' from -3 to 3, negative eps' included). k = 2, 3 use the
// lift (the k = 1 program at d = k): its Upper must still lie above the
// exact d = 1 value, and the corner program's Lower below it.
func TestProfileReference(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/hockey/profile_ref.csv", 7, 108)
	for _, row := range rows {
		p := hockey.Params{D: int(row[0]), K: int(row[1]), C: row[2], Eps: row[3], Delta: row[4]}
		r := profile(t, p, []float64{row[5]})
		want := row[6]
		if !(r.Lower[0] <= want && want <= r.Upper[0]) {
			t.Errorf("%+v eps'=%v: reference %v outside [%v, %v] (%s)", p, row[5], want, r.Lower[0], r.Upper[0], r.Method)
		}
		if r.Upper[0]-r.Lower[0] > 1e-12 {
			t.Errorf("%+v eps'=%v: enclosure [%v, %v] wider than 1e-12", p, row[5], r.Lower[0], r.Upper[0])
		}
	}
}

// TestProfileMatchesDelta: at eps' >= 0 the corner program's bounds are
// Delta's bit for bit (k = 1 and k >= 2 without the lift); with the lift
// (a proved upper bound on the box program, which contains the corner
// program) Upper is at least Delta's Lower.
func TestProfileMatchesDelta(t *testing.T) {
	t.Parallel()
	eps := []float64{0, 0.05, 0.3, 0.77, 1, 1.5, 2.4}
	for _, p := range []hockey.Params{
		{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.05},
		{D: 2, K: 1, C: 0.3, Eps: 0.5, Delta: 1e-4},
		{D: 1, K: 4, C: 0.1, Eps: 2, Delta: 1e-3},
		{D: 2, K: 2, C: 0.2, Eps: 1, Delta: 0},
		{D: 1, K: 20, C: 0.1, Eps: 1, Delta: 0.01}, // no lift: d k = 20
	} {
		r := profile(t, p, eps)
		lifted := r.Method == hockey.MethodLifted
		if want := p.K > 1 && p.D*p.K <= 8; lifted != want {
			t.Errorf("%+v: method %s", p, r.Method)
		}
		for i, e := range eps {
			q := p
			q.EpsOut = e
			d := delta(t, q)
			if r.Lower[i] != d.Lower {
				t.Errorf("%+v eps'=%v: profile lower %v, Delta %v", p, e, r.Lower[i], d.Lower)
			}
			if !lifted && r.Upper[i] != d.Upper {
				t.Errorf("%+v eps'=%v: profile upper %v, Delta %v", p, e, r.Upper[i], d.Upper)
			}
			if lifted && r.Upper[i] < d.Lower {
				t.Errorf("%+v eps'=%v: lifted upper %v below the corner program's lower %v", p, e, r.Upper[i], d.Lower)
			}
		}
	}
}

// TestProfileNegative checks the direct values at eps' < 0 against the
// identity delta'(-t) = 1 - e^-t + e^-t delta'(t) (H_g(u||v) = 1 - g + g
// H_{1/g}(v||u), and the pair set is closed under swapping), and the
// profile's shape: non-increasing (Lower[j] <= Upper[i] for i < j) and
// convex in e^eps' (Lower at a point below the chord of Upper at its
// neighbours), both properties of every exact profile.
func TestProfileNegative(t *testing.T) {
	t.Parallel()
	g := grid(-3, 3, 0.125)
	for _, p := range []hockey.Params{
		{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.05},
		{D: 1, K: 3, C: 0.05, Eps: 3, Delta: 1e-5},
		{D: 2, K: 1, C: 0.2, Eps: 0.5, Delta: 0.2},
		{D: 3, K: 2, C: 0.3, Eps: 2, Delta: 0},
	} {
		r := profile(t, p, g)
		zero := len(g) / 2
		if g[zero] != 0 {
			t.Fatalf("grid %v", g)
		}
		for i := 1; i <= zero; i++ {
			neg, pos := zero-i, zero+i
			x := math.Exp(g[neg])
			lo := -math.Expm1(g[neg]) + x*r.Lower[pos]
			hi := -math.Expm1(g[neg]) + x*r.Upper[pos]
			if r.Upper[neg] < lo-1e-13 || r.Lower[neg] > hi+1e-13 {
				t.Errorf("%+v eps'=%v: [%v, %v], identity gives [%v, %v]", p, g[neg], r.Lower[neg], r.Upper[neg], lo, hi)
			}
		}
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				if r.Lower[j] > r.Upper[i] {
					t.Errorf("%+v: increases from eps'=%v (upper %v) to %v (lower %v)", p, g[i], r.Upper[i], g[j], r.Lower[j])
				}
			}
			if i == 0 || i == len(g)-1 {
				continue
			}
			xa, xb, xc := math.Exp(g[i-1]), math.Exp(g[i]), math.Exp(g[i+1])
			s := (xb - xa) / (xc - xa)
			if chord := r.Upper[i-1] + (r.Upper[i+1]-r.Upper[i-1])*s; r.Lower[i] > chord+1e-13 {
				t.Errorf("%+v eps'=%v: lower %v above the chord %v (not convex in e^eps')", p, g[i], r.Lower[i], chord)
			}
		}
		// At eps' >= log rho, rho = ((1-c)/c)^(d k), the largest likelihood
		// ratio of the release: delta' = 0 exactly; at eps' <= -log rho,
		// 1 - e^eps'.
		L := float64(p.D*p.K) * math.Log((1-p.C)/p.C)
		e := profile(t, p, []float64{L * (1 + 1e-9), -L * (1 + 1e-9)})
		if e.Upper[0] != 0 {
			t.Errorf("%+v: upper %v at eps' = log rho", p, e.Upper[0])
		}
		if want := -math.Expm1(-L * (1 + 1e-9)); math.Abs(e.Upper[1]-want) > 1e-12 || math.Abs(e.Lower[1]-want) > 1e-12 {
			t.Errorf("%+v: [%v, %v] at eps' = -log rho, want 1 - e^eps' = %v", p, e.Lower[1], e.Upper[1], want)
		}
	}
}

// ctdDelta is the hockey-stick divergence of a privacy loss distribution
// (atoms probs on losses, inf on +infinity) at eps: inf + sum over losses
// above eps of p (1 - e^(eps - loss)), written independently of package
// hockey.
func ctdDelta(losses, probs []float64, inf, eps float64) float64 {
	s := inf
	for i, l := range losses {
		if l > eps {
			s += probs[i] * -math.Expm1(eps-l)
		}
	}
	return s
}

// TestEnvelopeConnectDots checks the valid profile and its
// connect-the-dots distribution: the envelope lies between the verified
// lower bounds and the upper bounds, is non-increasing and convex in
// e^eps'; the distribution has non-negative masses summing to 1 with the
// infinity mass, reproduces the envelope at the grid points, and
// dominates the verified lower bounds of the profile between them (where
// the chord stands in for the unknown profile).
func TestEnvelopeConnectDots(t *testing.T) {
	t.Parallel()
	const h = 1.0 / 16
	for _, p := range []hockey.Params{
		{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.05},
		{D: 1, K: 8, C: 0.1, Eps: 2, Delta: 1e-6},
		{D: 2, K: 1, C: 0.25, Eps: 0.5, Delta: 0},
	} {
		L := float64(p.D*p.K) * math.Log((1-p.C)/p.C)
		g := grid(-L-h, L+h, h)
		r := profile(t, p, g)
		env := hockey.Envelope(g, r.Upper)
		for i := range g {
			if !(r.Lower[i] <= env[i] && env[i] <= r.Upper[i]) {
				t.Errorf("%+v eps'=%v: envelope %v outside [%v, %v]", p, g[i], env[i], r.Lower[i], r.Upper[i])
			}
			if i > 0 && env[i] > env[i-1] {
				t.Errorf("%+v eps'=%v: envelope increases", p, g[i])
			}
			if i > 0 && i < len(g)-1 {
				xa, xb, xc := math.Exp(g[i-1]), math.Exp(g[i]), math.Exp(g[i+1])
				if chord := env[i-1] + (env[i+1]-env[i-1])*(xb-xa)/(xc-xa); env[i] > chord+1e-14 {
					t.Errorf("%+v eps'=%v: envelope %v above the chord %v", p, g[i], env[i], chord)
				}
			}
		}
		probs, inf := hockey.ConnectDots(g, env)
		sum := inf
		for _, q := range probs {
			sum += q
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%+v: masses sum to %v", p, sum)
		}
		if inf != env[len(env)-1] || inf != 0 {
			t.Errorf("%+v: infinity mass %v, envelope ends at %v (beyond log rho: want 0)", p, inf, env[len(env)-1])
		}
		for i := range g {
			if got := ctdDelta(g, probs, inf, g[i]); math.Abs(got-env[i]) > 1e-12 {
				t.Errorf("%+v eps'=%v: connect-the-dots profile %v, envelope %v", p, g[i], got, env[i])
			}
		}
		mid := make([]float64, len(g)-1)
		for i := range mid {
			mid[i] = g[i] + h/2
		}
		rm := profile(t, p, mid)
		for i, e := range mid {
			if got := ctdDelta(g, probs, inf, e); got < rm.Lower[i]-1e-14 {
				t.Errorf("%+v eps'=%v: connect-the-dots profile %v below the verified lower bound %v", p, e, got, rm.Lower[i])
			}
		}
	}
}

// TestEnvelopeProperties: on a made-up non-convex, non-monotone input the
// envelope never exceeds the input and is non-increasing and convex, and it
// keeps a convex non-increasing input (a chord through grid points)
// unchanged but for rounding.
func TestEnvelopeProperties(t *testing.T) {
	t.Parallel()
	eps := []float64{-1, -0.5, 0, 0.5, 1, 1.5, 2}
	up := []float64{0.8, 0.7, 0.75, 0.2, 0.25, 0.01, 0.02}
	env := hockey.Envelope(eps, up)
	for i := range eps {
		if env[i] > up[i] || (i > 0 && env[i] > env[i-1]) {
			t.Errorf("eps=%v: envelope %v (input %v)", eps[i], env[i], up[i])
		}
		xa, ya := 0.0, 1.0 // the anchor (x, delta) = (0, 1)
		if i > 0 {
			xa, ya = math.Exp(eps[i-1]), env[i-1]
		}
		if i < len(eps)-1 {
			xb, xc := math.Exp(eps[i]), math.Exp(eps[i+1])
			// 1e-14: the chords are rounded up by about 20 ulps (Envelope).
			if chord := ya + (env[i+1]-ya)*(xb-xa)/(xc-xa); env[i] > chord+1e-14 {
				t.Errorf("eps=%v: envelope %v above the chord %v", eps[i], env[i], chord)
			}
		}
	}
	// Randomized response with e^1, P = (e, 1)/(1+e), Q = (1, e)/(1+e):
	// H_x(P||Q) = [e - x]_+/(1+e) + [1 - x e]_+/(1+e), convex and
	// non-increasing in x, so kept.
	ex := make([]float64, len(eps))
	for i, e := range eps {
		x := math.Exp(e)
		ex[i] = (math.Max(0, math.E-x) + math.Max(0, 1-x*math.E)) / (1 + math.E)
	}
	env = hockey.Envelope(eps, ex)
	for i := range eps {
		if math.Abs(env[i]-ex[i]) > 1e-15 {
			t.Errorf("eps=%v: envelope %v of a convex profile %v", eps[i], env[i], ex[i])
		}
	}
}

func TestProfileValidate(t *testing.T) {
	t.Parallel()
	ok := hockey.Params{D: 1, K: 1, C: 0.1, Eps: 1, Delta: 0.1}
	for _, eps := range [][]float64{{math.NaN()}, {math.Inf(1)}, {-701}} {
		if _, err := hockey.Profile(context.Background(), ok, eps); err == nil {
			t.Errorf("eps' %v: no error", eps)
		}
	}
	bad := ok
	bad.C = 0.5
	if _, err := hockey.Profile(context.Background(), bad, []float64{0}); err == nil {
		t.Error("c = 0.5: no error")
	}
	big := ok
	big.D, big.K = 6, 4
	if _, err := hockey.Profile(context.Background(), big, make([]float64, 1<<12)); !errors.Is(err, hockey.ErrTooLarge) {
		t.Errorf("d=6 k=4 at 4096 eps': error %v, want ErrTooLarge", err)
	}
}

func TestProfileWorkLift(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k   int
		lifted bool
	}{{1, 1, false}, {1, 2, true}, {2, 4, true}, {1, 13, true}, {1, 14, false}, {7, 2, false}, {1, 100000, false}} {
		if _, l := hockey.ProfileWork(tc.d, tc.k, 1); l != tc.lifted {
			t.Errorf("d=%d k=%d: lifted %v", tc.d, tc.k, l)
		}
	}
}

// Delta at k >= 2 takes its upper side from the lift (the k = 1 program at
// d k), a proved bound over the whole box; where the corner program's
// witness reaches it, delta' at (d, k) is settled, with no conjecture.
func TestDeltaLifted(t *testing.T) {
	for _, p := range []hockey.Params{
		{D: 1, K: 2, C: 0.1, Eps: 1, Delta: 0.05, EpsOut: 0.3},
		{D: 1, K: 4, C: 0.2, Eps: 2, Delta: 1e-3, EpsOut: 1},
		{D: 2, K: 2, C: 0.3, Eps: 0.5, Delta: 0.01, EpsOut: 0.1},
		{D: 2, K: 3, C: 0.05, Eps: 3, Delta: 1e-5, EpsOut: 2},
	} {
		r, err := hockey.Delta(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Method != hockey.MethodLifted {
			t.Fatalf("%+v: method %s", p, r.Method)
		}
		if !(r.Lower <= r.Upper) || r.Upper-r.Lower > 1e-12 {
			t.Errorf("%+v: corner witness %v, lifted bound %v", p, r.Lower, r.Upper)
		}
	}
}

// PiecesUpper, the two-point-pieces bound at n = d k, is a proved upper
// bound: never below the corner program's witness (a real mechanism), and
// where the lift's exact k = 1 program fits, never below it either; at
// every point here but the last it is within 1e-11 of the witness, so
// delta' is settled beyond the lift's reach too (d k = 20, 40, 60). The
// last (g = e^4, |log K| up to 138) only checks the side: there the
// rounding pads of the package doc alone are about 1e-11 (3.2e-11 apart).
func TestPiecesUpper(t *testing.T) {
	for i, p := range []hockey.Params{
		{D: 1, K: 2, C: 0.1, Eps: 1, Delta: 0.05, EpsOut: 0.3},
		{D: 2, K: 3, C: 0.05, Eps: 3, Delta: 1e-5, EpsOut: 2},
		{D: 1, K: 4, C: 0.1, Eps: 1, Delta: 1e-5, EpsOut: 0},
		{D: 1, K: 20, C: 0.1, Eps: 1, Delta: 0.01, EpsOut: 0.5},
		{D: 2, K: 10, C: 0.3, Eps: 0.5, Delta: 1e-5, EpsOut: 0.1},
		{D: 1, K: 40, C: 0.2, Eps: 2, Delta: 1e-3, EpsOut: 1.5},
		{D: 3, K: 20, C: 0.4, Eps: 0.1, Delta: 0.1, EpsOut: 0},
		{D: 1, K: 30, C: 0.01, Eps: 5, Delta: 1e-8, EpsOut: 4},
	} {
		r, err := hockey.Delta(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		up, err := hockey.PiecesUpper(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		lifted := r.Method == hockey.MethodLifted
		if !lifted && (r.Method != hockey.MethodPieces || r.Upper != up) {
			t.Errorf("%+v: method %s upper %v, want the pieces bound %v", p, r.Method, r.Upper, up)
		}
		if up < r.Lower || (lifted && up < r.Upper-1e-13) {
			t.Errorf("%+v: pieces bound %v below the witness %v (lifted upper %v)", p, up, r.Lower, r.Upper)
		}
		if i < 7 && up-r.Lower > 1e-11 {
			t.Errorf("%+v: pieces bound %v is %v above the witness", p, up, up-r.Lower)
		}
	}
}

// At (d, k, c, eps, delta) = (1, 20, 0.1, 1, 0.01) the pieces bound at
// n = 20 stays 6e-7 above the corner witness for eps' >= eps. The corner
// program is optimal there: item 2 of Balle et al.'s Theorem 1
// (mixing.DobrushinHS), proved over the whole box by its own argument
// (the antipodal corners dominate every pair of inputs), caps
// delta'(eps') for eps' >= eps at gamma delta, and at eps' = eps that cap
// is within 1e-13 of the witness. So the 6e-7 is slack of the upper side
// (the lift to n = 20, whose pairs may use four corners of {c, 1-c}^20
// rather than two, or the pieces relaxation of it), not a better
// mechanism missed by the corner program.
func TestPiecesLooseWhereLiftIs(t *testing.T) {
	p := hockey.Params{D: 1, K: 20, C: 0.1, Eps: 1, Delta: 0.01, EpsOut: 1}
	r, err := hockey.Delta(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mixing.New(mixing.Kernel{D: p.D, K: p.K, C: p.C})
	if err != nil {
		t.Fatal(err)
	}
	_, cap := b.Theorem1(mixing.DobrushinHS, p.Eps, p.Delta)
	if cap < r.Lower || cap-r.Lower > 1e-13 {
		t.Errorf("comparator %v, corner witness %v: want the comparator within 1e-13 above", cap, r.Lower)
	}
	if r.Upper < cap-1e-13 {
		t.Errorf("pieces bound %v below delta' = %v (settled by the comparator)", r.Upper, cap)
	}
	t.Logf("witness %v, comparator %v, pieces bound %v (%.2g above)", r.Lower, cap, r.Upper, r.Upper-cap)
}
