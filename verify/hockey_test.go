package verify

import (
	"context"
	"encoding/csv"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// deltaDir holds the honest delta-pieces certificates written by package
// hockey and refs.csv, their 60-digit vertex maxima from gen_delta.py
// (mpmath, vertices found by intersecting the eight lines pairwise).
var deltaDir = filepath.Join("..", "testdata", "verify", "delta")

func deltaFile(t testing.TB, name string) *certfile.File {
	t.Helper()
	f, err := certfile.ReadFile(filepath.Join(deltaDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func bigRat(t testing.TB, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a number: %q", s)
	}
	return r
}

// deltaBound is l0 + (l1 + l2) delta of f, exactly.
func deltaBound(t testing.TB, f *certfile.File) *big.Rat {
	b := new(big.Rat).Add(bigRat(t, f.L1), bigRat(t, f.L2))
	b.Mul(b, bigRat(t, f.Delta))
	return b.Add(b, bigRat(t, f.L0))
}

// decimal writes r exactly (every number here is a finite decimal) or, for
// a repeating one, to 400 digits.
func decimal(r *big.Rat) string { return r.FloatString(400) }

// TestDeltaPiecesRefs: every honest file is accepted; with l0 one part in
// 1e14 above the 60-digit maximum of Phi over the vertices (and the claim
// moved with it) the file is accepted, one part in 1e14 below it is
// rejected at a vertex; with the honest multipliers a claim one part in
// 1e14 below l0 + (l1 + l2) delta is rejected. Where the maximum is 0
// (c 1e-6, eps' 1.5: no output tells the pair apart by more than g), l0 =
// 1e-30 is accepted and -1e-30 rejected. n runs from 20 to 10^5, c from
// 1e-6 to 0.499, eps from 0 to 2, delta from 1e-12 to 0.1.
func TestDeltaPiecesRefs(t *testing.T) {
	ctx := context.Background()
	in, err := os.Open(filepath.Join(deltaDir, "refs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rows, err := csv.NewReader(in).ReadAll()
	if err != nil || len(rows) < 11 {
		t.Fatalf("refs.csv: %v, %d rows", err, len(rows))
	}
	for _, row := range rows[1:] {
		name, ref := row[0], bigRat(t, row[2])
		if testing.Short() && strings.Contains(name, "k100000") {
			continue
		}
		f := deltaFile(t, name)
		if rep, err := Check(ctx, f, nil); err != nil || !rep.Accepted {
			t.Errorf("%s: honest file: %+v, %v", name, rep, err)
		}
		bound := deltaBound(t, f)
		for _, m := range []struct {
			claim  *big.Rat
			accept bool
		}{{bound, true}, {new(big.Rat).Mul(bound, big.NewRat(1e14-1, 1e14)), false}} {
			g := *f
			g.Claim = decimal(m.claim)
			rep, err := Check(ctx, &g, nil)
			if err != nil || rep.Accepted != m.accept || !m.accept && !strings.Contains(rep.Failure, "below the checked bound") {
				t.Errorf("%s: claim %s: %+v, %v; want accepted %v", name, g.Claim, rep, err, m.accept)
			}
		}
		above, below := new(big.Rat).Mul(ref, big.NewRat(1e14+1, 1e14)), new(big.Rat).Mul(ref, big.NewRat(1e14-1, 1e14))
		if ref.Sign() == 0 {
			above, below = bigRat(t, "1e-30"), bigRat(t, "-1e-30")
		}
		for _, m := range []struct {
			l0     *big.Rat
			accept bool
		}{{above, true}, {below, false}} {
			g := *f
			g.L0 = decimal(m.l0)
			c := deltaBound(t, &g)
			g.Claim = decimal(c.Add(c, bigRat(t, "1e-40")))
			rep, err := Check(ctx, &g, nil)
			if err != nil || rep.Accepted != m.accept || !m.accept && !strings.Contains(rep.Failure, "Phi is not proved") {
				t.Errorf("%s: l0 %s (reference %s): %+v, %v; want accepted %v", name, g.L0[:30], row[2], rep, err, m.accept)
			}
		}
	}
}

// TestDeltaPiecesMutations: an honest file (n 60, c 0.3, eps 2, delta
// 1e-6, eps' 0.5; l1 0.21 and l2 0.11 both active), changed in one field,
// is rejected for the stated reason; malformed variants are ErrMalformed.
func TestDeltaPiecesMutations(t *testing.T) {
	ctx := context.Background()
	const name = "delta-d2-k30-c0.3-eps2-delta1e-06-epsout0.5.json"
	honest := deltaFile(t, name)
	if rep, err := Check(ctx, honest, nil); err != nil || !rep.Accepted {
		t.Fatalf("honest: %+v, %v", rep, err)
	}
	scale := func(s string, num, den int64) string {
		return decimal(new(big.Rat).Mul(bigRat(t, s), big.NewRat(num, den)))
	}
	for _, m := range []struct {
		name, why string
		edit      func(f *certfile.File)
	}{
		{"claim lowered by 1e-14", "below the checked bound", func(f *certfile.File) { f.Claim = scale(f.Claim, 1e14-1, 1e14) }},
		{"claim to LB", "below the checked bound", func(f *certfile.File) { f.Claim = f.LB }},
		{"l0 lowered by 1e-12", "Phi is not proved", func(f *certfile.File) { f.L0 = scale(f.L0, 1e12-1, 1e12) }},
		{"l1 lowered 1%", "Phi is not proved", func(f *certfile.File) { f.L1 = scale(f.L1, 99, 100) }},
		{"l1 raised 1%", "below the checked bound", func(f *certfile.File) { f.L1 = scale(f.L1, 101, 100) }},
		{"l2 lowered 1%", "Phi is not proved", func(f *certfile.File) { f.L2 = scale(f.L2, 99, 100) }},
		{"l2 raised 1%", "below the checked bound", func(f *certfile.File) { f.L2 = scale(f.L2, 101, 100) }},
		{"l1 to 0", "Phi is not proved", func(f *certfile.File) { f.L1 = "0" }},
		{"l2 to 0", "Phi is not proved", func(f *certfile.File) { f.L2 = "0" }},
		{"l1 negative", "l1 = -", func(f *certfile.File) { f.L1 = "-" + f.L1 }},
		{"l2 negative", "l2 = -", func(f *certfile.File) { f.L2 = "-" + f.L2 }},
		{"eps raised", "Phi is not proved", func(f *certfile.File) { f.Eps = "2.01" }},
		{"delta raised", "below the checked bound", func(f *certfile.File) { f.Delta = "1.1e-6" }},
		{"eps_out lowered", "Phi is not proved", func(f *certfile.File) { f.EpsOut = "0.49" }},
		{"c lowered", "Phi is not proved", func(f *certfile.File) { f.C = "0.29" }},
		{"n raised with k", "Phi is not proved", func(f *certfile.File) { f.K, f.N = 31, 62 }},
		{"n raised with d", "Phi is not proved", func(f *certfile.File) { f.D, f.N = 3, 90 }},
		{"n alone changed", "is not d k", func(f *certfile.File) { f.N = 61 }},
		{"k alone changed", "is not d k", func(f *certfile.File) { f.K = 29 }},
		{"c at 1/2", "is not in (0, 1/2)", func(f *certfile.File) { f.C = "0.5" }},
		{"c zero", "is not in (0, 1/2)", func(f *certfile.File) { f.C = "0" }},
		{"eps negative", "eps = -1 is negative", func(f *certfile.File) { f.Eps = "-1" }},
		{"delta 1", "is not in [0, 1)", func(f *certfile.File) { f.Delta = "1" }},
		{"delta negative", "is not in [0, 1)", func(f *certfile.File) { f.Delta = "-1e-6" }},
		{"eps past the range", "beyond the checker's range", func(f *certfile.File) { f.Eps = "1048577" }},
		{"eps_out past the range", "beyond the checker's range", func(f *certfile.File) { f.EpsOut = "-1048577" }},
		{"n past the cap", "exceeds the checker's cap", func(f *certfile.File) { f.D, f.K, f.N = 1, MaxDeltaN+1, MaxDeltaN+1 }},
	} {
		f := *honest
		m.edit(&f)
		rep, err := Check(ctx, &f, nil)
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, m.why) {
			t.Errorf("%s: %+v, %v; want rejected: %q", m.name, rep, err, m.why)
		}
	}
	// A change in the safe direction leaves a true statement: accepted.
	for _, edit := range []func(f *certfile.File){
		func(f *certfile.File) { f.EpsOut = "0.51" },
		func(f *certfile.File) { f.C = "0.31" },
		func(f *certfile.File) { f.Claim = "0.7" },
		func(f *certfile.File) { f.D, f.K = 3, 20 }, // n = 60 is all that matters
	} {
		f := *honest
		edit(&f)
		if rep, err := Check(ctx, &f, nil); err != nil || !rep.Accepted {
			t.Errorf("safe change %+v: %+v, %v", f, rep, err)
		}
	}
	// delta' <= 1 always: a claim of 1 needs no proof.
	f := *honest
	f.Claim, f.L0 = "1", "-5"
	if rep, err := Check(ctx, &f, nil); err != nil || !rep.Accepted || rep.Bound != 1 {
		t.Errorf("claim 1: %+v, %v", rep, err)
	}
	for _, m := range []struct {
		name string
		edit func(f *certfile.File)
	}{
		{"no delta", func(f *certfile.File) { f.Delta = "" }},
		{"no eps_out", func(f *certfile.File) { f.EpsOut = "" }},
		{"no l2", func(f *certfile.File) { f.L2 = "" }},
		{"an order", func(f *certfile.File) { f.Alpha = "5" }},
		{"a slack", func(f *certfile.File) { f.Tau = "0" }},
		{"tiles", func(f *certfile.File) { f.Tiles = [][4]string{{"-inf", "0", "-inf", "inf"}} }},
		{"bad number", func(f *certfile.File) { f.EpsOut = "0.5.1" }},
		{"inf", func(f *certfile.File) { f.L0 = "inf" }},
		{"delta on a pure-dp file", func(f *certfile.File) { f.Kind, f.L0, f.L1, f.L2, f.EpsOut = certfile.KindPureDP, "", "", "", "" }},
	} {
		f := *honest
		m.edit(&f)
		if rep, err := Check(ctx, &f, nil); !errors.Is(err, ErrMalformed) || rep.Accepted {
			t.Errorf("%s: %+v, %v; want ErrMalformed", m.name, rep, err)
		}
	}
}

// TestDeltaPiecesHostile: values at the edges of the checker's range are
// answered without overflow or a panic: eps and eps' at +-2^20 (e^eps is
// 2^1.5e6), c = 1e-300, delta near 1, n at 10^4. With l1 = l2 = 0, Phi =
// H <= 1 (H_g of two distributions, g > 0, is at most 1): the vertex check
// passes with l0 = 1 + 1e-20 and fails with l0 = -0.1 (Phi(0, 1) = H(0,
// 1) > 0 at every point here).
func TestDeltaPiecesHostile(t *testing.T) {
	ctx := context.Background()
	for _, h := range []struct {
		n              int
		c, eps, epsOut string
	}{
		{21, "1e-300", "1048576", "1048576"}, {21, "0.4999999999999", "1048576", "-1048576"},
		{21, "1e-300", "0", "-1048576"}, {21, "0.1", "1e-300", "1e-300"}, {10000, "0.3", "1048576", "1048576"},
		{10000, "1e-300", "1e-300", "0"},
	} {
		args := []*big.Rat{bigRat(t, h.c), bigRat(t, h.eps), bigRat(t, h.epsOut), new(big.Rat), new(big.Rat)}
		for _, m := range []struct {
			l0     string
			accept bool
		}{{"1.00000000000000000001", true}, {"-0.1", false}} {
			v, phi, err := deltaVertices(ctx, h.n, args[0], args[1], args[2], args[3], args[4], bigRat(t, m.l0))
			if err != nil || (v < 0) != m.accept {
				t.Errorf("%+v, l0 %s: vertex %d (bound %v), %v; want accepted %v", h, m.l0, v, phi, err, m.accept)
			}
		}
	}
}

// BenchmarkDeltaPieces times the check of honest files at n = 20, 10^3
// and 10^5, and of a true file at n = 10 (delta 0, so l1 = l2 = 1000 cost
// nothing: Phi <= l0 where h(p, q) = h(q, p) = 0).
func BenchmarkDeltaPieces(b *testing.B) {
	n10 := &certfile.File{Format: certfile.Format, Version: certfile.Version, Kind: certfile.KindDeltaPieces,
		D: 1, K: 10, N: 10, C: "0.1", Eps: "1", Delta: "0", EpsOut: "0.5", Claim: "0.99999", LB: "0", L0: "0.99", L1: "1000", L2: "1000"}
	for _, bc := range []struct {
		n int
		f *certfile.File
	}{
		{10, n10},
		{20, deltaFile(b, "delta-d1-k20-c0.1-eps1-delta0.01-epsout1.json")},
		{1000, deltaFile(b, "delta-d1-k1000-c0.45-eps2-delta1e-06-epsout0.01.json")},
		{100000, deltaFile(b, "delta-d1-k100000-c0.499-eps2-delta1e-06-epsout0.01.json")},
	} {
		b.Run("n="+strconv.Itoa(bc.n), func(b *testing.B) {
			for b.Loop() {
				if rep, err := Check(context.Background(), bc.f, nil); err != nil || !rep.Accepted {
					b.Fatalf("%+v, %v", rep, err)
				}
			}
		})
	}
}
