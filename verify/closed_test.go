package verify

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// closedRefs are n r_alpha(c) at 30 digits from mpmath at 60 digits
// (r(p, a) = log(p^a (1-p)^(1-a) + (1-p)^a p^(1-a)) / (a - 1), as in
// ../shared/tools/hpref.py), made for this test.
var closedRefs = []struct {
	d, k     int
	c, alpha string
	ref      string
}{
	{1, 1, "0.1", "5", "2.17088444906705650457910661239"},
	{15, 1, "0.01", "50", "68.9237211185943076452813427595"},
	{1000, 1000, "1e-6", "1000", "13815509.556962772602272779976"},
	{1, 1, "0.4999", "1.001", "0.0000000800800010655957567800898476753"},
	{3, 7, "0.3", "1e6", "17.7932475779499629932194057787"},
	{2, 5, "0.25", "1.5", "7.33969175080200438971809186613"},
}

func closedFile(t *testing.T, d, k int, c, alpha, eps, claim string) *certfile.File {
	t.Helper()
	f := &certfile.File{Format: certfile.Format, Version: certfile.Version, Kind: certfile.KindClosedForm,
		D: d, K: k, N: d * k, C: c, Alpha: alpha, Eps: eps, Claim: claim, LB: "0"}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestClosedForm: with eps above the asymptote, a claim one part in 1e14
// above the reference n r_alpha(c) is accepted and one part in 1e14 below
// it rejected (the enclosure is that tight at every point, c down to 1e-6,
// alpha up to 1e6, n up to 1e6); the checked bound brackets the reference.
// A claim at eps is accepted whatever the asymptote (data processing).
func TestClosedForm(t *testing.T) {
	for _, tc := range closedRefs {
		ref, _ := strconv.ParseFloat(tc.ref, 64)
		eps := strconv.FormatFloat(2*ref, 'g', -1, 64)
		above := strconv.FormatFloat(ref*(1+1e-14), 'g', -1, 64)
		below := strconv.FormatFloat(ref*(1-1e-14), 'g', -1, 64)
		rep, err := Check(context.Background(), closedFile(t, tc.d, tc.k, tc.c, tc.alpha, eps, above), nil)
		if err != nil || !rep.Accepted {
			t.Errorf("%+v: claim %s above the reference: %+v, %v", tc, above, rep, err)
		}
		if !(rep.Bound >= ref*(1-1e-15) && rep.Bound <= ref*(1+1e-14)) {
			t.Errorf("%+v: bound %v, reference %s", tc, rep.Bound, tc.ref)
		}
		rep, err = Check(context.Background(), closedFile(t, tc.d, tc.k, tc.c, tc.alpha, eps, below), nil)
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, "below the checked bound") {
			t.Errorf("%+v: claim %s below the reference: %+v, %v", tc, below, rep, err)
		}
		// eps below the asymptote: a claim of exactly eps is data processing.
		half := strconv.FormatFloat(ref/2, 'g', -1, 64)
		rep, err = Check(context.Background(), closedFile(t, tc.d, tc.k, tc.c, tc.alpha, half, half), nil)
		if err != nil || !rep.Accepted || rep.Bound != ref/2 {
			t.Errorf("%+v: claim = eps = %s: %+v, %v", tc, half, rep, err)
		}
	}
}

// TestClosedFormMutations: an honest closed-form file, mutated in each
// field the claim depends on, is rejected for the stated reason.
func TestClosedFormMutations(t *testing.T) {
	// d 2, k 5, c 0.25, alpha 1.5: n r = 7.3397; eps 10 > n r.
	honest := func() *certfile.File { return closedFile(t, 2, 5, "0.25", "1.5", "10", "7.33969175080201") }
	if rep, err := Check(context.Background(), honest(), nil); err != nil || !rep.Accepted {
		t.Fatalf("honest file: %+v, %v", rep, err)
	}
	for _, m := range []struct {
		name, why string
		edit      func(f *certfile.File)
	}{
		{"claim lowered", "below the checked bound", func(f *certfile.File) { f.Claim = "7.3396917508020" }},
		{"claim lowered a little", "below the checked bound", func(f *certfile.File) { f.Claim = "7.339691750802004" }},
		{"d raised", "below the checked bound", func(f *certfile.File) { f.D, f.N = 3, 15 }},
		{"k raised", "below the checked bound", func(f *certfile.File) { f.K, f.N = 6, 12 }},
		{"n changed", "is not d k", func(f *certfile.File) { f.N = 9 }},
		{"c lowered", "below the checked bound", func(f *certfile.File) { f.C = "0.2499" }},
		{"c past 1/2", "is not in (0, 1/2)", func(f *certfile.File) { f.C = "0.5" }},
		{"c zero", "is not in (0, 1/2)", func(f *certfile.File) { f.C = "0" }},
		{"alpha raised", "below the checked bound", func(f *certfile.File) { f.Alpha = "1.5001" }},
		{"alpha 1", "is not > 1", func(f *certfile.File) { f.Alpha = "1" }},
		{"eps negative", "is negative", func(f *certfile.File) { f.Eps = "-1" }},
		{"eps lowered below the claim's asymptote", "below the checked bound", func(f *certfile.File) { f.Eps, f.Claim = "7", "6.99" }},
	} {
		f := honest()
		m.edit(f)
		rep, err := Check(context.Background(), f, nil)
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, m.why) {
			t.Errorf("%s: %+v, %v; want rejected: %q", m.name, rep, err, m.why)
		}
	}
}

// pureRefs are eps' = log((e^eps rho + 1)/(rho + e^eps)), log rho = n
// log((1-c)/c), at 30 digits from mpmath at 60 digits, made for this test.
var pureRefs = []struct {
	n      int
	c, eps string
	ref    string
}{
	{6, "0.1", "1", "0.999995577316084506972195295009"},
	{1, "0.4999", "0.001", "0.000000199999983333335666666331349258"},
	{1000000, "1e-6", "50", "50"},
	{10, "0.49999", "50", "0.000400000000053333333345979033345"},
	{3, "0.01", "1e-6", "0.000000999997938781820055309355557328"},
}

// TestPureDP: a claim one part in 1e14 above the reference is accepted and
// one part in 1e14 below rejected, from eps' = 2e-7 to eps' = 50 at n =
// 10^6 and c = 1e-6; eps = 0 gives 0; hostile values (c = 1e-999999, n at
// the cap) are answered without overflow; mutations are rejected for their
// reasons.
func TestPureDP(t *testing.T) {
	ctx := context.Background()
	file := func(n int, c, eps, claim string) *certfile.File {
		f := &certfile.File{Format: certfile.Format, Version: certfile.Version, Kind: certfile.KindPureDP,
			D: n, K: 1, N: n, C: c, Eps: eps, Claim: claim, LB: "0"}
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range pureRefs {
		ref, _ := strconv.ParseFloat(tc.ref, 64)
		for _, m := range []struct {
			claim  float64
			accept bool
		}{{ref * (1 + 1e-14), true}, {ref * (1 - 1e-14), false}} {
			rep, err := Check(ctx, file(tc.n, tc.c, tc.eps, strconv.FormatFloat(m.claim, 'g', -1, 64)), nil)
			if err != nil || rep.Accepted != m.accept || !m.accept && !strings.Contains(rep.Failure, "below the checked level") {
				t.Errorf("%+v claim %v: %+v, %v; want accepted %v", tc, m.claim, rep, err, m.accept)
			}
			if !(rep.Bound >= ref*(1-1e-15) && rep.Bound <= ref*(1+1e-14)) {
				t.Errorf("%+v: bound %v", tc, rep.Bound)
			}
		}
	}
	if rep, err := Check(ctx, file(3, "0.2", "0", "0"), nil); err != nil || !rep.Accepted {
		t.Errorf("eps 0: %+v, %v", rep, err)
	}
	// Hostile: rho = ((1-c)/c)^n past any float, eps tiny or huge.
	for _, h := range []struct{ c, eps, claim string }{{"1e-999999", "1e-300", "1e-300"}, {"1e-999999", "1e12", "1e12"}, {"0.4999999999999999999", "1e12", "1e-11"}} {
		rep, err := Check(ctx, file(MaxN, h.c, h.eps, h.claim), nil)
		if err != nil || !rep.Accepted {
			t.Errorf("hostile %+v: %+v, %v", h, rep, err)
		}
	}
	honest := func() *certfile.File { return file(6, "0.1", "1", "0.9999955773160899") }
	if rep, err := Check(ctx, honest(), nil); err != nil || !rep.Accepted {
		t.Fatalf("honest: %+v, %v", rep, err)
	}
	for _, m := range []struct {
		name, why string
		edit      func(f *certfile.File)
	}{
		{"claim lowered", "below the checked level", func(f *certfile.File) { f.Claim = "0.99999557731608" }},
		{"claim at eps' rounded down", "below the checked level", func(f *certfile.File) { f.Claim = "0.9999955773160845" }},
		{"eps raised", "below the checked level", func(f *certfile.File) { f.Eps = "1.0001" }},
		{"c lowered", "below the checked level", func(f *certfile.File) { f.C = "0.0999" }},
		{"d raised", "below the checked level", func(f *certfile.File) { f.D, f.N = 7, 7 }},
		{"k raised", "below the checked level", func(f *certfile.File) { f.K, f.N = 2, 12 }},
		{"n changed", "is not d k", func(f *certfile.File) { f.N = 5 }},
		{"c at 1/2", "is not in (0, 1/2)", func(f *certfile.File) { f.C = "0.5" }},
		{"eps negative", "is negative", func(f *certfile.File) { f.Eps = "-0.5" }},
		{"n past the cap", "exceeds the checker's cap", func(f *certfile.File) { f.D, f.N = MaxN+1, MaxN+1 }},
	} {
		f := honest()
		m.edit(f)
		rep, err := Check(ctx, f, nil)
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, m.why) {
			t.Errorf("%s: %+v, %v; want rejected: %q", m.name, rep, err, m.why)
		}
	}
}

// closedGroupRefs are min-free bounds sum_g n_g max(R(lo_g || hi_g),
// R(hi_g || lo_g)) of closed-form files with groups (a group {n, c} is
// the range [c, 1-c]), at 30 digits from mpmath at 60 digits, made for
// this test (R(a || b) = log(a^alpha b^(1-alpha) + (1-a)^alpha
// (1-b)^(1-alpha)) / (alpha - 1), written out directly).
var closedGroupRefs = []struct {
	d, k   int
	alpha  string
	groups []certfile.Group
	ref    string
}{
	{3, 2, "1000", []certfile.Group{{N: 2, C: "1e-4"}, {N: 4, C: "0.499"}}, "18.433714539335020679004334424"},
	{3, 1, "1.001", []certfile.Group{{N: 1, C: "0.01"}, {N: 1, C: "0.1"}, {N: 1, C: "0.3"}}, "6.60150252743018246011358970124"},
	{2, 5, "5", []certfile.Group{{N: 5, Lo: "0.1", Hi: "0.6"}, {N: 5, Lo: "0.2", Hi: "0.8"}}, "14.9728375400191599289153134962"},
	{4, 3, "50", []certfile.Group{{N: 3, Lo: "1e-4", Hi: "0.3"}, {N: 6, Lo: "0.25", Hi: "0.499"}, {N: 3, Lo: "0.4", Hi: "0.9"}}, "33.3511442109570796384826984144"},
	{3, 2, "2", []certfile.Group{{N: 2, C: "0.05"}, {N: 4, Lo: "0.2", Hi: "0.3"}}, "6.02908142326473828093648612505"},
	{2, 7, "1.001", []certfile.Group{{N: 7, Lo: "0.4", Hi: "0.45"}, {N: 7, C: "0.499"}}, "0.0361151484060220882504551077467"},
}

func closedGroupFile(t *testing.T, d, k int, alpha string, groups []certfile.Group, eps, claim string) *certfile.File {
	t.Helper()
	f := &certfile.File{Format: certfile.Format, Version: certfile.Version, Kind: certfile.KindClosedForm,
		D: d, K: k, N: d * k, Alpha: alpha, Eps: eps, Claim: claim, LB: "0", Groups: slices.Clone(groups)}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestClosedFormGroups: closed-form files with 2 and 3 groups ({n, c} and
// {n, lo, hi}; c_g from 1e-4 to 0.499, alpha from 1.001 to 1000) with eps
// 50 above the bound: a claim one part in 1e14 above the mpmath reference
// is accepted and one part in 1e14 below rejected, and the checked bound
// brackets the reference. With eps from 1e-3 to the bound, a claim of eps
// is accepted (data processing) and one a part in 1e9 below it rejected.
func TestClosedFormGroups(t *testing.T) {
	ctx := context.Background()
	for _, tc := range closedGroupRefs {
		ref, _ := strconv.ParseFloat(tc.ref, 64)
		above := strconv.FormatFloat(ref*(1+1e-14), 'g', -1, 64)
		below := strconv.FormatFloat(ref*(1-1e-14), 'g', -1, 64)
		rep, err := Check(ctx, closedGroupFile(t, tc.d, tc.k, tc.alpha, tc.groups, "50", above), nil)
		if err != nil || !rep.Accepted {
			t.Errorf("%+v: claim %s above the reference: %+v, %v", tc, above, rep, err)
		}
		if !(rep.Bound >= ref*(1-1e-15) && rep.Bound <= ref*(1+1e-14)) {
			t.Errorf("%+v: bound %v, reference %s", tc, rep.Bound, tc.ref)
		}
		rep, err = Check(ctx, closedGroupFile(t, tc.d, tc.k, tc.alpha, tc.groups, "50", below), nil)
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, "below the checked bound") {
			t.Errorf("%+v: claim %s below the reference: %+v, %v", tc, below, rep, err)
		}
		for _, eps := range []float64{1e-3, ref / 2} {
			e := strconv.FormatFloat(eps, 'g', -1, 64)
			rep, err = Check(ctx, closedGroupFile(t, tc.d, tc.k, tc.alpha, tc.groups, e, e), nil)
			if err != nil || !rep.Accepted || rep.Bound != eps {
				t.Errorf("%+v: claim = eps = %s: %+v, %v", tc, e, rep, err)
			}
			low := strconv.FormatFloat(eps*(1-1e-9), 'g', -1, 64)
			rep, err = Check(ctx, closedGroupFile(t, tc.d, tc.k, tc.alpha, tc.groups, e, low), nil)
			if err != nil || rep.Accepted || !strings.Contains(rep.Failure, "below the checked bound") {
				t.Errorf("%+v: eps %s, claim %s: %+v, %v", tc, e, low, rep, err)
			}
		}
	}
}

// TestClosedFormGroupsMutations: honest closed-form files with groups,
// mutated in each field the claim depends on, are rejected for the stated
// reason.
func TestClosedFormGroupsMutations(t *testing.T) {
	ctx := context.Background()
	// d 4, k 3, alpha 50, groups [1e-4, 0.3] x 3, [0.25, 0.499] x 6, [0.4,
	// 0.9] x 3: the bound is 33.35114421095708 (closedGroupRefs).
	ranges := func() *certfile.File {
		tc := closedGroupRefs[3]
		return closedGroupFile(t, tc.d, tc.k, tc.alpha, tc.groups, "50", "33.3511442109571")
	}
	// d 3, k 2, alpha 1000, groups c 1e-4 x 2, c 0.499 x 4: 18.43371453933502.
	coins := func() *certfile.File {
		tc := closedGroupRefs[0]
		return closedGroupFile(t, tc.d, tc.k, tc.alpha, tc.groups, "50", "18.433714539335021")
	}
	for _, honest := range []func() *certfile.File{ranges, coins} {
		if rep, err := Check(ctx, honest(), nil); err != nil || !rep.Accepted {
			t.Fatalf("honest file: %+v, %v", rep, err)
		}
	}
	for _, m := range []struct {
		name, why string
		honest    func() *certfile.File
		edit      func(f *certfile.File)
	}{
		{"claim lowered", "below the checked bound", ranges, func(f *certfile.File) { f.Claim = "33.35114421095707" }},
		{"claim lowered (c groups)", "below the checked bound", coins, func(f *certfile.File) { f.Claim = "18.43371453933501" }},
		{"n moved to the widest group", "below the checked bound", ranges, func(f *certfile.File) { f.Groups[0].N, f.Groups[1].N = 6, 3 }},
		{"n moved to the smallest c", "below the checked bound", coins, func(f *certfile.File) { f.Groups[0].N, f.Groups[1].N = 4, 2 }},
		{"lo lowered", "below the checked bound", ranges, func(f *certfile.File) { f.Groups[0].Lo = "9e-5" }},
		{"hi raised", "below the checked bound", ranges, func(f *certfile.File) { f.Groups[2].Hi = "0.95" }},
		{"c lowered", "below the checked bound", coins, func(f *certfile.File) { f.Groups[1].C = "0.49" }},
		{"groups merged", "below the checked bound", ranges, func(f *certfile.File) {
			f.Groups = []certfile.Group{f.Groups[0], {N: 9, Lo: "0.25", Hi: "0.9"}}
		}},
		{"groups merged (c groups)", "below the checked bound", coins, func(f *certfile.File) { f.Groups = []certfile.Group{{N: 6, C: "1e-4"}} }},
		{"groups reordered", "not above the previous group's", ranges, func(f *certfile.File) { f.Groups[0], f.Groups[1] = f.Groups[1], f.Groups[0] }},
		{"group split in two alike", "not above the previous group's", ranges, func(f *certfile.File) {
			f.Groups = []certfile.Group{f.Groups[0], {N: 3, Lo: "0.25", Hi: "0.499"}, {N: 3, Lo: "0.25", Hi: "0.499"}, f.Groups[2]}
		}},
		{"group duplicated", "not above the previous group's", ranges, func(f *certfile.File) { f.Groups = append(f.Groups, f.Groups[2]) }},
		{"group n raised", "sum to more than n", ranges, func(f *certfile.File) { f.Groups[2].N = 6 }},
		{"group duplicated, d raised", "not above the previous group's", ranges, func(f *certfile.File) {
			f.D, f.N = 5, 15
			f.Groups = append(f.Groups, f.Groups[2])
		}},
		{"group n lowered", "sum to 9, not n = d k = 12", ranges, func(f *certfile.File) { f.Groups[1].N = 3 }},
		{"d raised", "sum to 12, not n = d k = 15", ranges, func(f *certfile.File) { f.D, f.N = 5, 15 }},
		{"k raised", "not a positive multiple of k", ranges, func(f *certfile.File) { f.K, f.N = 4, 16 }},
		{"n changed", "is not d k", ranges, func(f *certfile.File) { f.N = 13 }},
		{"group n zero", "malformed", ranges, func(f *certfile.File) { f.Groups[2].N = 0 }},
		{"group n not a multiple of k", "not a positive multiple of k", ranges, func(f *certfile.File) { f.Groups[1].N = 5 }},
		{"lo above hi", "is not a range", ranges, func(f *certfile.File) { f.Groups[2].Lo, f.Groups[2].Hi = "0.9", "0.4" }},
		{"hi at 1", "is not a range", ranges, func(f *certfile.File) { f.Groups[2].Hi = "1" }},
		{"lo at 0", "is not a range", ranges, func(f *certfile.File) { f.Groups[0].Lo = "0" }},
		{"c at 1/2", "is not in (0, 1/2)", coins, func(f *certfile.File) { f.Groups[1].C = "0.5" }},
		{"alpha raised", "below the checked bound", ranges, func(f *certfile.File) { f.Alpha = "50.001" }},
		{"alpha raised (c groups)", "below the checked bound", coins, func(f *certfile.File) { f.Alpha = "1000.01" }},
		{"alpha 1", "is not > 1", ranges, func(f *certfile.File) { f.Alpha = "1" }},
		{"eps lowered below the claim", "below the checked bound", ranges, func(f *certfile.File) { f.Eps, f.Claim = "30", "29.99" }},
		{"eps negative", "is negative", coins, func(f *certfile.File) { f.Eps = "-1" }},
	} {
		f := m.honest()
		m.edit(f)
		rep, err := Check(ctx, f, nil)
		if m.name == "group n zero" {
			// n_g = 0 is malformed (Validate): the file is refused as such.
			if err == nil || !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: %+v, %v; want ErrMalformed", m.name, rep, err)
			}
			continue
		}
		if err != nil || rep.Accepted || !strings.Contains(rep.Failure, m.why) {
			t.Errorf("%s: %+v, %v; want rejected: %q", m.name, rep, err, m.why)
		}
	}
}
