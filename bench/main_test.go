package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
		"| 3 | 1 | 8 |", "## Time", "Baseline misses: 0 of 1 points (1 with a certified reference); above our witness: 0.", "| 2 | "} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for i, e := range experiments {
		if !strings.Contains(rep, "## "+string(rune('1'+i))+". "+e.title) {
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
