package verify

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// extremeFiles are honest certificates at the extremes of the domain
// (testdata/verify/README.md): logits beyond 700, where p underflows
// float64 (c = 1e-6, alpha near 1); k1 = k2 = e^-999 and G near e^994
// (alpha 1000); eps 50; and n = 10^4 at c = 0.49, whose corner tile
// [-inf, -32]^2 needs the omitted terms absorbed into G.
var extremeFiles = []string{
	"d1-k1-c1e-06-alpha1.01-eps1.json", "d3-k1-c1e-06-alpha1.01-eps50.json",
	"d1-k1-c1e-06-alpha1000-eps1.json", "d1-k1-c0.4999-alpha1000-eps1.json",
	"d1-k5-c0.0001-alpha1000-eps50.json", "d10000-k1-c0.49-alpha5-eps1.json",
}

// diagonalL0 sets l0 below psi(p, p) = f - k1 - k2 (F_n(p, p) = 1 and
// G(p, p) = 1 by homogeneity) by 1% of its size plus tau, so that the
// inequality is false on the whole diagonal.
func diagonalL0(f *certfile.File) {
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err)
		}
		return x
	}
	alpha, eps := num(f.Alpha), num(f.Eps)
	e := math.Exp(-(alpha - 1) * eps)
	d := math.Exp(-num(f.LogU)) - num(f.L1)*e - num(f.L2)*e
	f.L0 = certfile.Num(d - 0.01*math.Abs(d) - num(f.Tau))
}

// TestExtremes: each extreme file is accepted by the float64 bounds alone
// (no box re-tried in big.Float), and each of five mutations, each making
// the claim unsupported or the inequality false, is rejected for its
// reason.
func TestExtremes(t *testing.T) {
	testNoFallback = true
	defer func() { testNoFallback = false }()
	mutations := []struct {
		name   string
		mutate func(f *certfile.File)
		reason string
	}{
		{"claim lowered to LB", func(f *certfile.File) { f.Claim = f.LB }, "below the checked bound"},
		{"l0 below psi on the diagonal", diagonalL0, "psi"},
		{"a tile removed", func(f *certfile.File) { f.Tiles = slices.Delete(f.Tiles, len(f.Tiles)/2, len(f.Tiles)/2+1) }, "tiling"},
		{"a tile duplicated", func(f *certfile.File) { f.Tiles = append(f.Tiles, f.Tiles[0]) }, "tiling"},
	}
	for _, name := range extremeFiles {
		f := honest(t, name)
		if testing.Short() && f.N > 1000 {
			continue
		}
		r, err := Check(context.Background(), f, nil)
		if err != nil || !r.Accepted {
			t.Errorf("%s: rejected: %q, %v", name, r.Failure, err)
			continue
		}
		if r.Fallback != 0 {
			t.Errorf("%s: %d boxes re-tried in big.Float", name, r.Fallback)
		}
		for _, m := range mutations {
			g := honest(t, name)
			m.mutate(g)
			wantRejected(t, name+", "+m.name, g, m.reason)
		}
	}
}
