package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The grid files are read as the CLI reads them: Figure 1 has 750 points in
// the order d, k, c, alpha, eps (eps fastest), eps 0.1 to 5 exactly as
// decimals; every 10th eps keeps 1, 2, 3, 4, 5.
func TestLoadGrid(t *testing.T) {
	g, err := loadGrid("fig1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.pts) != 750 || g.neps != 50 {
		t.Fatalf("fig1: %d points, %d eps", len(g.pts), g.neps)
	}
	first, last := g.pts[0], g.pts[len(g.pts)-1]
	if first.D != 1 || first.K != 1 || first.C != 0.01 || first.Alpha != 50 || first.Eps != 0.1 ||
		last.D != 15 || last.C != 0.3 || last.Eps != 5 || g.pts[2].Eps != 0.3 {
		t.Errorf("fig1: first %+v, last %+v, third eps %v", first, last, g.pts[2].Eps)
	}
	g, err = loadGrid("fig3", 10)
	if err != nil {
		t.Fatal(err)
	}
	var eps []float64
	for _, p := range g.pts[:5] {
		eps = append(eps, p.Eps)
	}
	if len(g.pts) != 15 || fmt.Sprint(eps) != "[1 2 3 4 5]" || g.pts[14].K != 4 || g.pts[14].D != 1 {
		t.Errorf("fig3 every 10: %d points, eps %v, last %+v", len(g.pts), eps, g.pts[14])
	}
	if _, err := loadGrid("nosuch", 1); err == nil {
		t.Errorf("a missing grid loaded")
	}
}

// The harness's smoke run: the seconds-long suite writes a report with the
// machine header, every experiment's section and its tables, and the file
// given by -out. It runs in -short mode too; the quick and full suites never
// run under go test.
func TestSmokeReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.md")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-smoke", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rep := stdout.String()
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != rep {
		t.Errorf("the file differs from stdout")
	}
	for _, want := range []string{"- machine: ", "- go: go", "| bounds.Lower | 1 |", "| 2 | 1 | 4 | 4 |",
		"| 3 | 1 | 8 |", "## Time", "Baseline misses: 0 of 1 points (1 with a certified reference); above our witness: 0.", "| 2 | ",
		// pieces: Figure 3, every 25th eps: 6 points, all proved.
		"| fig3 | 6 | 6 | 0 | ",
		// scaling: n = 10 at both c, by the certificate.
		"| 0.4999 | 10 | pieces | proved | ", "| 0.45 | 10 | pieces | proved | ",
		// check: every 50th eps of Figure 3 (eps 5 at k = 1, 2, 4), all accepted.
		"| fig3 | 3 | 3 | 3 | 0 | ", "| 10 | 0.4999 | pieces | ",
		// post: 6 points of Figure 3 on 2 workers, each verified and certified.
		"| 6 | 2 | ", " | 6 | 0 | 0 | 6 / 6 | 0 | 0 |",
		"dp_accounting live: not run in the smoke suite."} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for i, e := range experiments {
		if !strings.Contains(rep, fmt.Sprintf("## %d. %s\n", i+1, e.title)) {
			t.Errorf("report lacks section %q", e.title)
		}
	}
}

// -exp runs only the named experiments.
func TestSelect(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-smoke", "-exp", "bounds"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if rep := stdout.String(); !strings.Contains(rep, "Closed-form bounds") || strings.Contains(rep, "Kronecker") {
		t.Errorf("-exp bounds ran other experiments:\n%s", rep)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-runs", "-1"}, {"-exp", "nosuch"}, {"-nosuch"}, {"extra"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// fitPower recovers exact power laws and reports their R^2 as 1; on
// y = x^2 (1 + noise) by hand: x = 1, 2, 4 with y = 1, 4.4, 16 gives
// b = log(16)/log(4) = 2 from the end points and 4.4 above the line in
// the middle.
func TestFitPower(t *testing.T) {
	const tol = 1e-12
	xs := []float64{1, 2, 4, 8, 16}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = 3 * math.Pow(x, 1.5)
	}
	f, ok := fitPower(xs, ys)
	if !ok || math.Abs(f.b-1.5) > tol || math.Abs(f.a-3) > tol || math.Abs(f.r2-1) > tol || f.n != 5 {
		t.Errorf("exact power law: %+v, %v", f, ok)
	}
	// Three points, symmetric in log x: the slope is that of the end
	// points, 2, and the middle residual is log(4.4/4) - (mean residual).
	f, ok = fitPower([]float64{1, 2, 4}, []float64{1, 4.4, 16})
	if !ok || math.Abs(f.b-2) > tol || !(f.r2 < 1 && f.r2 > 0.99) {
		t.Errorf("noisy: %+v, %v", f, ok)
	}
	if _, ok := fitPower([]float64{1, 2}, []float64{1, 2}); ok {
		t.Errorf("two points fitted")
	}
	if _, ok := fitPower([]float64{2, 2, 2}, []float64{1, 2, 3}); ok {
		t.Errorf("equal x fitted")
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"}, {12, "12.0 ns"}, {1234, "1.23 µs"}, {123456789, "123 ms"}, {2500 * time.Millisecond, "2.50 s"}, {15 * time.Minute, "15.0 min"},
	} {
		if got := dur(tc.d); got != tc.want {
			t.Errorf("dur(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := size(1234567); got != "1.23 MB" {
		t.Errorf("size = %q", got)
	}
}
