package bernamp

import (
	"context"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/verify"
)

// The fallback proofs (pieces-max, pieces-lp) run at no point of the
// paper's grids or the surveys; certify.Fault forces them by moving the
// first-order l1 by 1%, which makes the inequality fail near the tangent
// point. Their certificates are then exactly the proof behind the bound.
var fallbackCases = []struct {
	name          string
	fault         certify.Fault
	method        string
	n             int
	c, alpha, eps float64
}{
	{"lp", certify.Fault{MoveL1: 0.01}, certify.MethodPiecesLP, 2, 0.1, 5, 1},
	{"max", certify.Fault{MoveL1: 0.01, NoRelax: true}, certify.MethodPiecesMax, 3, 0.2, 4, 1.5},
}

// ratText returns the decimal s plus delta (exactly), as a decimal string.
func ratText(t *testing.T, s string, delta *big.Rat) string {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	return r.Add(r, delta).FloatString(40)
}

// scaled returns the decimal s times (1 + rel), as a decimal string.
func scaled(t *testing.T, s string, rel float64) string {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	f := new(big.Rat).SetFloat64(1 + rel)
	return r.Mul(r, f).FloatString(40)
}

// TestFallbackCertificates: at points where each fallback happens, the
// file is the proof behind the bound (its method, multipliers and claim),
// verify accepts it, and each mutation is rejected for its stated reason.
func TestFallbackCertificates(t *testing.T) {
	t.Parallel()
	for _, fc := range fallbackCases {
		r, err := certify.Certify(context.Background(), fc.n, fc.c, fc.alpha, fc.eps, &certify.Settings{Tiling: true, Fault: fc.fault})
		if err != nil {
			t.Fatal(err)
		}
		if r.Method != fc.method || !r.Violation || !(r.Upper > r.LB) {
			t.Fatalf("%s: method %s, violation %v, upper %v, LB %v: the fault did not force the fallback", fc.name, r.Method, r.Violation, r.Upper, r.LB)
		}
		honest := r.File(1, fc.n)
		if honest == nil || honest.Method != fc.method || len(honest.Tiles) != len(r.Tiling) {
			t.Fatalf("%s: file %+v for %d tiles", fc.name, honest, len(r.Tiling))
		}
		// The file holds the proof's own numbers: the claim is the bound,
		// the multipliers those the search proved (the LP's are not the
		// first-order ones).
		first, err := certify.Certify(context.Background(), fc.n, fc.c, fc.alpha, fc.eps, &certify.Settings{Fault: certify.Fault{MoveL1: fc.fault.MoveL1, NoRelax: true}})
		if err != nil {
			t.Fatal(err)
		}
		if honest.Claim != certfile.Exact(r.Upper) || honest.L1 != certfile.Num(r.L1) || honest.L0 != certfile.Num(r.L0) || honest.Tau != certfile.Num(r.Slack) {
			t.Errorf("%s: file claim %s l0 %s l1 %s tau %s, result %v %v %v %v", fc.name, honest.Claim, honest.L0, honest.L1, honest.Tau, r.Upper, r.L0, r.L1, r.Slack)
		}
		if lp := fc.method == certify.MethodPiecesLP; lp == (r.L1 == first.L1 && r.L2 == first.L2) {
			t.Errorf("%s: multipliers (%v, %v), the moved first-order ones (%v, %v)", fc.name, r.L1, r.L2, first.L1, first.L2)
		}
		rep, err := verify.Check(context.Background(), honest, nil)
		if err != nil || !rep.Accepted || rep.Tiles != len(r.Tiling) {
			t.Fatalf("%s: the honest file is rejected: %+v, %v", fc.name, rep, err)
		}
		// Psi reaches L0 + Tau up to the solver's tau (its maximum is
		// proved to within it): 4 tau below is false at the maximum.
		tau := 0.5 * math.Expm1((fc.alpha-1)*certify.DefaultTol)
		down := new(big.Rat).SetFloat64(-4 * tau)
		mutations := []struct {
			name   string
			mutate func(f *certfile.File)
			reason string
		}{
			{"claim lowered to LB", func(f *certfile.File) { f.Claim = f.LB }, "below the checked bound"},
			{"claim lowered 1e-12", func(f *certfile.File) { f.Claim = scaled(t, f.Claim, -1e-12) }, "below the checked bound"},
			{"l0 lowered 4 tau", func(f *certfile.File) { f.L0 = ratText(t, f.L0, down) }, "psi"},
			{"tau lowered 4 tau", func(f *certfile.File) { f.Tau = ratText(t, f.Tau, down) }, "psi"},
			{"tau negated", func(f *certfile.File) { f.Tau = "-" + f.Tau }, "psi"},
			{"l1 lowered 1e-4", func(f *certfile.File) { f.L1 = scaled(t, f.L1, -1e-4) }, "psi"},
			{"l1 raised 1e-4", func(f *certfile.File) { f.L1 = scaled(t, f.L1, 1e-4) }, "below the checked bound"},
			{"l1 negated", func(f *certfile.File) { f.L1 = "-" + f.L1 }, "l1 = -"},
			{"l2 raised 1e-4", func(f *certfile.File) { f.L2 = ratText(t, f.L2, big.NewRat(1, 10000)) }, "below the checked bound"},
			{"l2 lowered 1e-9", func(f *certfile.File) { f.L2 = ratText(t, f.L2, big.NewRat(-1, 1e9)) }, "psi"},
			{"l2 below 0", func(f *certfile.File) { f.L2 = "-1e-300" }, "l2 = -"},
			{"log U lowered 1e-6", func(f *certfile.File) { f.LogU = ratText(t, f.LogU, big.NewRat(-1, 1e6)) }, "psi"},
			{"log U raised 1e-6", func(f *certfile.File) { f.LogU = ratText(t, f.LogU, big.NewRat(1, 1e6)) }, "below the checked bound"},
			{"c lowered 1%", func(f *certfile.File) { f.C = scaled(t, f.C, -0.01) }, "psi"},
			{"eps raised 1%", func(f *certfile.File) { f.Eps = scaled(t, f.Eps, 0.01) }, "psi"},
			{"alpha raised 1%", func(f *certfile.File) { f.Alpha = scaled(t, f.Alpha, 0.01) }, "psi"},
			{"d and n doubled", func(f *certfile.File) { f.D, f.N = 2, 2*f.K }, "psi"},
			{"k and n raised", func(f *certfile.File) { f.K, f.N = f.K+1, f.K+1 }, "psi"},
			{"n alone changed", func(f *certfile.File) { f.N++ }, "not d k"},
			{"a tile removed", func(f *certfile.File) { f.Tiles = slices.Delete(f.Tiles, len(f.Tiles)/2, len(f.Tiles)/2+1) }, "tiling"},
			{"the last tile removed", func(f *certfile.File) { f.Tiles = f.Tiles[:len(f.Tiles)-1] }, "tiling"},
			{"a tile duplicated", func(f *certfile.File) { f.Tiles = append(f.Tiles, f.Tiles[len(f.Tiles)/3]) }, "tiling"},
			{"a tile shrunk", func(f *certfile.File) {
				for i, tl := range f.Tiles {
					if tl[1] != "0" && tl[1] != "-inf" && tl[1] != "inf" {
						f.Tiles[i][1] = scaled(t, tl[1], 1e-3) // s2 < 0: moved inward
						return
					}
				}
			}, "tiling"},
		}
		for _, m := range mutations {
			f := *honest
			f.Tiles = slices.Clone(honest.Tiles)
			m.mutate(&f)
			rep, err := verify.Check(context.Background(), &f, &verify.Options{MaxExtra: 2000})
			switch {
			case err != nil:
				t.Errorf("%s, %s: error %v", fc.name, m.name, err)
			case rep.Accepted:
				t.Errorf("%s, %s: accepted", fc.name, m.name)
			case !strings.Contains(rep.Failure, m.reason):
				t.Errorf("%s, %s: rejected for %q, want a failure mentioning %q", fc.name, m.name, rep.Failure, m.reason)
			}
		}
		// The method is informational: the checker proves the inequality
		// for whatever constants the file holds; an unknown one is malformed.
		f := *honest
		f.Method = ""
		if rep, err := verify.Check(context.Background(), &f, nil); err != nil || !rep.Accepted {
			t.Errorf("%s: the file without its method is rejected: %+v, %v", fc.name, rep, err)
		}
		f.Method = "lp"
		if _, err := verify.Check(context.Background(), &f, nil); err == nil || !strings.Contains(err.Error(), "method") {
			t.Errorf("%s: method %q: error %v, want a malformed file", fc.name, f.Method, err)
		}
	}
}

// TestPostChecksFallback: Post with checking on keeps the pieces-lp and
// pieces-max bounds (the same as unchecked), the checker verifies their
// files, and the file is the proof behind PostUpper.
func TestPostChecksFallback(t *testing.T) {
	t.Parallel()
	for _, fc := range fallbackCases {
		p := Params{D: 1, K: fc.n, C: fc.c, Alpha: fc.alpha, Eps: fc.eps}
		off, err := Post(context.Background(), p, &Settings{fault: fc.fault})
		if err != nil {
			t.Fatal(err)
		}
		on, err := Post(context.Background(), p, &Settings{Check: true, fault: fc.fault})
		if err != nil {
			t.Fatal(err)
		}
		if on.Check.Status != CheckVerified || on.Method != MethodPieces || on.Certificate == nil || on.Certificate.Method != fc.method {
			t.Fatalf("%s: check %+v, method %q, note %q", fc.name, on.Check, on.Method, on.Note)
		}
		if on.PostUpper != off.PostUpper || off.Check.Status != CheckOff || !(on.PostUpper < on.UB) || on.Pieces == nil || !on.Pieces.Violation {
			t.Errorf("%s: checked post_upper %v, unchecked %v (check %s), UB %v, pieces %+v", fc.name, on.PostUpper, off.PostUpper, off.Check.Status, on.UB, on.Pieces)
		}
		if on.Certificate.Claim != certfile.Exact(on.PostUpper) || on.Check.Tiles != len(on.Certificate.Tiles) {
			t.Errorf("%s: claim %s, post_upper %v; %d tiles checked of %d", fc.name, on.Certificate.Claim, on.PostUpper, on.Check.Tiles, len(on.Certificate.Tiles))
		}
		t.Logf("%s: post_upper - LB %.3g, %d tiles, solver %.3f s, check %.3f s", fc.name, on.PostUpper-on.LB, on.Check.Tiles, on.Pieces.Seconds, on.Check.Seconds)
	}
}
