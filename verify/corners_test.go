package verify

import (
	"context"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// cornerRefs are the corner program's maxima at 40 digits from mpmath at
// 60 digits (testdata/verify/gen_corners.py): for n <= 3 by brute force
// over every placement of the four points on corners and every output bit
// string (no symmetry used), for n >= 4 over the pattern configurations,
// written independently of the checker.
var cornerRefs = []struct {
	d, k                  int
	c, eps, delta, epsOut string
	ref                   string
}{
	{1, 1, "0.1", "1", "0.01", "0.3", "0.264490420001592319839839094002428483975"},
	{2, 1, "0.1", "1", "0.01", "0.5", "0.2293309035158133150695080837225229028172"},
	{3, 1, "0.3", "1", "0.01", "0", "0.265537719870448687401023729722509947602"},
	{1, 3, "1e-6", "50", "1e-12", "50", "0.0"},
	{3, 1, "0.4999", "1e-9", "0.5", "1e-9", "0.0001499994981499997480749999156916666455062"},
	{2, 2, "0.3", "2", "1e-6", "0.5", "0.3343645500091702720006395170818376948714"},
	{6, 1, "0.2", "2", "1e-6", "0.3", "0.630564552676826099597877945555393806976"},
	{1, 5, "0.01", "0.1", "1e-12", "0.05", "0.02560252762800278806436294229387434143256"},
}

func cornersFile(t testing.TB, d, k int, c, eps, delta, epsOut, claim string) *certfile.File {
	t.Helper()
	f := &certfile.File{Format: certfile.Format, Version: certfile.Version, Kind: certfile.KindDeltaCorners,
		D: d, K: k, N: d * k, C: c, Eps: eps, Delta: delta, EpsOut: epsOut, Claim: claim, LB: "0"}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDeltaCorners: a claim one part in 1e14 above the 60-digit reference
// is accepted and one part in 1e14 below rejected (where the reference is
// 0: claim 0 accepted, -1e-30 rejected), n from 1 to 6, c from 1e-6 to
// 0.4999, eps and eps' up to 50, delta from 1e-12 to 0.5.
func TestDeltaCorners(t *testing.T) {
	ctx := context.Background()
	for _, tc := range cornerRefs {
		ref := bigRat(t, tc.ref)
		above, below := new(big.Rat).Mul(ref, big.NewRat(1e14+1, 1e14)), new(big.Rat).Mul(ref, big.NewRat(1e14-1, 1e14))
		if ref.Sign() == 0 {
			above, below = new(big.Rat), bigRat(t, "-1e-30")
		}
		for _, m := range []struct {
			claim  *big.Rat
			accept bool
		}{{above, true}, {below, false}} {
			f := cornersFile(t, tc.d, tc.k, tc.c, tc.eps, tc.delta, tc.epsOut, decimal(m.claim))
			rep, err := Check(ctx, f, nil)
			if err != nil || rep.Accepted != m.accept || !m.accept && !strings.Contains(rep.Failure, "below the corner program's maximum") {
				t.Errorf("%+v claim %s: %+v, %v; want accepted %v", tc, f.Claim[:20], rep, err, m.accept)
			}
		}
	}
}

// TestDeltaCornersMutations: a file with the claim at the reference (d 2,
// k 2, c 0.3, eps 2, delta 1e-6, eps' 0.5) changed in one field is
// rejected for the stated reason; malformed variants are ErrMalformed.
func TestDeltaCornersMutations(t *testing.T) {
	ctx := context.Background()
	const claim = "0.33436455000917028"
	honest := func() *certfile.File { return cornersFile(t, 2, 2, "0.3", "2", "1e-6", "0.5", claim) }
	if rep, err := Check(ctx, honest(), nil); err != nil || !rep.Accepted {
		t.Fatalf("honest: %+v, %v", rep, err)
	}
	const below = "below the corner program's maximum"
	for _, m := range []struct {
		name, why string
		edit      func(f *certfile.File)
	}{
		{"claim lowered", below, func(f *certfile.File) { f.Claim = "0.33436455000917" }},
		{"claim to 0", below, func(f *certfile.File) { f.Claim = "0" }},
		{"eps raised", below, func(f *certfile.File) { f.Eps = "2.001" }},
		{"delta raised", below, func(f *certfile.File) { f.Delta = "1.1e-6" }},
		{"eps_out lowered", below, func(f *certfile.File) { f.EpsOut = "0.499" }},
		{"c lowered", below, func(f *certfile.File) { f.C = "0.299" }},
		{"n raised with d", below, func(f *certfile.File) { f.D, f.N = 3, 6 }},
		{"n raised with k", below, func(f *certfile.File) { f.K, f.N = 3, 6 }},
		{"n alone changed", "is not d k", func(f *certfile.File) { f.N = 5 }},
		{"d alone changed", "is not d k", func(f *certfile.File) { f.D = 1 }},
		{"c at 1/2", "is not in (0, 1/2)", func(f *certfile.File) { f.C = "0.5" }},
		{"eps negative", "is negative", func(f *certfile.File) { f.Eps = "-2" }},
		{"delta 1", "is not in [0, 1)", func(f *certfile.File) { f.Delta = "1" }},
		{"eps past the range", "beyond the checker's range", func(f *certfile.File) { f.Eps = "2000000" }},
		{"n past the cap", "exceeds the checker's cap", func(f *certfile.File) { f.D, f.N = 5, 10 }},
	} {
		f := honest()
		m.edit(f)
		rep, err := Check(ctx, f, nil)
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, m.why) {
			t.Errorf("%s: %+v, %v; want rejected: %q", m.name, rep, err, m.why)
		}
	}
	// Safe changes leave true statements; a claim of 1 needs no proof.
	for _, edit := range []func(f *certfile.File){
		func(f *certfile.File) { f.EpsOut = "0.6" },
		func(f *certfile.File) { f.D, f.K = 4, 1 }, // only n = d k matters
		func(f *certfile.File) { f.Claim, f.Delta = "1", "0.99" },
	} {
		f := honest()
		edit(f)
		if rep, err := Check(ctx, f, nil); err != nil || !rep.Accepted {
			t.Errorf("safe change %+v: %+v, %v", f, rep, err)
		}
	}
	for _, m := range []struct {
		name string
		edit func(f *certfile.File)
	}{
		{"multipliers", func(f *certfile.File) { f.L0, f.L1, f.L2 = "0", "0", "0" }},
		{"an order", func(f *certfile.File) { f.Alpha = "5" }},
		{"tiles", func(f *certfile.File) { f.Tiles = [][4]string{{"-inf", "0", "-inf", "inf"}} }},
		{"no delta", func(f *certfile.File) { f.Delta = "" }},
		{"bad eps_out", func(f *certfile.File) { f.EpsOut = "x" }},
	} {
		f := honest()
		m.edit(f)
		if rep, err := Check(ctx, f, nil); !errors.Is(err, ErrMalformed) || rep.Accepted {
			t.Errorf("%s: %+v, %v; want ErrMalformed", m.name, rep, err)
		}
	}
}

// BenchmarkDeltaCorners times the check at n = 1 to MaxCornerN.
func BenchmarkDeltaCorners(b *testing.B) {
	for n := 1; n <= MaxCornerN; n++ {
		f := cornersFile(b, n, 1, "0.2", "2", "1e-6", "0.3", "0.99")
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if rep, err := Check(context.Background(), f, nil); err != nil || !rep.Accepted {
					b.Fatalf("%+v, %v", rep, err)
				}
			}
		})
	}
}
