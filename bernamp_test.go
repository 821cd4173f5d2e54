package bernamp

import (
	"context"
	"github.com/bernamp/bernamp/certfile"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certify"
)

func TestPostValidates(t *testing.T) {
	t.Parallel()
	for _, p := range []Params{
		{D: 0, K: 1, C: 0.1, Alpha: 5, Eps: 1},
		{D: 1, K: 0, C: 0.1, Alpha: 5, Eps: 1},
		{D: 1, K: 1, C: 0.5, Alpha: 5, Eps: 1},
		{D: 1, K: 1, C: 0.1, Alpha: 1, Eps: 1},
		{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: math.Inf(1)},
	} {
		if _, err := Post(context.Background(), p, nil); err == nil {
			t.Errorf("Post(%+v) gave no error", p)
		}
	}
	if _, err := Post(context.Background(), Params{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1}, &Settings{Tol: -1}); err == nil {
		t.Error("negative tol accepted")
	}
}

// The interval is ordered and finite at every point of a grid that spans
// the extremes.
func TestPostOrdered(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 2, 7} {
		// The certificate's reach is tested in package solver and by
		// TestPostCertifies; here the witness path runs at every extreme.
		set := &Settings{NoCertify: true}
		if d == 7 {
			set.BoundsOnly = true // the search at d = 7 is measured by benchmarks
		}
		for _, k := range []int{1, 3} {
			for _, c := range []float64{1e-6, 0.1, 0.49} {
				for _, alpha := range []float64{1.01, 5, 1000} {
					for _, eps := range []float64{0, 0.01, 1, 50} {
						p := Params{d, k, c, alpha, eps}
						r, err := Post(context.Background(), p, set)
						if err != nil {
							t.Fatal(err)
						}
						vals := []float64{r.LB, r.Post, r.PostUpper, r.UB}
						for _, v := range vals {
							if math.IsNaN(v) || math.IsInf(v, 0) {
								t.Fatalf("%+v: non-finite value in %v", p, vals)
							}
						}
						for i := 1; i < len(vals); i++ {
							if vals[i-1] > vals[i]*(1+1e-12)+1e-15 {
								t.Errorf("%+v: lb, post, post_upper, ub = %v not ordered", p, vals)
							}
						}
						// Without the certificate post_upper is the closed form; with it
						// every d = 1 point here is proved over the whole box.
						if r.PostUpper != r.UB {
							t.Errorf("%+v: post_upper %v without the certificate, want the closed form %v", p, r.PostUpper, r.UB)
						}
						if d == 1 {
							c, err := Post(context.Background(), p, nil)
							if err != nil {
								t.Fatal(err)
							}
							if c.Status != StatusCertified || c.PostUpper < r.Post || c.PostUpper > r.UB {
								t.Errorf("%+v: with the certificate %s, [%v, %v]; witness %v, ub %v", p, c.Status, c.Post, c.PostUpper, r.Post, r.UB)
							}
						}
					}
				}
			}
		}
	}
}

// For d >= 2 the pieces certificate tightens PostUpper from the closed form
// to within Tol of the witness at the paper's d = 2 and d = 3 points (over
// the whole box, also at k = 2), and --certify=false (NoCertify) leaves the
// closed form.
func TestPostCertifies(t *testing.T) {
	t.Parallel()
	for _, p := range []Params{
		{D: 2, K: 1, C: 0.1, Alpha: 5, Eps: 1},
		{D: 2, K: 2, C: 0.2, Alpha: 3, Eps: 1.3},
		{D: 3, K: 1, C: 0.2, Alpha: 4, Eps: 1.5},
	} {
		r, err := Post(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The pieces certificate is the one path to a proved upper side.
		if r.Status != StatusCertified || r.Pieces == nil || r.Pieces.N != p.D*p.K || !r.Pieces.Proved ||
			r.PostUpper-r.Post > 1e-9 || r.PostUpper < r.Post || r.PostUpper >= r.UB || r.Conjecture != ConjectureProved {
			t.Errorf("%+v: status %s, [%v, %v], ub %v, pieces %+v", p, r.Status, r.Post, r.PostUpper, r.UB, r.Pieces)
		}
		r, err = Post(context.Background(), p, &Settings{NoCertify: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusWitness || r.Pieces != nil || r.PostUpper != r.UB {
			t.Errorf("%+v without certificate: status %s, post_upper %v, ub %v", p, r.Status, r.PostUpper, r.UB)
		}
	}
}

// TestPostRanges checks per-coordinate ranges: [c, 1-c] ranges give Post's
// answers, an asymmetric range gives a verified witness above the Theorem 4
// pair (solver/ranges_test.go checks that value by brute force), and a
// search too large keeps the closed forms.
func TestPostRanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, p := range []Params{{D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 1}, {D: 2, K: 1, C: 0.3, Alpha: 50, Eps: 2}} {
		want, err := Post(ctx, p, &Settings{NoCertify: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := PostRanges(ctx, bounds.Symmetric(p.D, p.C), p.K, p.Alpha, p.Eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got.LB, want.LB, 1e-12) || !near(got.UB, want.UB, 1e-12) || !near(got.Post, want.Post, 1e-9) {
			t.Errorf("%+v: ranges give lb %v ub %v post %v, Post gives %v %v %v", p, got.LB, got.UB, got.Post, want.LB, want.UB, want.Post)
		}
		if got.D != p.D || got.C != 0 || len(got.Ranges) != p.D || got.Conjecture != "" {
			t.Errorf("%+v: result params %+v ranges %v conjecture %q", p, got.Params, got.Ranges, got.Conjecture)
		}
	}

	r, err := PostRanges(ctx, []bounds.Range{{Lo: 0.05, Hi: 0.5}}, 1, 2, 0.3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.LB <= r.Post && r.Post <= r.PostUpper && r.PostUpper <= r.UB) || r.Excess < 1e-4 || r.Status != StatusWitness {
		t.Errorf("asymmetric range: lb %v post %v post_upper %v ub %v excess %v status %s", r.LB, r.Post, r.PostUpper, r.UB, r.Excess, r.Status)
	}
	if w := r.Witness; w == nil || !near(w.Value, r.Post, 0) || w.DivPQ > 0.3*(1+1e-12) || w.DivQP > 0.3*(1+1e-12) {
		t.Errorf("asymmetric range: witness %+v", r.Witness)
	}

	// d = 6 is past the witness search: without certificates the closed
	// forms stay, with them the pieces certificate proves Post = LB.
	big := bounds.Symmetric(6, 0.1)
	r, err = PostRanges(ctx, big, 1, 5, 1, &Settings{NoCertify: true})
	if err != nil || r.Status != StatusBounds || r.Post != r.LB || r.PostUpper != r.UB || r.Witness != nil {
		t.Errorf("d = 6: %+v, %v; want the closed forms", r, err)
	}
	r, err = PostRanges(ctx, big, 1, 5, 1, &Settings{Check: true})
	if err != nil || r.Status != StatusCertified || r.Post != r.LB || r.PostUpper-r.LB > 1e-9 || r.PostUpper < r.LB || r.Pieces == nil ||
		r.Check.Status != CheckVerified || r.Certificate == nil || r.Certificate.D != 6 || r.Certificate.C != certfile.Exact(1-big[0].Hi) {
		t.Errorf("d = 6: %+v, %v; want Post = LB proved by the pieces certificate of [c_l, 1-c_l]^6 (c_l = 1-0.9 in float64), checked", r, err)
	}

	// Symmetric ranges with distinct c_l: the certificate's bound is above
	// the witness search's best pair (a real mechanism) and proves Post =
	// LB; the search alone leaves a gap to the closed form.
	mixed := []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.3, Hi: 0.7}}
	w, err := PostRanges(ctx, mixed, 2, 5, 0.5, &Settings{NoCertify: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err = PostRanges(ctx, mixed, 2, 5, 0.5, nil)
	if err != nil || r.Status != StatusCertified || r.PostUpper < w.Post || r.PostUpper-r.LB > 1e-9 || w.PostUpper-w.Post < 1e-3 || r.Check.Status != CheckOff {
		t.Errorf("mixed c: certified %+v (%v); witness search alone post %v post_upper %v", r, err, w.Post, w.PostUpper)
	}
	// Checked: distinct c_l have the ranges certificate, re-proved by the
	// checker; the bound is kept.
	r, err = PostRanges(ctx, mixed, 2, 5, 0.5, &Settings{Check: true})
	if err != nil || r.Status != StatusCertified || r.PostUpper-r.LB > 1e-9 || r.Check.Status != CheckVerified ||
		r.Certificate == nil || r.Certificate.Kind != certfile.KindRanges || len(r.Certificate.Groups) != 2 ||
		r.Certificate.Claim != certfile.Exact(r.PostUpper) || r.Method != MethodPiecesRanges {
		t.Errorf("mixed c, checked: %+v (%v); want the ranges certificate verified, post_upper its claim", r, err)
	}
	// A ranges certificate the checker rejects (its claim lowered below
	// the proved bound) is dropped: post_upper is UB.
	bad := r
	cf := *r.Certificate
	cf.Claim = certfile.Exact(r.LB)
	bad.Certificate, bad.Note = &cf, ""
	checkPieces(ctx, &Settings{Check: true}, 1e-9, &bad)
	if bad.PostUpper != bad.UB || bad.Check.Status != CheckRejected || bad.Certificate != nil || bad.Status == StatusCertified ||
		!strings.Contains(bad.Note, "did not accept") {
		t.Errorf("mixed c, a rejected certificate: post_upper %v (ub %v), check %+v, note %q", bad.PostUpper, bad.UB, bad.Check, bad.Note)
	}
	for _, ranges := range [][]bounds.Range{nil, {{Lo: 0.5, Hi: 0.5}}, {{Lo: 0, Hi: 0.5}}, {{Lo: 0.2, Hi: 1}}} {
		if _, err := PostRanges(ctx, ranges, 1, 5, 1, nil); err == nil {
			t.Errorf("ranges %v: no error", ranges)
		}
	}
}

// near reports whether a and b agree within rel relative.
func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// TestEqualN: by the lifting lemma the whole-box bound depends on (d, k)
// only through n = d k; the pieces certificate gives equal answers at
// (2, 3), (3, 2) and (6, 1), and LB agrees.
func TestEqualN(t *testing.T) {
	t.Parallel()
	var first Result
	for i, dk := range [][2]int{{6, 1}, {2, 3}, {3, 2}, {1, 6}} {
		r, err := Post(context.Background(), Params{D: dk[0], K: dk[1], C: 0.3, Alpha: 5, Eps: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Pieces == nil || !r.Pieces.Proved || r.Status != StatusCertified {
			t.Fatalf("d, k = %v: pieces %+v, status %s", dk, r.Pieces, r.Status)
		}
		if i == 0 {
			first = r
			continue
		}
		if r.Pieces.Upper != first.Pieces.Upper || math.Abs(r.LB-first.LB) > 1e-14 {
			t.Errorf("d, k = %v: pieces upper %v, lb %v; at (6, 1): %v, %v", dk, r.Pieces.Upper, r.LB, first.Pieces.Upper, first.LB)
		}
	}
}

// TestPostRangesClosedForm: a ranges row whose post_upper is UB has the
// closed-form certificate with groups (coordinates with equal ranges
// grouped, n_g = k times their number, in increasing (lo, hi)), its claim
// exactly UB, verified by the checker: asymmetric and symmetric ranges,
// UB at the asymptote and at eps, alpha from 1 + 1e-10 (closed forms only)
// to 1000, ends from 1e-4 to 0.9999. A lowered UB is rejected and never
// certified; more distinct ranges than a ranges certificate's groups still
// have the closed form's file.
func TestPostRangesClosedForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		ranges     []bounds.Range
		k          int
		alpha, eps float64
		n          []int
	}{
		{[]bounds.Range{{Lo: 0.05, Hi: 0.5}, {Lo: 0.1, Hi: 0.6}, {Lo: 0.05, Hi: 0.5}}, 2, 5, 50, []int{4, 2}},
		{[]bounds.Range{{Lo: 0.05, Hi: 0.5}, {Lo: 0.1, Hi: 0.6}}, 1, 5, 0.01, []int{1, 1}},
		{[]bounds.Range{{Lo: 0.4, Hi: 0.9999}, {Lo: 1e-4, Hi: 0.3}, {Lo: 0.2, Hi: 0.25}}, 3, 1000, 50, []int{3, 3, 3}},
		{[]bounds.Range{{Lo: 0.3, Hi: 0.4}, {Lo: 0.1, Hi: 0.9}}, 4, 1 + 1e-10, 1, []int{4, 4}},
		{bounds.Symmetric(6, 0.1), 1, 5, 1, []int{6}},
	} {
		r, err := PostRanges(ctx, tc.ranges, tc.k, tc.alpha, tc.eps, &Settings{NoCertify: true, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		f := r.Certificate
		if r.PostUpper != r.UB || r.Check.Status != CheckVerified || f == nil || f.Kind != certfile.KindClosedForm ||
			f.Claim != certfile.Exact(r.UB) || len(f.Groups) != len(tc.n) || f.C != "" {
			t.Errorf("%+v: post_upper %v ub %v check %+v certificate %+v", tc, r.PostUpper, r.UB, r.Check, f)
			continue
		}
		for g, n := range tc.n {
			if f.Groups[g].N != n {
				t.Errorf("%+v: groups %+v, want n %v", tc, f.Groups, tc.n)
			}
		}
		// Lowered below the checked sum (eps above it): rejected, never certified.
		bad := r
		bad.UB, bad.Eps, bad.Status, bad.Note = r.UBAsymptote*(1-1e-9), 2*r.UBAsymptote, StatusCertified, ""
		g, _ := closedFormRanges(&bad)
		closedForm(ctx, &Settings{Check: true}, g, &bad)
		if bad.Check.Status != CheckRejected || bad.Status == StatusCertified || !strings.Contains(bad.Note, "closed form") {
			t.Errorf("%+v: a rejected closed form gives check %+v status %s note %q", tc, bad.Check, bad.Status, bad.Note)
		}
	}
	// Unchecked: the file is attached, the check off.
	r, err := PostRanges(ctx, []bounds.Range{{Lo: 0.05, Hi: 0.5}}, 1, 2, 0.3, &Settings{NoCertify: true})
	if err != nil || r.Certificate == nil || r.Check.Status != CheckOff {
		t.Errorf("unchecked: %+v, %v", r, err)
	}
	// More distinct ranges than a ranges (pieces) certificate holds
	// (certfile.MaxRangeGroups): the closed form's file holds them all
	// (certfile.MaxClosedFormGroups is far above the 20 coordinates of
	// 2^20 outputs that bounds.RangeLower accepts), and it is verified.
	many := make([]bounds.Range, certfile.MaxRangeGroups+1)
	for l := range many {
		many[l] = bounds.Range{Lo: 0.01 * float64(l+1), Hi: 0.9}
	}
	r, err = PostRanges(ctx, many, 1, 5, 50, &Settings{NoCertify: true, Check: true})
	if err != nil || r.Certificate == nil || len(r.Certificate.Groups) != len(many) || r.Check.Status != CheckVerified {
		t.Errorf("%d distinct ranges: certificate %v check %+v note %q, %v", len(many), r.Certificate != nil, r.Check, r.Note, err)
	}
}

// The pieces bound for ranges is never below a verified witness (a real
// pair of distributions, found by solver.MaximizeRanges without the
// certificate), on random symmetric and asymmetric ranges.
func TestPostRangesPiecesAboveWitness(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(24, 5))
	for i := range 16 {
		d := 1 + rng.IntN(3)
		ranges := make([]bounds.Range, d)
		for l := range ranges {
			lo := 0.02 + 0.4*rng.Float64()
			hi := 1 - lo
			if i%2 == 1 { // asymmetric
				hi = lo + (1-lo)*(0.2+0.8*rng.Float64())
			}
			ranges[l] = bounds.Range{Lo: lo, Hi: hi}
		}
		k := 1 + rng.IntN(2)
		alpha := 1.5 + 20*rng.Float64()
		eps := 0.05 + 2*rng.Float64()
		w, err := PostRanges(ctx, ranges, k, alpha, eps, &Settings{NoCertify: true})
		if err != nil {
			t.Fatal(err)
		}
		r, err := PostRanges(ctx, ranges, k, alpha, eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Pieces == nil || r.PostUpper < w.Post || r.PostUpper > r.UB || r.Post < r.LB {
			t.Errorf("%v k %d alpha %v eps %v: pieces %+v post_upper %v, witness %v, ub %v", ranges, k, alpha, eps, r.Pieces, r.PostUpper, w.Post, r.UB)
		}
	}
}

// PiecesBoxes is the most boxes whose certify.MemoryBytes fits the cap,
// clamped to [100,000, 1,000,000]: 1,000,000 at the default 1 GiB.
func TestPiecesBoxes(t *testing.T) {
	if got := PiecesBoxes(0); got != 1_000_000 {
		t.Errorf("PiecesBoxes(0) = %d, want 1,000,000", got)
	}
	for _, mem := range []int64{1, 256 << 20, 400 << 20, 512 << 20, 600 << 20, DefaultMaxMemory, 10 << 30} {
		b := PiecesBoxes(mem)
		fits := certify.MemoryBytes(b) <= mem
		most := b == 1_000_000 || certify.MemoryBytes(b+1) > mem
		if b < 100_000 || b > 1_000_000 || (b > 100_000 && !fits) || !most {
			t.Errorf("PiecesBoxes(%d) = %d: MemoryBytes %d, next %d", mem, b, certify.MemoryBytes(b), certify.MemoryBytes(b+1))
		}
	}
}

// TestChecked: with Settings.Check, Post's certificate is the proof it found, re-proved
// by the independent checker (Check verified, the claim is PostUpper, the
// file deterministic); a certificate the checker rejects leaves PostUpper
// at UB with status not certified; without it the check is off and PostUpper the same.
func TestChecked(t *testing.T) {
	ctx := context.Background()
	for _, p := range []Params{{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1}, {D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 2.5}, {D: 3, K: 1, C: 0.3, Alpha: 50, Eps: 1}} {
		r, err := Post(ctx, p, &Settings{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusCertified || r.Method != MethodPieces || r.Check.Status != CheckVerified || r.Certificate == nil {
			t.Fatalf("%+v: status %s method %q check %+v certificate %v", p, r.Status, r.Method, r.Check, r.Certificate != nil)
		}
		if r.Check.Tiles != len(r.Certificate.Tiles) || r.Check.Tiles == 0 {
			t.Errorf("%+v: check saw %d tiles, the file has %d", p, r.Check.Tiles, len(r.Certificate.Tiles))
		}
		if claim, _ := strconv.ParseFloat(r.Certificate.Claim, 64); claim != r.PostUpper {
			t.Errorf("%+v: claim %v, post_upper %v", p, claim, r.PostUpper)
		}
		again, _ := Post(ctx, p, &Settings{Check: true})
		if !reflect.DeepEqual(r.Certificate, again.Certificate) {
			t.Errorf("%+v: two runs give different certificates", p)
		}
		off, _ := Post(ctx, p, nil)
		if off.Check.Status != CheckOff || off.PostUpper != r.PostUpper || off.Status != StatusCertified {
			t.Errorf("%+v: without Check: check %q post_upper %v status %s", p, off.Check.Status, off.PostUpper, off.Status)
		}
		// A rejected certificate: the claim lowered below the checked bound.
		bad := r
		f := *r.Certificate
		f.Claim = f.LB
		bad.Certificate = &f
		checkPieces(ctx, &Settings{Check: true}, 1e-9, &bad)
		if bad.Check.Status != CheckRejected || bad.PostUpper != bad.UB || bad.Status == StatusCertified || bad.Certificate != nil ||
			!strings.Contains(bad.Note, "claim") {
			t.Errorf("%+v: a rejected certificate gives check %+v post_upper %v (UB %v) status %s note %q", p, bad.Check, bad.PostUpper, bad.UB, bad.Status, bad.Note)
		}
	}
	// The closed form's certificate (kind closed-form) is checked too.
	for _, p := range []Params{{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 0}, {D: 15, K: 1, C: 0.01, Alpha: 50, Eps: 0.1}, {D: 2, K: 3, C: 0.1, Alpha: 5, Eps: 800}} {
		r, err := Post(ctx, p, &Settings{Check: true})
		if err != nil || r.Check.Status != CheckVerified || r.Certificate == nil || r.Certificate.Kind != certfile.KindClosedForm ||
			r.Status != StatusCertified || r.PostUpper != r.UB {
			t.Errorf("%+v: %v check %+v certificate %+v status %s post_upper %v ub %v", p, err, r.Check, r.Certificate, r.Status, r.PostUpper, r.UB)
			continue
		}
		if claim, _ := strconv.ParseFloat(r.Certificate.Claim, 64); claim != r.UB {
			t.Errorf("%+v: claim %v, ub %v", p, claim, r.UB)
		}
		// A closed form the checker rejects (UB lowered below n r_alpha(c)
		// and eps) is never certified.
		bad := r
		bad.UB, bad.Eps = r.UBAsymptote*(1-1e-9), 2*r.UBAsymptote
		closedForm(ctx, &Settings{Check: true}, certfile.NewClosedForm(bad.D, bad.K, bad.C, bad.Alpha, bad.Eps, bad.UB, bad.LB), &bad)
		if bad.Check.Status != CheckRejected || bad.Status == StatusCertified || !strings.Contains(bad.Note, "closed form") {
			t.Errorf("%+v: a rejected closed form gives check %+v status %s note %q", p, bad.Check, bad.Status, bad.Note)
		}
	}
}

// TestCheckTimeLimit: the check of a pieces certificate has a time limit
// of its own, Settings.Timeout: a check cut by it does not accept the
// certificate (PostUpper falls back to UB, the failure says why), one
// within it does, and a cancelled caller is not reported as the limit.
func TestCheckTimeLimit(t *testing.T) {
	ctx := context.Background()
	p := Params{D: 3, K: 1, C: 0.3, Alpha: 50, Eps: 1}
	r, err := Post(ctx, p, &Settings{Check: true})
	if err != nil || r.Check.Status != CheckVerified || r.Certificate == nil {
		t.Fatalf("%+v: %v check %+v", p, err, r.Check)
	}
	run := func(ctx context.Context, timeout time.Duration) Result {
		c := r
		checkPieces(ctx, &Settings{Check: true, Timeout: timeout}, 1e-9, &c)
		return c
	}
	if c := run(ctx, time.Hour); c.Check.Status != CheckVerified || c.PostUpper != r.PostUpper {
		t.Errorf("a check within its limit: %+v post_upper %v", c.Check, c.PostUpper)
	}
	cut := run(ctx, time.Nanosecond)
	if cut.Check.Status != CheckRejected || !strings.Contains(cut.Check.Failure, "time limit (1ns)") ||
		cut.PostUpper != r.UB || cut.Status == StatusCertified || !strings.Contains(cut.Note, "time limit") {
		t.Errorf("a check cut by its limit: %+v post_upper %v (UB %v) status %s note %q", cut.Check, cut.PostUpper, r.UB, cut.Status, cut.Note)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if c := run(cancelled, time.Hour); c.Check.Status != CheckRejected || strings.Contains(c.Check.Failure, "time limit") {
		t.Errorf("a cancelled check: %+v", c.Check)
	}
}
