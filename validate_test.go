package bernamp

import (
	"context"
	"errors"
	"github.com/bernamp/bernamp/check"
	"math"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certify"
)

// certifyCounts returns the points built and the checks run by the
// certificate's own entry on the point (certify.Certify, or
// certify.CertifyRanges for ranges), which still takes floats and checks
// them: Post must add nothing to them but its one point.
func certifyCounts(t *testing.T, run func() error) (points, checks int64) {
	t.Helper()
	check.ResetCounts()
	if err := run(); err != nil {
		t.Fatal(err)
	}
	return check.Counts.Points.Load(), check.Counts.Checks.Load()
}

// TestValidatedOnce: one call of Post (Bounds, Params.Validate, PostRanges,
// BoundsRanges) builds one valid point (check.ValidPoint,
// bounds.RangePoint), and no layer below checks it again: no function of
// package check and no float-argument entry of package bounds runs on the
// way, except inside the ranges' certificate entry (certifyCounts). The walk used
// to call check.Point up to 3 times, check.D to Eps 15 times and bounds'
// checks 4 + 44 + 9 times on one d = 1 point. Not parallel: the counts are
// global.
func TestValidatedOnce(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		p       Params
		s       *Settings
		certify bool // the pieces certificate runs
	}{
		{"d 1 bounds only", Params{D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 1}, &Settings{BoundsOnly: true}, false},
		{"d 1 k 1 search", Params{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1}, &Settings{NoCertify: true}, false},
		{"d 1 search", Params{D: 1, K: 3, C: 0.1, Alpha: 5, Eps: 1}, &Settings{NoCertify: true}, false},
		{"d 3 search", Params{D: 3, K: 2, C: 0.01, Alpha: 50, Eps: 1}, &Settings{NoCertify: true}, false},
		{"d 2 search full", Params{D: 2, K: 3, C: 0.1, Alpha: 5, Eps: 2}, &Settings{NoCertify: true, Method: "full"}, false},
		{"alpha near 1", Params{D: 3, K: 2, C: 0.1, Alpha: 1 + 1e-12, Eps: 2}, nil, false},
		{"eps 0", Params{D: 2, K: 2, C: 0.1, Alpha: 5, Eps: 0}, nil, false},
		{"huge eps", Params{D: 2, K: 2, C: 0.1, Alpha: 5, Eps: 1e300}, nil, false},
		{"d 1 default", Params{D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 1}, nil, true},
		{"d 3 default", Params{D: 3, K: 2, C: 0.01, Alpha: 50, Eps: 1}, nil, true},
		{"d 2 checked", Params{D: 2, K: 3, C: 0.1, Alpha: 5, Eps: 2}, &Settings{Check: true}, true},
	} {
		// The certificate takes Post's point (certify.CertifyAt): one point,
		// no check, with or without it.
		countPost(t, tc.name, tc.certify, 1, 0, func() (Result, error) { return Post(ctx, tc.p, tc.s) })
	}

	sym, mixed := []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.1, Hi: 0.9}}, []bounds.Range{{Lo: 0.1, Hi: 0.9}, {Lo: 0.2, Hi: 0.6}}
	for _, tc := range []struct {
		name    string
		ranges  []bounds.Range
		s       *Settings
		certify bool
	}{
		{"ranges bounds only", mixed, &Settings{BoundsOnly: true}, false},
		{"ranges search", mixed, &Settings{NoCertify: true}, false},
		{"symmetric ranges search", sym, &Settings{NoCertify: true}, false},
		{"ranges default", mixed, nil, true},
		{"symmetric ranges default", sym, nil, true},
	} {
		wantPoints, wantChecks := int64(1), int64(0)
		if tc.certify {
			p, c := certifyCounts(t, func() error {
				_, err := certify.CertifyRanges(ctx, tc.ranges, 2, 5, 1, pieceSettings(orDefault(tc.s), tc.s.tol()))
				return err
			})
			wantPoints += p
			wantChecks += c
		}
		countPost(t, tc.name, tc.certify, wantPoints, wantChecks, func() (Result, error) { return PostRanges(ctx, tc.ranges, 2, 5, 1, tc.s) })
	}

	for _, tc := range []struct {
		name string
		f    func() error
	}{
		{"Bounds", func() error { _, err := Bounds(Params{D: 4, K: 5, C: 0.2, Alpha: 3, Eps: 0.5}); return err }},
		{"Validate", func() error { return Params{D: 4, K: 5, C: 0.2, Alpha: 3, Eps: 0.5}.Validate() }},
		{"BoundsRanges", func() error { _, err := BoundsRanges(mixed, 3, 5, 1); return err }},
		{"Post, bad point", func() error {
			_, err := Post(ctx, Params{D: 4, K: 5, C: 0.2, Alpha: 3, Eps: math.NaN()}, nil)
			if err == nil {
				t.Error("Post: NaN eps accepted")
			}
			return nil
		}},
	} {
		check.ResetCounts()
		if err := tc.f(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if points, checks := check.Counts.Points.Load(), check.Counts.Checks.Load(); points != 1 || checks != 0 {
			t.Errorf("%s: %d points built and %d more checks, want 1 and 0", tc.name, points, checks)
		}
	}
}

// TestEntryPointsReject: Post, Bounds and Params.Validate return an error,
// with the message of package check, for NaN, ±Inf and every edge of each
// parameter's domain, d k past 2^53 included; no bad point reaches the
// engines (which would panic or return a NaN).
func TestEntryPointsReject(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	good := Params{D: 2, K: 3, C: 0.1, Alpha: 5, Eps: 1}
	type bad struct {
		p    Params
		want string
	}
	var cases []bad
	for _, d := range []int{0, -1} {
		q := good
		q.D = d
		cases = append(cases, bad{q, "d is"})
		q = good
		q.K = d
		cases = append(cases, bad{q, "k is"})
	}
	for _, c := range []float64{0, 0.5, -0.1, 1, nan, inf, -inf} {
		q := good
		q.C = c
		cases = append(cases, bad{q, "c is"})
	}
	for _, a := range []float64{1, 0.5, -1, nan, inf, -inf} {
		q := good
		q.Alpha = a
		cases = append(cases, bad{q, "alpha is"})
	}
	for _, e := range []float64{-1e-300, -1, nan, inf, -inf} {
		q := good
		q.Eps = e
		cases = append(cases, bad{q, "eps is"})
	}
	cases = append(cases, bad{Params{D: 1 << 27, K: 1<<26 + 1, C: 0.1, Alpha: 5, Eps: 1}, "d k is"},
		bad{Params{D: 1 << 40, K: 1 << 40, C: 0.1, Alpha: 5, Eps: 1}, "d k is"})
	for _, b := range cases {
		for name, f := range map[string]func() error{
			"Post":     func() error { _, err := Post(context.Background(), b.p, nil); return err },
			"Bounds":   func() error { _, err := Bounds(b.p); return err },
			"Validate": b.p.Validate,
			"PostRanges": func() error {
				if b.p.C != good.C || b.p.D != good.D {
					return errors.New(b.want) // no c or d in PostRanges
				}
				_, err := PostRanges(context.Background(), bounds.Symmetric(2, 0.1), b.p.K, b.p.Alpha, b.p.Eps, nil)
				return err
			},
		} {
			err := f()
			if err == nil || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s(%+v) = %v, want an error with %q", name, b.p, err, b.want)
			}
		}
	}
}

// countPost runs post, which must succeed and run the pieces certificate
// exactly when certify, and checks that it built points valid points and ran
// checks more checks.
func countPost(t *testing.T, name string, certify bool, points, checks int64, post func() (Result, error)) {
	t.Helper()
	check.ResetCounts()
	r, err := post()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if certify != (r.Pieces != nil) {
		t.Errorf("%s: pieces %+v, want a certificate %t", name, r.Pieces, certify)
	}
	if p, c := check.Counts.Points.Load(), check.Counts.Checks.Load(); p != points || c != checks {
		t.Errorf("%s: %d points built and %d more checks, want %d and %d", name, p, c, points, checks)
	}
}

// orDefault returns s, or the default settings for nil.
func orDefault(s *Settings) *Settings {
	if s == nil {
		return &Settings{}
	}
	return s
}
