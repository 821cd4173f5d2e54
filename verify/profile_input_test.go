package verify

import (
	"context"
	"errors"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// Profile certificates of mechanisms known by a file (compose --delta 1e-6
// --discretization 1e-3, inputs in testdata/compose, gen_inputs.py): the
// Gaussian's RDP curve at sigma 2 (rdp_gaussian.csv) with each conversion,
// c 0.1, T 10; the subsampled Gaussian's profile points (q 0.1, sigma 1)
// with the reverse direction (points_subsampled.csv, c 0.1, T 10) and
// without (points_remove.csv, d 2, c 0.1, T 10); a PLD (pld_gaussian.json:
// compose --emit-pld of Gaussian sigma 4, c 0.2, T 2) at c 0.1, T 5; and
// the plan plan_profile.json (Gaussian sigma 2, c 0.1, 10 steps; the points
// with reverse, c 0.1, 8 steps; the PLD, d 2, c 0.2, 3 steps).
const (
	profileRDPBalle   = "profile-rdp-balle2020-d1-k1-c0.1-steps10-delta1e-06.json"
	profileRDPMironov = "profile-rdp-mironov2017-d1-k1-c0.1-steps10-delta1e-06.json"
	profileRDPDPA     = "profile-rdp-dp_accounting-d1-k1-c0.1-steps10-delta1e-06.json"
	profilePoints     = "profile-points-d1-k1-c0.1-steps10-delta1e-06.json"
	profilePointsSym  = "profile-points-d2-k1-c0.1-steps10-delta1e-06.json"
	profilePLDIn      = "profile-pld-d1-k1-c0.1-steps5-delta1e-06.json"
	profilePlanInput  = "profile-plan-3kinds-steps21-delta1e-06.json"
)

// TestProfileInputHonest: the certificates compose wrote for rdp, points
// and pld inputs, and the plan mixing them with a Gaussian, are accepted.
func TestProfileInputHonest(t *testing.T) {
	for _, name := range []string{profileRDPBalle, profileRDPMironov, profileRDPDPA, profilePoints, profilePointsSym, profilePLDIn, profilePlanInput} {
		f := readProfile(t, name)
		rep, err := Check(context.Background(), f, nil)
		if err != nil || !rep.Accepted {
			t.Errorf("%s: %+v, %v", name, rep, err)
		}
	}
}

func scaleNum(s string, k float64) string {
	v, _ := strconv.ParseFloat(s, 64)
	return certfile.Num(v * k)
}

// largest returns the index of the largest mass of m at a positive loss
// (not the last).
func largest(m *certfile.PMF) int {
	best, bv := -1, 0.0
	for i, s := range m.Probs[:len(m.Probs)-1] {
		if v, _ := strconv.ParseFloat(s, 64); v > bv && m.LowerLoss+i > 0 {
			best, bv = i, v
		}
	}
	return best
}

// moveMass moves a tenth of m's largest mass at a positive loss one loss
// down (by -1) or up (by 1).
func moveMass(m *certfile.PMF, by int) {
	i := largest(m)
	v, _ := strconv.ParseFloat(m.Probs[i], 64)
	w, _ := strconv.ParseFloat(m.Probs[i+by], 64)
	m.Probs[i], m.Probs[i+by] = certfile.Num(v*0.9), certfile.Num(w+v*0.1)
}

func moveDown(m *certfile.PMF) { moveMass(m, -1) }

// TestProfileInputMutations: each change to an honest file that makes its
// statement false or unproved is rejected for its reason.
func TestProfileInputMutations(t *testing.T) {
	lowerClaim := func(f *certfile.File) { f.Claim = scaleNum(f.Claim, 0.99) }
	for _, tc := range []profileMutation{
		// rdp
		{"rdp claim lowered", profileRDPBalle, "above delta", lowerClaim},
		{"rdp steps raised", profileRDPBalle, "above delta", func(f *certfile.File) { f.Profile.Steps = 11 }},
		// Orders 2.5, 3 and 4 give the minimum where the amplified
		// profile is positive (eps below 0.55); the solver's hull (and the
		// checker's) bounds the rest by chords, so only the hull's
		// vertices matter.
		{"rdp values raised", profileRDPBalle, "does not dominate", func(f *certfile.File) {
			for i, s := range f.Profile.Input.RDP {
				f.Profile.Input.RDP[i] = scaleNum(s, 1.05)
			}
		}},
		{"rdp value at order 3 raised", profileRDPBalle, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.RDP[5] = scaleNum(f.Profile.Input.RDP[5], 1.2)
			f.Profile.Input.RDP[4] = scaleNum(f.Profile.Input.RDP[4], 1.2) // order 2.5, else it takes over
		}},
		{"rdp orders 2.5 and 3 lowered", profileRDPBalle, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.Orders[4], f.Profile.Input.Orders[5] = "2.2", "2.4"
		}},
		{"rdp orders 4 to 6 dropped", profileRDPMironov, "does not dominate", func(f *certfile.File) {
			in := f.Profile.Input // they decide at eps 1, the hull's vertex
			in.Orders = append(in.Orders[:6:6], in.Orders[9:]...)
			in.RDP = append(in.RDP[:6:6], in.RDP[9:]...)
		}},
		{"rdp conversion weaker", profileRDPBalle, "does not dominate", func(f *certfile.File) { f.Profile.Input.Conversion = "mironov2017" }},
		{"rdp dp_accounting conversion weaker", profileRDPDPA, "does not dominate", func(f *certfile.File) { f.Profile.Input.Conversion = "mironov2017" }},
		{"rdp c lowered", profileRDPBalle, "does not dominate", func(f *certfile.File) { f.C = "0.09" }},
		{"rdp n raised", profileRDPBalle, "does not dominate", func(f *certfile.File) { f.D, f.N = 2, 2 }},
		{"rdp order at 1", profileRDPBalle, "not above 1", func(f *certfile.File) { f.Profile.Input.Orders[0] = "1" }},
		{"rdp value negative", profileRDPBalle, "negative", func(f *certfile.File) { f.Profile.Input.RDP[0] = "-0.1" }},
		{"rdp mass moved down", profileRDPBalle, "does not dominate", func(f *certfile.File) { moveDown(&f.Profile.Remove) }},
		// points
		{"points claim lowered", profilePoints, "above delta", lowerClaim},
		{"points steps raised", profilePoints, "above delta", func(f *certfile.File) { f.Profile.Steps = 11 }},
		// The amplified profile is positive below eps 0.2 only: points 0
		// and 0.1 decide.
		{"points delta raised", profilePoints, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.Delta[1] = scaleNum(f.Profile.Input.Delta[1], 1.1) // eps 0.1
		}},
		{"points first delta raised", profilePoints, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.Delta[0] = scaleNum(f.Profile.Input.Delta[0], 1.05)
		}},
		{"points eps raised", profilePoints, "does not dominate", func(f *certfile.File) { f.Profile.Input.Eps[1] = "0.15" }},
		{"points reverse raised", profilePoints, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.Reverse[1] = "1e-3" // eps 0.1: 7.5e-6
		}},
		{"points reverse dropped", profilePoints, "does not dominate", func(f *certfile.File) { f.Profile.Input.Reverse = nil }},
		{"points c lowered", profilePoints, "does not dominate", func(f *certfile.File) { f.C = "0.09" }},
		{"points d raised", profilePointsSym, "does not dominate", func(f *certfile.File) { f.D, f.N = 3, 3 }},
		{"points symmetric delta raised", profilePointsSym, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.Delta[1] = scaleNum(f.Profile.Input.Delta[1], 1.1)
		}},
		{"points eps not increasing", profilePoints, "does not exceed", func(f *certfile.File) { f.Profile.Input.Eps[3] = "0.1" }},
		{"points eps too large", profilePoints, "beyond", func(f *certfile.File) { f.Profile.Input.Eps[60] = "2e4" }},
		{"points delta negative", profilePoints, "below 0", func(f *certfile.File) { f.Profile.Input.Delta[60] = "-1e-20" }},
		{"points mass moved down", profilePoints, "does not dominate", func(f *certfile.File) { moveDown(&f.Profile.Remove) }},
		// pld
		{"pld claim lowered", profilePLDIn, "above delta", lowerClaim},
		{"pld steps raised", profilePLDIn, "above delta", func(f *certfile.File) { f.Profile.Steps = 6 }},
		{"pld input mass moved up", profilePLDIn, "does not dominate", func(f *certfile.File) { moveMass(f.Profile.Input.Remove, 1) }},
		{"pld input mass raised", profilePLDIn, "masses sum to", func(f *certfile.File) {
			m := f.Profile.Input.Remove
			i := largest(m)
			m.Probs[i] = scaleNum(m.Probs[i], 1.1)
		}},
		{"pld input infinity mass raised", profilePLDIn, "does not dominate", func(f *certfile.File) { f.Profile.Input.Remove.InfinityMass = "1e-3" }},
		{"pld input lower_loss raised", profilePLDIn, "does not dominate", func(f *certfile.File) { f.Profile.Input.Remove.LowerLoss += 20 }},
		{"pld input discretization raised", profilePLDIn, "does not dominate", func(f *certfile.File) {
			f.Profile.Input.Discretization = certfile.Exact(1.05e-3)
		}},
		{"pld input losses too far", profilePLDIn, "beyond |700|", func(f *certfile.File) { f.Profile.Input.Remove.LowerLoss = -800000 }},
		{"pld c lowered", profilePLDIn, "does not dominate", func(f *certfile.File) { f.C = "0.09" }},
		{"pld n raised", profilePLDIn, "does not dominate", func(f *certfile.File) { f.D, f.N = 2, 2 }},
		{"pld mass moved down", profilePLDIn, "does not dominate", func(f *certfile.File) { moveDown(&f.Profile.Remove) }},
		// plan
		{"plan claim lowered", profilePlanInput, "above delta", lowerClaim},
		{"plan points count raised", profilePlanInput, "above delta", func(f *certfile.File) { f.Profile.Plan[0].Steps++ }},
		{"plan pld count raised", profilePlanInput, "above delta", func(f *certfile.File) { f.Profile.Plan[1].Steps++ }},
		{"plan points delta raised", profilePlanInput, "plan kind 2: the PLD does not dominate", func(f *certfile.File) {
			in := f.Profile.Plan[0].Input
			in.Delta[1] = scaleNum(in.Delta[1], 1.1)
		}},
		{"plan points reverse raised", profilePlanInput, "plan kind 2: the PLD does not dominate", func(f *certfile.File) {
			f.Profile.Plan[0].Input.Reverse[1] = "1e-3"
		}},
		{"plan pld input mass moved up", profilePlanInput, "plan kind 3: the PLD does not dominate", func(f *certfile.File) {
			moveMass(f.Profile.Plan[1].Input.Remove, 1)
		}},
		{"plan pld d raised", profilePlanInput, "plan kind 3: the PLD does not dominate", func(f *certfile.File) { f.Profile.Plan[1].D = 3 }},
		{"plan pld c lowered", profilePlanInput, "plan kind 3: the PLD does not dominate", func(f *certfile.File) { f.Profile.Plan[1].C = "0.19" }},
		{"plan kinds' inputs swapped", profilePlanInput, "does not dominate", func(f *certfile.File) {
			a, b := &f.Profile.Plan[0], &f.Profile.Plan[1]
			a.Mechanism, b.Mechanism, a.Input, b.Input = b.Mechanism, a.Mechanism, b.Input, a.Input
		}},
	} {
		tc.reject(t)
	}
}

// TestProfileInputMorePrivate: changes that make the stated input more
// private (its profile lower) leave the claim true, and the checker
// accepts them: it reads each datum on the side it bounds (an inverted
// reading would reject these, or accept the mutations above).
func TestProfileInputMorePrivate(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		mut        func(f *certfile.File)
	}{
		{"rdp values lowered", profileRDPBalle, func(f *certfile.File) {
			for i, s := range f.Profile.Input.RDP {
				f.Profile.Input.RDP[i] = scaleNum(s, 0.95)
			}
		}},
		{"rdp conversion stronger", profileRDPMironov, func(f *certfile.File) { f.Profile.Input.Conversion = "balle2020" }},
		{"rdp order added", profileRDPBalle, func(f *certfile.File) {
			in := f.Profile.Input
			in.Orders, in.RDP = append(in.Orders, "300"), append(in.RDP, "37.5")
		}},
		{"points deltas lowered", profilePoints, func(f *certfile.File) {
			for i, s := range f.Profile.Input.Delta {
				f.Profile.Input.Delta[i] = scaleNum(s, 0.9)
			}
		}},
		{"points reverse lowered", profilePoints, func(f *certfile.File) {
			f.Profile.Input.Reverse[0] = scaleNum(f.Profile.Input.Reverse[0], 0.9)
		}},
		{"pld input mass moved down", profilePLDIn, func(f *certfile.File) { moveDown(f.Profile.Input.Remove) }},
		{"plan pld input mass moved down", profilePlanInput, func(f *certfile.File) { moveDown(f.Profile.Plan[1].Input.Remove) }},
	} {
		f := readProfile(t, tc.file)
		tc.mut(f)
		if rep, err := Check(context.Background(), f, nil); err != nil || !rep.Accepted {
			t.Errorf("%s: %+v, %v; want accepted", tc.name, rep, err)
		}
	}
}

// TestProfileInputMalformed: shapes the reader refuses (ErrMalformed):
// input data missing, for the wrong mechanism, mixed, unequal lengths,
// an unknown conversion, past the caps.
func TestProfileInputMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		mut        func(f *certfile.File)
	}{
		{"rdp input missing", profileRDPBalle, func(f *certfile.File) { f.Profile.Input = nil }},
		{"input on a gaussian", profileRow, func(f *certfile.File) {
			f.Profile.Input = &certfile.Input{Conversion: "balle2020", Orders: []string{"2"}, RDP: []string{"1"}}
		}},
		{"rdp with points", profileRDPBalle, func(f *certfile.File) { f.Profile.Input.Eps = []string{"1"} }},
		{"rdp with sigma", profileRDPBalle, func(f *certfile.File) { f.Profile.Sigma = "2" }},
		{"rdp unknown conversion", profileRDPBalle, func(f *certfile.File) { f.Profile.Input.Conversion = "renyi" }},
		{"rdp lengths differ", profileRDPBalle, func(f *certfile.File) { f.Profile.Input.RDP = f.Profile.Input.RDP[1:] }},
		{"rdp orders past the cap", profileRDPBalle, func(f *certfile.File) {
			in := f.Profile.Input
			for len(in.Orders) <= certfile.MaxRDPOrders {
				in.Orders, in.RDP = append(in.Orders, "2"), append(in.RDP, "1")
			}
		}},
		{"points reverse short", profilePoints, func(f *certfile.File) { f.Profile.Input.Reverse = f.Profile.Input.Reverse[1:] }},
		{"points delta not a number", profilePoints, func(f *certfile.File) { f.Profile.Input.Delta[3] = "x" }},
		{"points eps past float64", profilePoints, func(f *certfile.File) { f.Profile.Input.Eps[3] = "1e400" }},
		{"pld input without remove", profilePLDIn, func(f *certfile.File) { f.Profile.Input.Remove = nil }},
		{"pld input negative mass", profilePLDIn, func(f *certfile.File) { f.Profile.Input.Remove.Probs[3] = "-1e-9" }},
		{"pld input discretization missing", profilePLDIn, func(f *certfile.File) { f.Profile.Input.Discretization = "" }},
		{"plan kind input missing", profilePlanInput, func(f *certfile.File) { f.Profile.Plan[0].Input = nil }},
	} {
		f := readProfile(t, tc.file)
		tc.mut(f)
		if rep, err := Check(context.Background(), f, nil); !errors.Is(err, ErrMalformed) || rep.Accepted {
			t.Errorf("%s: %+v, %v; want ErrMalformed", tc.name, rep, err)
		}
	}
}

// TestRDPBoundReference: the checker's bound on an RDP curve's profile
// (min over orders of each conversion) against mpmath at 50 digits
// (testdata/verify/gen_rdp_input.py): at or above the exact value and
// within 1e-12 of it, relative. The curves: the Gaussian's at sigma 2
// (alpha/8) and alpha/800 at orders from 1.001 (where dp_accounting's KL
// line decides at eps 0).
func TestRDPBoundReference(t *testing.T) {
	curves := map[string]struct {
		orders []string
		div    int64
	}{
		"gauss2": {[]string{"1.25", "1.5", "1.75", "2", "2.5", "3", "4", "5", "6", "8", "10", "12", "16", "20", "24", "32", "48", "64", "128", "256"}, 8},
		"small":  {[]string{"1.001", "1.005", "1.01", "1.5", "2", "4", "8", "32"}, 800},
	}
	for _, tc := range []struct {
		curve, conv string
		eps         float64
		ref         string
	}{
		{"gauss2", "mironov2017", 0, "1.0"},
		{"gauss2", "mironov2017", 0.5, "0.754839601989007337327347095918"},
		{"gauss2", "mironov2017", 1, "0.223130160148429828933280470764"},
		{"gauss2", "mironov2017", 3, "0.0000000682560337633486975538338968987"},
		{"gauss2", "mironov2017", 10, "2.25235790554521699517855674953e-82"},
		{"gauss2", "balle2020", 0, "0.297072468718753459559437492961"},
		{"gauss2", "balle2020", 0.5, "0.10546875"},
		{"gauss2", "balle2020", 1, "0.018278822719359371586214336165"},
		{"gauss2", "balle2020", 3, "0.00000000218416595184400639416655129582"},
		{"gauss2", "balle2020", 10, "1.74444520027014154077089488681e-84"},
		{"gauss2", "dp_accounting", 0, "0.297072468718753459559437492961"},
		{"gauss2", "dp_accounting", 0.5, "0.10546875"},
		{"gauss2", "dp_accounting", 1, "0.018278822719359371586214336165"},
		{"gauss2", "dp_accounting", 3, "0.00000000218416595184400639416655129582"},
		{"gauss2", "dp_accounting", 10, "1.74444520027014154077089488681e-84"},
		{"small", "mironov2017", 0, "1.0"},
		{"small", "mironov2017", 0.5, "0.000000641151537506014238726714899617"},
		{"small", "mironov2017", 1, "1.18958702481661323768857665538e-13"},
		{"small", "mironov2017", 3, "1.40973778605880516059221976823e-40"},
		{"small", "mironov2017", 10, "8.07673376818156313964053681453e-135"},
		{"small", "balle2020", 0, "0.0403588107271829929396567456247"},
		{"small", "balle2020", 0.5, "0.00000000748813888286684129227110653953"},
		{"small", "balle2020", 1, "1.38934282053399977452184206346e-15"},
		{"small", "balle2020", 3, "1.64646136099058068139318556541e-42"},
		{"small", "balle2020", 10, "9.43298122801688855161192697437e-137"},
		{"small", "dp_accounting", 0, "0.0353619500751162689966468860871"},
		{"small", "dp_accounting", 0.5, "0.00000000748813888286684129227110653953"},
		{"small", "dp_accounting", 1, "1.38934282053399977452184206346e-15"},
		{"small", "dp_accounting", 3, "1.64646136099058068139318556541e-42"},
		{"small", "dp_accounting", 10, "9.43298122801688855161192697437e-137"},
	} {
		c := curves[tc.curve]
		in := &certfile.Input{Conversion: tc.conv, Orders: c.orders}
		for _, o := range c.orders {
			r, _ := new(big.Rat).SetString(o)
			in.RDP = append(in.RDP, r.Quo(r, big.NewRat(c.div, 1)).FloatString(20))
		}
		g, msg, err := rdpBound(in)
		if msg != "" || err != nil {
			t.Fatalf("%s %s: %q, %v", tc.curve, tc.conv, msg, err)
		}
		got := g(tc.eps)
		ref, _ := new(big.Float).SetPrec(200).SetString(tc.ref)
		gb := new(big.Float).SetPrec(200).SetFloat64(got)
		hi := new(big.Float).SetPrec(200).Mul(ref, big.NewFloat(1+1e-12))
		if gb.Cmp(ref) < 0 || gb.Cmp(hi) > 0 {
			t.Errorf("%s %s at eps %v: bound %.17g, exact %s", tc.curve, tc.conv, tc.eps, got, tc.ref)
		}
	}
}

// FuzzProfileInputCheck mutates the honest files of mechanisms known by a
// file: one RDP value and order scaled and the conversion chosen (the rdp
// file), or one point's eps, delta and reverse value scaled (the points
// file), or one input mass scaled and the input offset moved (the pld
// file); and the claim. Check must not panic, fail only with ErrMalformed,
// ErrUnsupported or the context's error, and accept only with its checked
// delta at most the question's.
func FuzzProfileInputCheck(f *testing.F) {
	f.Add(uint8(0), 5, 1.0, 1.0, 1.0, uint8(0), 0, 0.0)
	f.Add(uint8(0), 5, 1.2, 1.0, 1.0, uint8(1), 0, 0.0)
	f.Add(uint8(0), 0, 0.5, 0.99, 1.0, uint8(2), 0, -0.1)
	f.Add(uint8(1), 1, 1.0, 1.1, 1.0, uint8(0), 0, 0.0)
	f.Add(uint8(1), 0, 1.5, 1.0, 0.0, uint8(0), 0, 0.0)
	f.Add(uint8(2), 300, 2.0, 1.0, 1.0, uint8(0), 5, 0.0)
	f.Add(uint8(2), -1, 1.0, 1.0, 1.0, uint8(0), -1<<40, 1e9)
	f.Fuzz(func(t *testing.T, which uint8, i int, a, b, c float64, conv uint8, dlo int, dclaim float64) {
		ok := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
		files := []string{profileRDPBalle, profilePoints, profilePLDIn}
		cf := readProfile(t, files[int(which)%len(files)])
		in := cf.Profile.Input
		scale := func(v []string, j int, k float64) {
			if j >= 0 && j < len(v) && ok(k) {
				x, _ := strconv.ParseFloat(v[j], 64)
				if ok(x * k) {
					v[j] = certfile.Num(x * k)
				}
			}
		}
		switch int(which) % len(files) {
		case 0:
			scale(in.RDP, i, a)
			scale(in.Orders, i, b)
			in.Conversion = certfile.Conversions[int(conv)%len(certfile.Conversions)]
		case 1:
			scale(in.Eps, i, a)
			scale(in.Delta, i, b)
			scale(in.Reverse, i, c)
		case 2:
			scale(in.Remove.Probs, i, a)
			in.Remove.LowerLoss += dlo
		}
		if x, err := strconv.ParseFloat(cf.Claim, 64); err == nil && ok(dclaim) && ok(x+dclaim) {
			cf.Claim = certfile.Num(x + dclaim)
		}
		checkFuzzed(t, cf)
	})
}
