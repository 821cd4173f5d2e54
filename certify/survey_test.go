package certify

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

// TestSurveyPointsDeterministic: the same seed gives the same points, a
// shorter run is a prefix of a longer one, and another seed differs.
func TestSurveyPointsDeterministic(t *testing.T) {
	t.Parallel()
	a, err := SurveyPoints(DefaultSurveyBox, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SurveyPoints(DefaultSurveyBox, 500, 1)
	if !reflect.DeepEqual(a, b) {
		t.Error("two draws with seed 1 differ")
	}
	p, _ := SurveyPoints(DefaultSurveyBox, 37, 1)
	if !reflect.DeepEqual(p, a[:37]) {
		t.Error("37 points with seed 1 are not the first 37 of 500")
	}
	c, _ := SurveyPoints(DefaultSurveyBox, 500, 2)
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 1 and 2 share %d of 500 points", same)
	}
	if z, err := SurveyPoints(DefaultSurveyBox, 0, 1); err != nil || len(z) != 0 {
		t.Errorf("count 0: %v, %v; want no points and no error", z, err)
	}
}

// TestSurveyPointsInBox draws from the default box, a narrow box and a box
// of single values, and checks every coordinate against its bounds and
// Certify's domain.
func TestSurveyPointsInBox(t *testing.T) {
	t.Parallel()
	for _, box := range []SurveyBox{
		DefaultSurveyBox,
		{NMin: 7, NMax: 9, CMin: 0.2, CMax: 0.21, AlphaMin: 1.0001, AlphaMax: 1.0002, EpsMin: 3, EpsMax: 3.5},
		{NMin: 5, NMax: 5, CMin: 0.1, CMax: 0.1, AlphaMin: 5, AlphaMax: 5, EpsMin: 1, EpsMax: 1},
		{NMin: 1, NMax: MaxN, CMin: 1e-12, CMax: 0.4999999, AlphaMin: 1 + 1e-9, AlphaMax: 1e6, EpsMin: 1e-9, EpsMax: 1e3},
	} {
		pts, err := SurveyPoints(box, 2000, 3)
		if err != nil {
			t.Fatalf("%+v: %v", box, err)
		}
		ns := map[int]bool{}
		for _, p := range pts {
			ns[p.N] = true
			if p.N < box.NMin || p.N > box.NMax || p.C < box.CMin || p.C > box.CMax ||
				p.Alpha < box.AlphaMin || p.Alpha > box.AlphaMax || p.Eps < box.EpsMin || p.Eps > box.EpsMax {
				t.Fatalf("%+v: point %+v outside the box", box, p)
			}
			if !(p.Alpha > 1) || !(p.C > 0 && p.C < 0.5) || !(p.Eps > 0) {
				t.Fatalf("%+v: point %+v outside Certify's domain", box, p)
			}
		}
		if box.NMin == 7 && len(ns) != 3 {
			t.Errorf("n in 7..9: drew %v, want all three", ns)
		}
	}
}

// TestSurveyPointsSpread checks the log-uniform spread on 20,000 points of
// the default box: each coordinate falls below the geometric mean of its
// ends (for alpha, 1 + that of alpha - 1) about half the time. For n,
// P(n <= 99) = log(100)/log(10001) = 0.49999. One fraction has standard
// deviation 0.0036, so 0.02 is 5.6 of them.
func TestSurveyPointsSpread(t *testing.T) {
	t.Parallel()
	const count = 20_000
	b := DefaultSurveyBox
	pts, err := SurveyPoints(b, count, 1)
	if err != nil {
		t.Fatal(err)
	}
	nMid := math.Sqrt(float64(b.NMin) * float64(b.NMax)) // 100
	cMid := math.Sqrt(b.CMin * b.CMax)
	aMid := 1 + math.Sqrt((b.AlphaMin-1)*(b.AlphaMax-1))
	eMid := math.Sqrt(b.EpsMin * b.EpsMax)
	var below [4]int
	var n1, nTop int // n = 1 and n in [5000, 10^4]
	for _, p := range pts {
		for i, lo := range []bool{float64(p.N) < nMid, p.C < cMid, p.Alpha < aMid, p.Eps < eMid} {
			if lo {
				below[i]++
			}
		}
		if p.N == 1 {
			n1++
		}
		if p.N >= 5000 {
			nTop++
		}
	}
	for i, name := range []string{"n", "c", "alpha", "eps"} {
		if f := float64(below[i]) / count; math.Abs(f-0.5) > 0.02 {
			t.Errorf("%s: %.4f of the points below the geometric mean, want 0.5", name, f)
		}
	}
	// P(n = 1) = log 2 / log 10001 = 0.0753 and P(n >= 5000) = log(10001/5000)
	// / log 10001 = 0.0753: a log-uniform n gives both ends the same weight.
	for name, k := range map[string]int{"n = 1": n1, "n >= 5000": nTop} {
		if f := float64(k) / count; math.Abs(f-0.0753) > 0.01 {
			t.Errorf("%s: fraction %.4f, want 0.0753", name, f)
		}
	}
}

func TestSurveyPointsBadBox(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	d := DefaultSurveyBox
	for _, tc := range []struct {
		name string
		edit func(b *SurveyBox)
	}{
		{"n min 0", func(b *SurveyBox) { b.NMin = 0 }},
		{"n min > max", func(b *SurveyBox) { b.NMin, b.NMax = 10, 9 }},
		{"n max > MaxN", func(b *SurveyBox) { b.NMax = MaxN + 1 }},
		{"c min 0", func(b *SurveyBox) { b.CMin = 0 }},
		{"c max 0.5", func(b *SurveyBox) { b.CMax = 0.5 }},
		{"c min > max", func(b *SurveyBox) { b.CMin, b.CMax = 0.3, 0.2 }},
		{"c NaN", func(b *SurveyBox) { b.CMax = nan }},
		{"alpha min 1", func(b *SurveyBox) { b.AlphaMin = 1 }},
		{"alpha max Inf", func(b *SurveyBox) { b.AlphaMax = inf }},
		{"alpha NaN", func(b *SurveyBox) { b.AlphaMin = nan }},
		{"alpha min > max", func(b *SurveyBox) { b.AlphaMin, b.AlphaMax = 3, 2 }},
		{"eps min 0", func(b *SurveyBox) { b.EpsMin = 0 }},
		{"eps max Inf", func(b *SurveyBox) { b.EpsMax = inf }},
		{"eps NaN", func(b *SurveyBox) { b.EpsMax = nan }},
		{"eps min > max", func(b *SurveyBox) { b.EpsMin = 60 }},
	} {
		b := d
		tc.edit(&b)
		if pts, err := SurveyPoints(b, 10, 1); !errors.Is(err, ErrInput) || pts != nil {
			t.Errorf("%s: %v, %v; want ErrInput and no points", tc.name, len(pts), err)
		}
	}
	if _, err := SurveyPoints(d, -1, 1); !errors.Is(err, ErrInput) {
		t.Errorf("count -1: %v, want ErrInput", err)
	}
	if d != DefaultSurveyBox {
		t.Error("DefaultSurveyBox changed")
	}
}
