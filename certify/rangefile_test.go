package certify_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/verify"
)

var updateRanges = flag.Bool("update-ranges", false, "rewrite the ranges certificates of ../testdata/verify")

// rangeCase is a point of ranges: symmetric ranges [c, 1-c] for each c of
// cs unless asym, where each range is [c, 1/2 + (1/2 - c)/2].
type rangeCase struct {
	cs         []float64
	k          int
	alpha, eps float64
	asym       bool
}

func (rc rangeCase) ranges() []bounds.Range {
	var r []bounds.Range
	for _, c := range rc.cs {
		hi := 1 - c
		if rc.asym {
			hi = 0.5 + (0.5-c)/2
		}
		r = append(r, bounds.Range{Lo: c, Hi: hi})
	}
	return r
}

// rangeTestdata are the points whose files are kept in ../testdata/verify
// (fixed inputs of the checker's tests: mutations, references).
var rangeTestdata = []rangeCase{
	{cs: []float64{0.1, 0.3}, k: 2, alpha: 5, eps: 1},
	{cs: []float64{0.05, 0.2, 0.4}, k: 1, alpha: 2, eps: 2},
	{cs: []float64{1e-4, 0.3}, k: 3, alpha: 1000, eps: 1},
}

// rangeCases are more points, checked on the fly: 2 and 3 groups, several
// k, alpha and eps, c_g down to 1e-4, alpha up to 1000, eps up to 50, a
// repeated c (a group of two coordinates) and asymmetric ranges.
var rangeCases = []rangeCase{
	{cs: []float64{0.1, 0.3}, k: 1, alpha: 5, eps: 1},
	{cs: []float64{0.1, 0.2, 0.2}, k: 3, alpha: 10, eps: 0.3},
	{cs: []float64{0.01, 0.3}, k: 2, alpha: 1.5, eps: 0.1},
	{cs: []float64{1e-4, 0.2, 0.45}, k: 2, alpha: 50, eps: 0.5},
	{cs: []float64{0.2, 0.4}, k: 5, alpha: 1000, eps: 0.2},
	{cs: []float64{1e-3, 0.1}, k: 4, alpha: 1.01, eps: 50},
	{cs: []float64{0.1, 0.3}, k: 2, alpha: 5, eps: 1, asym: true},
}

// rangeFile runs CertifyRanges with the tiling kept and returns its file.
func rangeFile(t *testing.T, rc rangeCase) (certify.Result, *certfile.File) {
	t.Helper()
	r, err := certify.CertifyRanges(context.Background(), rc.ranges(), rc.k, rc.alpha, rc.eps, &certify.Settings{Tiling: true})
	if err != nil {
		t.Fatal(err)
	}
	return r, r.File(len(rc.cs), rc.k)
}

// TestRangesCertificates: the file of every pieces proof of CertifyRanges
// with several c_l is a ranges certificate, stating exactly the run's
// proof (claim Upper, its groups, multipliers and tiles), and the
// independent checker accepts it.
func TestRangesCertificates(t *testing.T) {
	cases := append(append([]rangeCase(nil), rangeTestdata...), rangeCases...)
	for _, rc := range cases {
		r, f := rangeFile(t, rc)
		if r.Method != certify.MethodPieces {
			t.Errorf("%+v: method %s (upper %v, LB %v): no pieces proof to export", rc, r.Method, r.Upper, r.LB)
			continue
		}
		if f == nil || f.Kind != certfile.KindRanges {
			t.Fatalf("%+v: file %v", rc, f)
		}
		if len(f.Tiles) != len(r.Tiling) || f.Claim != certfile.Exact(r.Upper) || f.L1 != certfile.Num(r.L1) ||
			len(f.Groups) != len(r.Groups) || f.N != len(rc.cs)*rc.k {
			t.Errorf("%+v: the file is not the run's proof: %d tiles (run %d), claim %s (run %v)", rc, len(f.Tiles), len(r.Tiling), f.Claim, r.Upper)
		}
		for g, gr := range r.Groups {
			if f.Groups[g].N != gr.N || f.Groups[g].C != certfile.Exact(gr.C) {
				t.Errorf("%+v: group %d is %+v, run %+v", rc, g, f.Groups[g], gr)
			}
		}
		start := time.Now()
		rep, err := verify.Check(context.Background(), f, nil)
		secs := time.Since(start).Seconds()
		if err != nil || !rep.Accepted {
			t.Errorf("%+v: rejected: %q, %v", rc, rep.Failure, err)
			continue
		}
		if rep.Bound > r.Upper*(1+1e-12) {
			t.Errorf("%+v: checked bound %v above the claim %v", rc, rep.Bound, r.Upper)
		}
		t.Logf("%v k %d alpha %v eps %v: %d groups, %d tiles, solver %.3fs, checker %.3fs, claim %.12g, LB %.12g",
			rc.cs, rc.k, rc.alpha, rc.eps, len(f.Groups), len(f.Tiles), r.Seconds, secs, r.Upper, r.LB)
	}
	// Without Settings.Tiling there is no file; with one c there is the
	// pieces file.
	r, err := certify.CertifyRanges(context.Background(), rangeCases[0].ranges(), 1, 5, 1, nil)
	if err != nil || r.File(2, 1) != nil {
		t.Errorf("no tiling: file %v, %v", r.File(2, 1), err)
	}
	_, f := rangeFile(t, rangeCase{cs: []float64{0.1, 0.1}, k: 2, alpha: 5, eps: 1})
	if f == nil || f.Kind != certfile.KindPieces || f.N != 4 {
		t.Errorf("equal c: file %+v", f)
	}
}

// TestWriteRangesTestdata writes the files of rangeTestdata when run with
// -update-ranges.
func TestWriteRangesTestdata(t *testing.T) {
	if !*updateRanges {
		t.Skip("run with -update-ranges to rewrite the ranges certificates of ../testdata/verify")
	}
	dir := filepath.Join("..", "testdata", "verify")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rc := range rangeTestdata {
		_, f := rangeFile(t, rc)
		if f == nil {
			t.Fatalf("%+v: no file", rc)
		}
		if _, err := f.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkRangesCheck times, side by side, CertifyRanges (with the
// tiling kept) and the checker on its file, at the points of
// rangeTestdata and two of rangeCases.
func BenchmarkRangesCheck(b *testing.B) {
	cases := append(append([]rangeCase(nil), rangeTestdata...), rangeCases[1], rangeCases[4])
	for _, rc := range cases {
		name := fmt.Sprintf("c%v-k%d-alpha%v-eps%v", rc.cs, rc.k, rc.alpha, rc.eps)
		r, err := certify.CertifyRanges(context.Background(), rc.ranges(), rc.k, rc.alpha, rc.eps, &certify.Settings{Tiling: true})
		f := r.File(len(rc.cs), rc.k)
		if err != nil || f == nil {
			b.Fatalf("%s: %v, no file", name, err)
		}
		b.Run(name+"/solver", func(b *testing.B) {
			for range b.N {
				if _, err := certify.CertifyRanges(context.Background(), rc.ranges(), rc.k, rc.alpha, rc.eps, &certify.Settings{Tiling: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/checker", func(b *testing.B) {
			for range b.N {
				if rep, err := verify.Check(context.Background(), f, nil); err != nil || !rep.Accepted {
					b.Fatal(rep.Failure, err)
				}
			}
		})
	}
}
