package verify

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certfile"
)

// TestPhiEnclosure: phiAt encloses Phi at points computed with mpmath
// (ncdf at 40 digits), and tightly (the enclosure's width relative to
// the value below 1e-13 where Phi is a normal float64).
func TestPhiEnclosure(t *testing.T) {
	for _, tc := range []struct {
		x   float64
		ref string
	}{
		{-40, "3.65589354091502970374898580269e-350"},
		{-10, "7.6198530241605260659733432516e-24"},
		{-3.5, "0.000232629079035525036349925886728"},
		{-3, "0.00134989803163009452665181476759"},
		{-2.9, "0.00186581330038403795031028486504"},
		{-1, "0.158655253931457051414767454368"},
		{-0.1, "0.460172162722971018534595381761"},
		{0, "0.5"},
		{0.5, "0.691462461274013103637704610608"},
		{2.9, "0.998134186699615962049689715135"},
		{3, "0.998650101968369905473348185232"},
		{5, "0.999999713348428120806088326248"},
		{8, "0.999999999999999377903942572822"},
	} {
		r, _ := new(big.Float).SetPrec(200).SetString(tc.ref)
		e := phiAt(tc.x)
		if new(big.Float).SetFloat64(e.lo).Cmp(r) > 0 || new(big.Float).SetFloat64(e.hi).Cmp(r) < 0 {
			t.Errorf("Phi(%v) = %s is outside [%v, %v]", tc.x, tc.ref, e.lo, e.hi)
		}
		ref, _ := r.Float64()
		if ref > 1e-300 && (e.hi-e.lo)/ref > 1e-13 {
			t.Errorf("Phi(%v): enclosure [%v, %v] is %g wide, relative", tc.x, e.lo, e.hi, (e.hi-e.lo)/ref)
		}
	}
}

// TestConvPowerBound: the FFT convolution power of random nonnegative
// arrays (entries over 40 orders of magnitude, mass about 1) is within its
// stated 2-norm error bound of the exact power (big.Float at 3000 bits:
// exact for these products and sums), and the bound is small.
func TestConvPowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 24 {
		na := 1 + rng.IntN(120)
		steps := 1 + rng.IntN(9)
		a := randMasses(rng, na)
		c, bound, err := convPower(a, steps)
		if err != nil {
			t.Fatal(err)
		}
		q := bigConvPower([]*big.Float{new(big.Float).SetPrec(3000).SetInt64(1)}, a, steps)
		err2 := dist2(t, q, c)
		if err2 > bound {
			t.Errorf("trial %d (n %d, T %d): error %g above the bound %g", trial, na, steps, err2, bound)
		}
		if bound > 1e-12 {
			t.Errorf("trial %d: bound %g is loose", trial, bound)
		}
	}
}

// TestComposedDeltaReference: the checker's bound on the composed delta
// against an independent computation: the T-fold convolution in exact
// rationals, the profile summed at 200 bits (e^(x0 - l) from math.Exp,
// good to 1e-15). The bound must be above the reference and within 1e-9
// of it.
func TestComposedDeltaReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const h = 0.01
	for _, steps := range []int{1, 2, 3, 7, 16} {
		p := uniformMasses(rng, 30)
		lo := -12
		// exact convolution power
		q := ratConvPower([]*big.Rat{big.NewRat(1, 1)}, p, steps)
		for _, x0 := range []float64{0, 0.05 * float64(steps), 0.1 * float64(steps)} {
			r := refDelta(q, steps*lo, h, x0)
			got, err := composedDelta(context.Background(), p, lo, h, steps, x0)
			if err != nil {
				t.Fatal(err)
			}
			if got < r*(1-1e-14) || got > r*(1+1e-9)+1e-300 {
				t.Errorf("T %d, x0 %v: bound %.17g, reference %.17g", steps, x0, got, r)
			}
		}
	}
}

func readProfile(t *testing.T, name string) *certfile.File {
	t.Helper()
	f, err := certfile.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const (
	profileRow = "profile-gaussian-d1-k1-c0.1-steps100-delta1e-05.json" // math.md 3d's row: eps 19.61
	profileEps = "profile-gaussian-d1-k1-c0.1-steps10-eps3.json"
	profileN4  = "profile-gaussian-d2-k2-c0.2-steps20-delta1e-06.json"
	profileLap = "profile-laplace-d2-k1-c0.1-steps20-delta1e-06.json"
	profileRR  = "profile-rr-d1-k1-c0.1-steps20-delta1e-06.json"
	profileSub = "profile-subsampled-gaussian-d1-k1-c0.1-steps20-delta1e-06.json"
	// Plans (compose --plan --delta 1e-6 --discretization 1e-3): Gaussian
	// sigma 2, c 0.1, 10 steps and Laplace b 2, d 2, c 0.3, 5 steps;
	// randomized response 0.8, c 0.1, 6 steps and the subsampled Gaussian
	// sigma 1, q 0.1, c 0.1, 8 steps (both directions).
	profilePlan   = "profile-plan-2kinds-steps15-delta1e-06.json"
	profilePlanRR = "profile-plan-2kinds-steps14-delta1e-06.json"
)

// TestProfileHonest: the certificates compose wrote are accepted; the
// Gaussian sigma 2, c 0.1, T 100 row claims eps 19.61 at delta 1e-5 (the
// composed exact profile of docs/compose.md).
func TestProfileHonest(t *testing.T) {
	for _, name := range []string{profileRow, profileEps, profileN4, profileLap, profileRR, profileSub, profilePlan, profilePlanRR} {
		f := readProfile(t, name)
		rep, err := Check(context.Background(), f, nil)
		if err != nil || !rep.Accepted {
			t.Errorf("%s: %+v, %v", name, rep, err)
		}
	}
	claim, _ := strconv.ParseFloat(readProfile(t, profileRow).Claim, 64)
	if math.Abs(claim-19.61) > 0.005 {
		t.Errorf("claim %v, want 19.61", claim)
	}
}

// TestProfileMutations: each change to an honest file that makes its
// statement false or unproved is rejected for its reason.
func TestProfileMutations(t *testing.T) {
	massAt := func(f *certfile.File, i int) float64 {
		v, _ := strconv.ParseFloat(f.Profile.Remove.Probs[i], 64)
		return v
	}
	// largest mass at a positive loss
	top := func(f *certfile.File) int {
		best := -1
		for i := range f.Profile.Remove.Probs {
			if f.Profile.Remove.LowerLoss+i > 0 && (best < 0 || massAt(f, i) > massAt(f, best)) {
				best = i
			}
		}
		return best
	}
	for _, tc := range []profileMutation{
		{"claim lowered", profileN4, "above delta", func(f *certfile.File) { f.Claim = "21.9" }},
		{"delta lowered", profileN4, "above delta", func(f *certfile.File) { f.Delta = "9.9e-7" }},
		{"delta claim lowered", profileEps, "above the claim", func(f *certfile.File) {
			c, _ := strconv.ParseFloat(f.Claim, 64)
			f.Claim = certfile.Num(c * 0.999)
		}},
		{"steps raised", profileN4, "above delta", func(f *certfile.File) { f.Profile.Steps = 21 }},
		{"a mass lowered", profileRow, "not 1", func(f *certfile.File) {
			i := top(f)
			f.Profile.Remove.Probs[i] = certfile.Num(massAt(f, i) * 0.9)
		}},
		{"a mass moved down", profileRow, "does not dominate", func(f *certfile.File) {
			i := top(f)
			m := massAt(f, i) * 0.1
			f.Profile.Remove.Probs[i] = certfile.Num(massAt(f, i) - m)
			f.Profile.Remove.Probs[i-1] = certfile.Num(massAt(f, i-1) + m)
		}},
		{"infinity mass changed", profileRow, "not 1", func(f *certfile.File) { f.Profile.Remove.InfinityMass = "1e-4" }},
		{"sigma lowered", profileRow, "does not dominate", func(f *certfile.File) { f.Profile.Sigma = "1.9" }},
		{"sensitivity raised", profileN4, "does not dominate", func(f *certfile.File) { f.Profile.Sensitivity = "1.05" }},
		{"c lowered", profileRow, "does not dominate", func(f *certfile.File) { f.C = "0.09" }},
		{"n raised", profileRow, "does not dominate", func(f *certfile.File) { f.D, f.N = 2, 2 }},
		{"h lowered", profileRow, "does not dominate", func(f *certfile.File) { f.Profile.Discretization = certfile.Exact(1.9e-4) }},
		{"h raised", profileRow, "does not dominate", func(f *certfile.File) { f.Profile.Discretization = certfile.Exact(2.1e-4) }},
		{"lower_loss lowered", profileN4, "does not dominate", func(f *certfile.File) { f.Profile.Remove.LowerLoss -= 3 }},
		{"lower_loss raised", profileN4, "above delta", func(f *certfile.File) { f.Profile.Remove.LowerLoss += 10 }},
		{"n not d k", profileRow, "not d k", func(f *certfile.File) { f.N = 3 }},
		{"laplace b lowered", profileLap, "does not dominate", func(f *certfile.File) { f.Profile.B = "0.95" }},
		{"laplace claim lowered", profileLap, "above delta", func(f *certfile.File) {
			c, _ := strconv.ParseFloat(f.Claim, 64)
			f.Claim = certfile.Num(c - 0.01)
		}},
		{"rr p_true raised", profileRR, "does not dominate", func(f *certfile.File) { f.Profile.PTrue = "0.81" }},
		{"rr steps raised", profileRR, "above delta", func(f *certfile.File) { f.Profile.Steps = 21 }},
		{"subsampled q raised", profileSub, "does not dominate", func(f *certfile.File) { f.Profile.Q = "0.11" }},
		{"subsampled add direction dropped", profileSub, "both directions", func(f *certfile.File) { f.Profile.Add = nil }},
		{"subsampled directions swapped", profileSub, "does not dominate", func(f *certfile.File) {
			a := *f.Profile.Add
			f.Profile.Add, f.Profile.Remove = &f.Profile.Remove, a
		}},
		{"subsampled claim lowered", profileSub, "above delta", func(f *certfile.File) {
			c, _ := strconv.ParseFloat(f.Claim, 64)
			f.Claim = certfile.Num(c - 0.02)
		}},
		{"plan claim lowered", profilePlan, "above delta", func(f *certfile.File) {
			c, _ := strconv.ParseFloat(f.Claim, 64)
			f.Claim = certfile.Num(c - 0.01)
		}},
		{"plan first count raised", profilePlan, "above delta", func(f *certfile.File) { f.Profile.Steps++ }},
		{"plan second count raised", profilePlan, "above delta", func(f *certfile.File) { f.Profile.Plan[0].Steps++ }},
		{"plan second kind's mass lowered", profilePlan, "plan kind 2: the masses sum", func(f *certfile.File) {
			m := f.Profile.Plan[0].Remove.Probs
			best, bv := 0, 0.0
			for i, s := range m {
				if v, _ := strconv.ParseFloat(s, 64); v > bv {
					best, bv = i, v
				}
			}
			m[best] = certfile.Num(bv * 0.9)
		}},
		{"plan second kind's mass moved down", profilePlan, "plan kind 2: the PLD does not dominate", func(f *certfile.File) {
			m := &f.Profile.Plan[0].Remove
			best, bv := 0, 0.0
			for i, s := range m.Probs {
				if v, _ := strconv.ParseFloat(s, 64); v > bv && m.LowerLoss+i > 0 {
					best, bv = i, v
				}
			}
			prev, _ := strconv.ParseFloat(m.Probs[best-1], 64)
			m.Probs[best], m.Probs[best-1] = certfile.Num(bv*0.9), certfile.Num(prev+bv*0.1)
		}},
		{"plan kinds' PLDs swapped", profilePlan, "does not dominate", func(f *certfile.File) {
			f.Profile.Remove, f.Profile.Plan[0].Remove = f.Profile.Plan[0].Remove, f.Profile.Remove
		}},
		{"plan kinds' mechanisms swapped", profilePlan, "does not dominate", func(f *certfile.File) {
			k := &f.Profile.Plan[0]
			f.Profile.Mechanism, k.Mechanism = k.Mechanism, f.Profile.Mechanism
			f.Profile.Sigma, f.Profile.B, k.Sigma, k.B = k.Sigma, k.B, f.Profile.Sigma, f.Profile.B
		}},
		{"plan second kind's b lowered", profilePlan, "plan kind 2: the PLD does not dominate", func(f *certfile.File) { f.Profile.Plan[0].B = "1.9" }},
		{"plan second kind's c lowered", profilePlan, "plan kind 2: the PLD does not dominate", func(f *certfile.File) { f.Profile.Plan[0].C = "0.29" }},
		{"plan second kind's d raised", profilePlan, "plan kind 2: the PLD does not dominate", func(f *certfile.File) { f.Profile.Plan[0].D = 3 }},
		{"plan second kind duplicated", profilePlan, "above delta", func(f *certfile.File) { f.Profile.Plan = append(f.Profile.Plan, f.Profile.Plan[0]) }},
		{"plan subsampled add direction dropped", profilePlanRR, "both directions", func(f *certfile.File) { f.Profile.Plan[0].Add = nil }},
		{"plan subsampled directions swapped", profilePlanRR, "plan kind 2: the PLD does not dominate", func(f *certfile.File) {
			k := &f.Profile.Plan[0]
			a := *k.Add
			k.Add, k.Remove = &k.Remove, a
		}},
		{"plan subsampled q raised", profilePlanRR, "plan kind 2: the PLD does not dominate", func(f *certfile.File) { f.Profile.Plan[0].Q = "0.11" }},
		{"plan rr count raised", profilePlanRR, "above delta", func(f *certfile.File) { f.Profile.Steps++ }},
	} {
		tc.reject(t)
	}
}

// TestProfileNotCovered: a mechanism the checker has no bound for, an n
// or a composition past its caps, are not checked (ErrUnsupported), never accepted; a
// hostile shape is malformed.
func TestProfileNotCovered(t *testing.T) {
	f := readProfile(t, profileRow)
	f.Profile.Mechanism = "cauchy"
	if rep, err := Check(context.Background(), f, nil); !errors.Is(err, ErrUnsupported) || rep.Accepted {
		t.Errorf("cauchy: %+v, %v", rep, err)
	}
	f = readProfile(t, profileRow)
	f.D, f.N = profileMaxN+1, profileMaxN+1
	if rep, err := Check(context.Background(), f, nil); !errors.Is(err, ErrUnsupported) || rep.Accepted {
		t.Errorf("n past the cap: %+v, %v", rep, err)
	}
	// Below the cap a changed n is checked, and rejected.
	f = readProfile(t, profileRow)
	f.D, f.N = 5000, 5000
	if rep, err := Check(context.Background(), f, nil); err != nil || rep.Accepted || !strings.Contains(rep.Failure, "does not dominate") {
		t.Errorf("n 5000: %+v, %v; want a rejection", rep, err)
	}
	f = readProfile(t, profileRow)
	f.Profile.Steps = 1 << 20 // a composition past the transform cap
	if rep, err := Check(context.Background(), f, nil); !errors.Is(err, ErrUnsupported) || rep.Accepted {
		t.Errorf("steps 2^20: %+v, %v", rep, err)
	}
	f = readProfile(t, profileRow)
	f.Profile.Steps = certfile.MaxProfileSteps + 1
	if _, err := Check(context.Background(), f, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("steps over the cap: %v", err)
	}
	// A plan's further kinds: the same caps, the same reasons.
	for _, tc := range []struct {
		name string
		mut  func(k *certfile.ProfileKind)
		want error
	}{
		{"plan kind cauchy", func(k *certfile.ProfileKind) { k.Mechanism = "cauchy" }, ErrUnsupported},
		{"plan kind n past the cap (certfile caps a plan kind's n at the checker's)", func(k *certfile.ProfileKind) { k.D = profileMaxN + 1 }, ErrMalformed},
		{"plan kind d 0", func(k *certfile.ProfileKind) { k.D = 0 }, ErrMalformed},
		{"plan kind steps 0", func(k *certfile.ProfileKind) { k.Steps = 0 }, ErrMalformed},
		{"plan kind c not a number", func(k *certfile.ProfileKind) { k.C = "x" }, ErrMalformed},
		{"plan kind no masses", func(k *certfile.ProfileKind) { k.Remove.Probs = nil }, ErrMalformed},
		{"plan kind past the transform cap", func(k *certfile.ProfileKind) { k.Steps = 1 << 19 }, ErrUnsupported},
	} {
		f = readProfile(t, profilePlan)
		tc.mut(&f.Profile.Plan[0])
		if rep, err := Check(context.Background(), f, nil); !errors.Is(err, tc.want) || rep.Accepted {
			t.Errorf("%s: %+v, %v; want %v", tc.name, rep, err, tc.want)
		}
	}
	f = readProfile(t, profilePlan)
	for range certfile.MaxPlanKinds {
		f.Profile.Plan = append(f.Profile.Plan, f.Profile.Plan[0])
	}
	if _, err := Check(context.Background(), f, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("%d kinds: %v", len(f.Profile.Plan)+1, err)
	}
	f = readProfile(t, profileRow)
	f.Profile.Remove.Probs[3] = "-1e-3"
	if _, err := Check(context.Background(), f, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("negative mass: %v", err)
	}
}

// FuzzProfileCheck mutates an honest profile certificate (randomized
// response, T 20; or, with plan, the plan of randomized response and the
// subsampled Gaussian, profilePlanRR): one mass scaled (the plan's second
// kind's), the steps (the second kind's), the claim, p_true and the loss
// offset. Check must not panic, fail only with ErrMalformed,
// ErrUnsupported or the context's error, and accept only with its checked
// delta at most the question's.
func FuzzProfileCheck(f *testing.F) {
	f.Add(10, 1.0, 20, 0.0, 0.8, 0, false)
	f.Add(500, 0.5, 21, -0.1, 0.81, 3, false)
	f.Add(-1, 2.0, 0, 1e9, -0.3, -1<<40, false)
	f.Add(10, 1.0, 8, 0.0, 0.8, 0, true)
	f.Add(40, 0.5, 9, -0.05, 0.79, 2, true)
	f.Fuzz(func(t *testing.T, i int, scale float64, steps int, dclaim, pTrue float64, dlo int, plan bool) {
		name := profileRR
		if plan {
			name = profilePlanRR
		}
		cf := readProfile(t, name)
		m, st := &cf.Profile.Remove, &cf.Profile.Steps
		if plan {
			m, st = &cf.Profile.Plan[0].Remove, &cf.Profile.Plan[0].Steps
		}
		if i >= 0 && i < len(m.Probs) && !math.IsNaN(scale) && !math.IsInf(scale, 0) {
			v, _ := strconv.ParseFloat(m.Probs[i], 64)
			m.Probs[i] = certfile.Num(v * scale)
		}
		*st = steps
		if c, err := strconv.ParseFloat(cf.Claim, 64); err == nil && !math.IsNaN(dclaim) && !math.IsInf(dclaim, 0) {
			cf.Claim = certfile.Num(c + dclaim)
		}
		if !math.IsNaN(pTrue) && !math.IsInf(pTrue, 0) {
			cf.Profile.PTrue = certfile.Num(pTrue)
		}
		m.LowerLoss += dlo
		checkFuzzed(t, cf)
	})
}

// TestConvProductBound: the FFT product of two or three kinds' powers of
// random nonnegative arrays (entries over 40 orders of magnitude, mass
// about 1) is within its stated 2-norm error bound of the exact
// convolution (big.Float at 3000 bits: exact here), and the bound is
// small.
func TestConvProductBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 16 {
		kinds := 2 + rng.IntN(2)
		as := make([][]float64, kinds)
		steps := make([]int, kinds)
		q := []*big.Float{new(big.Float).SetPrec(3000).SetInt64(1)}
		for c := range as {
			na := 1 + rng.IntN(60)
			steps[c] = 1 + rng.IntN(5)
			a := randMasses(rng, na)
			as[c] = a
			q = bigConvPower(q, a, steps[c])
		}
		c, bound, err := convProduct(as, steps)
		if err != nil {
			t.Fatal(err)
		}
		err2 := dist2(t, q, c)
		if err2 > bound {
			t.Errorf("trial %d (T %v): error %g above the bound %g", trial, steps, err2, bound)
		}
		if bound > 1e-12 {
			t.Errorf("trial %d: bound %g is loose", trial, bound)
		}
	}
}

// TestComposedDeltaPartsReference: the checker's bound on the composed
// delta of two kinds (different offsets and counts) against the
// convolution of their powers in exact rationals, the profile summed at
// 200 bits; above the reference and within 1e-9 of it.
func TestComposedDeltaPartsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const h = 0.01
	for _, steps := range [][2]int{{1, 1}, {2, 3}, {5, 1}, {4, 7}} {
		var parts []part
		q := []*big.Rat{big.NewRat(1, 1)}
		lo := 0
		for c, n := range []int{30, 17} {
			p := uniformMasses(rng, n)
			pa := part{p: p, lo: -12 + 9*c, steps: steps[c]}
			parts = append(parts, pa)
			lo += pa.lo * pa.steps
			q = ratConvPower(q, p, pa.steps)
		}
		total := steps[0] + steps[1]
		for _, x0 := range []float64{0, 0.05 * float64(total), 0.1 * float64(total)} {
			r := refDelta(q, lo, h, x0)
			got, err := composedDeltaParts(context.Background(), parts, h, x0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got < r*(1-1e-14) || got > r*(1+1e-9)+1e-300 {
				t.Errorf("T %v, x0 %v: bound %.17g, reference %.17g", steps, x0, got, r)
			}
		}
	}
}

// bigConvPower returns q convolved with the steps-fold convolution power
// of a, at 3000 bits (exact for the tests' sizes).
func bigConvPower(q []*big.Float, a []float64, steps int) []*big.Float {
	for range steps {
		o := make([]*big.Float, len(q)+len(a)-1)
		for i := range o {
			o[i] = new(big.Float).SetPrec(3000)
		}
		for i, x := range q {
			for j, y := range a {
				o[i+j].Add(o[i+j], new(big.Float).SetPrec(3000).Mul(x, big.NewFloat(y)))
			}
		}
		q = o
	}
	return q
}

// dist2 returns the 2-norm of q - c (same lengths, else the test fails).
func dist2(t *testing.T, q []*big.Float, c []float64) float64 {
	t.Helper()
	if len(q) != len(c) {
		t.Fatalf("length %d, want %d", len(c), len(q))
	}
	sq := new(big.Float).SetPrec(300)
	for k := range c {
		d := new(big.Float).SetPrec(300).Sub(q[k], big.NewFloat(c[k]))
		sq.Add(sq, d.Mul(d, d))
	}
	e, _ := sq.Sqrt(sq).Float64()
	return e
}

// ratConvPower returns q convolved with the steps-fold convolution power
// of p, in exact rationals.
func ratConvPower(q []*big.Rat, p []float64, steps int) []*big.Rat {
	for range steps {
		o := make([]*big.Rat, len(q)+len(p)-1)
		for i := range o {
			o[i] = new(big.Rat)
		}
		for i, a := range q {
			for j, b := range p {
				o[i+j].Add(o[i+j], new(big.Rat).Mul(a, new(big.Rat).SetFloat64(b)))
			}
		}
		q = o
	}
	return q
}

// refDelta returns sum_i q_i [1 - e^(x0 - l_i)]_+, l_i = (lo + i) h,
// summed at 200 bits (e^(x0 - l) from math.Expm1, good to 1e-15).
func refDelta(q []*big.Rat, lo int, h, x0 float64) float64 {
	ref := new(big.Float).SetPrec(200)
	for i, v := range q {
		l := float64(lo+i) * h
		if l <= x0 {
			continue
		}
		w := -math.Expm1(x0 - l)
		ref.Add(ref, new(big.Float).SetPrec(200).Mul(new(big.Float).SetPrec(200).SetRat(v), big.NewFloat(w)))
	}
	r, _ := ref.Float64()
	return r
}

// randMasses returns n random masses over 40 orders of magnitude, summing
// to about 1.
func randMasses(rng *rand.Rand, n int) []float64 {
	a := make([]float64, n)
	s := 0.0
	for i := range a {
		a[i] = rng.Float64() * math.Pow(10, -40*rng.Float64())
		s += a[i]
	}
	for i := range a {
		a[i] /= s
	}
	return a
}

// uniformMasses returns n masses drawn uniformly, normalized to sum about 1.
func uniformMasses(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	total := 0.0
	for i := range p {
		p[i] = rng.Float64()
		total += p[i]
	}
	for i := range p {
		p[i] /= total
	}
	return p
}

// profileMutation is a change to an honest profile file (file) that the
// checker must reject with a failure containing want.
type profileMutation struct {
	name, file, want string
	mut              func(f *certfile.File)
}

func (tc profileMutation) reject(t *testing.T) {
	t.Helper()
	f := readProfile(t, tc.file)
	tc.mut(f)
	rep, err := Check(context.Background(), f, nil)
	if err != nil || rep.Accepted || !strings.Contains(rep.Failure, tc.want) {
		t.Errorf("%s: %+v, %v; want a rejection with %q", tc.name, rep, err, tc.want)
	}
}

// checkFuzzed checks a fuzzed profile file cf: an error must be a
// malformed or unsupported file (or the 2 s limit), and an accepted file's
// bound at most its delta.
func checkFuzzed(t *testing.T, cf *certfile.File) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rep, err := Check(ctx, cf, nil)
	switch {
	case err != nil:
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) && ctx.Err() == nil {
			t.Fatalf("error %v", err)
		}
	case rep.Accepted:
		d, _ := strconv.ParseFloat(cf.Delta, 64)
		if rep.Bound > d {
			t.Fatalf("accepted with delta %v above %v", rep.Bound, d)
		}
	}
}
