package bernamp

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/solver"
)

// TestPostGuard: points past the exact engines' reach are answered by the
// closed forms with a note, without running the engines: orders near 1
// (solver.NearOne), a configuration search past solver.MaxSearchWork or
// the memory cap, k past solver.OneMaxK; LB <= PostUpper always, every
// value finite.
func TestPostGuard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    Params
		s    Settings
		note string // substring of Result.Note; "" means none
	}{
		// The point: solver.One used to fill gigabytes here.
		{"alpha 1+1e-7", Params{D: 1, K: 1, C: 0.1, Alpha: 1.0000001, Eps: 1}, Settings{}, "closed forms only"},
		{"alpha 1+1e-12", Params{D: 1, K: 1, C: 0.1, Alpha: 1 + 1e-12, Eps: 1}, Settings{}, "closed forms only"},
		{"alpha 1+1e-12 d 3", Params{D: 3, K: 2, C: 0.1, Alpha: 1 + 1e-12, Eps: 2}, Settings{}, "closed forms only"},
		{"search past reach", Params{D: 1000, K: 1, C: 0.45, Alpha: 5, Eps: 0.1}, Settings{NoCertify: true}, "witness search skipped"},
		{"memory cap", Params{D: 8, K: 4, C: 0.1, Alpha: 5, Eps: 2}, Settings{NoCertify: true, MaxMemory: 1 << 10}, "bytes"},
		{"k past One", Params{D: 1, K: solver.OneMaxK + 1, C: 0.4999, Alpha: 5, Eps: 1}, Settings{NoCertify: true}, "witness search skipped"},
		{"n past pieces", Params{D: 100_000_000, K: 1, C: 0.4999, Alpha: 5, Eps: 1}, Settings{}, "two-point pieces skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Post(context.Background(), tc.p, &tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Note, tc.note) || r.Note == "" {
				t.Errorf("note %q, want one containing %q", r.Note, tc.note)
			}
			if r.Search != nil || r.Pieces != nil && strings.Contains(tc.note, "closed forms") {
				t.Errorf("an engine ran: search %+v pieces %+v", r.Search, r.Pieces)
			}
			if r.Status != StatusBounds || r.Post != r.LB || r.PostUpper != r.UB {
				t.Errorf("status %s post %v post_upper %v, want bounds with LB %v, UB %v", r.Status, r.Post, r.PostUpper, r.LB, r.UB)
			}
			if r.Excess != 0 || r.Conjecture == ConjectureRefuted {
				t.Errorf("excess %v conjecture %s", r.Excess, r.Conjecture)
			}
			if want := bounds.Lower(tc.p.D, tc.p.K, tc.p.C, tc.p.Alpha, tc.p.Eps); r.LB != want {
				t.Errorf("LB %v, want bounds.Lower %v", r.LB, want)
			}
			w := r.Witness
			for _, v := range []float64{r.LB, r.UB, r.Post, r.PostUpper, w.Value, w.DivPQ, w.DivQP} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("non-finite value in %+v", r)
				}
			}
			if !(w.DivPQ <= tc.p.Eps*(1+1e-12)) {
				t.Errorf("witness div_pq %v above eps %v", w.DivPQ, tc.p.Eps)
			}
		})
	}
}

// TestPostHugeEps: as eps grows without bound, p* -> 0 and the Theorem 4
// pair tends to the point masses on 0^d and 1^d, whose outputs differ by
// d k r_alpha(c) (additivity over the d k independent flips): LB and Post
// tend to the asymptote. At eps = 1e300 and the largest float64 the answer
// is certified, LB within 1e-13 relative of UBAsymptote, every value finite.
func TestPostHugeEps(t *testing.T) {
	t.Parallel()
	for _, eps := range []float64{800, 1e10, 1e300, math.MaxFloat64} {
		for _, p := range []Params{{D: 1, K: 1, C: 0.1, Alpha: 5}, {D: 3, K: 2, C: 0.3, Alpha: 1.01}, {D: 1, K: 50, C: 0.01, Alpha: 50}} {
			p.Eps = eps
			r, err := Post(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != StatusCertified || r.UB != r.UBAsymptote {
				t.Errorf("%+v: status %s UB %v asymptote %v", p, r.Status, r.UB, r.UBAsymptote)
			}
			if e := (r.UBAsymptote - r.LB) / r.UBAsymptote; !(e >= 0 && e <= 1e-13) {
				t.Errorf("%+v: LB %v is %.2g relative below the asymptote %v", p, r.LB, e, r.UBAsymptote)
			}
			w := r.Witness
			for _, v := range []float64{r.Post, r.PostUpper, w.Value, w.DivPQ, w.DivQP, w.P[0], w.Q[0]} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%+v: non-finite value in the result", p)
				}
			}
		}
	}
}
