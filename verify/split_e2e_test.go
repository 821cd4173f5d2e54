package verify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/verify"
)

// TestSplitPairedEndToEnd: the solver's certificates at points whose
// tiles near the diagonal the solver closes by its split-paired
// enclosure are accepted by the checker, which with its own splitPaired
// splits no more tiles than without it, and fewer at one point at least
// (both in the same run; the boxes and times are logged).
func TestSplitPairedEndToEnd(t *testing.T) {
	fewer := false
	for _, p := range []benchPoint{{15, 0.1, 50, 0.1}, {2, 0.01, 50, 0.1}, {30, 0.4, 500, 0.005}} {
		with, without := offOnCheck(t, p, "splitPaired", verify.SetNoSplitPaired, nil)
		if with.Split > without.Split {
			t.Errorf("%+v: %d tiles split with splitPaired, %d without", p, with.Split, without.Split)
		}
		fewer = fewer || with.Split < without.Split
	}
	if !fewer {
		t.Error("splitPaired never spared a split")
	}
}

// offOnCheck checks the solver's certificate at p with the checker's
// bound name on and off (set: its knob), logs both, reports a rejection
// with it on, and returns the two reports.
func offOnCheck(t *testing.T, p benchPoint, name string, set func(bool) func(), o *verify.Options) (with, without verify.Report) {
	t.Helper()
	t0 := time.Now()
	f := solverFile(t, p.n, p.c, p.alpha, p.eps)
	cs := time.Since(t0)
	with, dw := checkOff(t, f, set, false, o)
	without, dwo := checkOff(t, f, set, true, o)
	t.Logf("%+v: %d tiles (certify %v); with %s %d extra boxes, %d split, %v; without, accepted %v, %d boxes bounded, %d split, %v",
		p, len(f.Tiles), cs.Round(time.Millisecond), name, extraBoxes(with), with.Split, dw.Round(time.Millisecond),
		without.Accepted, without.Boxes, without.Split, dwo.Round(time.Millisecond))
	if !with.Accepted {
		t.Errorf("%+v: rejected: %s", p, with.Failure)
	}
	return with, without
}

// checkOff checks f with a checker knob (set: SetNoSplitPaired,
// SetNoCurve) at off, restored after, and returns the report and the
// check's time.
func checkOff(t *testing.T, f *certfile.File, set func(bool) func(), off bool, o *verify.Options) (verify.Report, time.Duration) {
	t.Helper()
	defer set(off)()
	t0 := time.Now()
	rep, err := verify.Check(context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep, time.Since(t0)
}

// solverFile returns the solver's certificate at (n, c, alpha, eps) with
// d = n, k = 1 (certify.Certify with a tiling).
func solverFile(tb testing.TB, n int, c, alpha, eps float64) *certfile.File {
	tb.Helper()
	r, err := certify.Certify(context.Background(), n, c, alpha, eps, &certify.Settings{Tiling: true})
	if err != nil {
		tb.Fatal(err)
	}
	f := r.File(n, 1)
	if f == nil {
		tb.Fatalf("(%d, %g, %g, %g): no file (method %s, status %v)", n, c, alpha, eps, r.Method, r.Status)
	}
	return f
}

// extraBoxes returns the boxes that r's check bounded beyond the file's:
// its tiles outside the band and the band's boxes.
func extraBoxes(r verify.Report) int { return r.Boxes - (r.Tiles - r.InBand) - r.Band }

// BenchmarkCheckSplitPaired checks the solver's certificates of
// TestSplitPairedEndToEnd and two honest files of testdata/verify with
// and without splitPaired (sub-benchmarks side by side), and reports the
// extra boxes.
func BenchmarkCheckSplitPaired(b *testing.B) {
	files := benchFiles(b, []benchPoint{{15, 0.1, 50, 0.1}, {30, 0.4, 500, 0.005}},
		"d1-k1-c0.3-alpha50-eps1.json", "d1000-k1-c0.49-alpha5-eps1.json")
	benchOffOn(b, files, "noSplit", verify.SetNoSplitPaired)
}

// benchPoint is a point (n, c, alpha, eps) of the solver's certificates
// with d = n, k = 1.
type benchPoint struct {
	n             int
	c, alpha, eps float64
}

// benchFile is a certificate of a side-by-side benchmark, by name.
type benchFile struct {
	name string
	f    *certfile.File
}

// benchFiles returns the solver's certificates at the points and the
// named honest files of testdata/verify.
func benchFiles(b *testing.B, pts []benchPoint, names ...string) []benchFile {
	var files []benchFile
	for _, p := range pts {
		files = append(files, benchFile{fmt.Sprintf("n%d-c%g-alpha%g-eps%g", p.n, p.c, p.alpha, p.eps), solverFile(b, p.n, p.c, p.alpha, p.eps)})
	}
	for _, name := range names {
		f, err := certfile.ReadFile("../testdata/verify/" + name)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, benchFile{strings.TrimSuffix(name, ".json"), f})
	}
	return files
}

// benchOffOn checks each file with a bound of the checker on and off
// (set, a Set hook of export_test.go, named knob; sub-benchmarks side by
// side) and reports the extra boxes and the tiles split.
func benchOffOn(b *testing.B, files []benchFile, knob string, set func(bool) func()) {
	for _, fl := range files {
		for _, off := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/%s=%v", fl.name, knob, off), func(b *testing.B) {
				defer set(off)()
				var r verify.Report
				for b.Loop() {
					var err error
					if r, err = verify.Check(context.Background(), fl.f, nil); err != nil || !r.Accepted {
						b.Fatal(r.Failure, err)
					}
				}
				b.ReportMetric(float64(extraBoxes(r)), "extra-boxes")
				b.ReportMetric(float64(r.Split), "split")
			})
		}
	}
}
