package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// summaryCount returns the number after label at the start of a line of
// the conjecture summary ("proved     14 (...)").
func summaryCount(t *testing.T, summary, label string) int {
	t.Helper()
	for line := range strings.Lines(summary) {
		if rest, ok := strings.CutPrefix(line, label+" "); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					return n
				}
			}
		}
	}
	t.Fatalf("summary has no count %q:\n%s", label, summary)
	return 0
}

// TestConjecture runs 20 points of the default box on 1 worker with timing
// and on 2 workers without: the counts add up, the CSV has a row per
// point, and both runs agree on every column but seconds.
func TestConjecture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv1, csv2 := filepath.Join(dir, "w1.csv"), filepath.Join(dir, "w2.csv")
	args := []string{"conjecture", "--points", "20", "--max-boxes", "2000"}
	code, out1, stderr := runArgs(t, append(args, "--workers", "1", "--out", csv1)...)
	if code != 0 || stderr != "" {
		t.Fatalf("--workers 1: exit %d, stderr %q", code, stderr)
	}
	code, out2, stderr := runArgs(t, append(args, "--workers", "2", "--no-timing", "--out", csv2)...)
	if code != 0 || stderr != "" {
		t.Fatalf("--workers 2: exit %d, stderr %q", code, stderr)
	}
	proved, open, violation := summaryCount(t, out1, "proved"), summaryCount(t, out1, "open"), summaryCount(t, out1, "violation")
	if proved+open+violation != 20 || !strings.HasPrefix(out1, "conjecture survey: 20 of 20 points, seed 1, n 1..10000") {
		t.Errorf("proved %d + open %d + violation %d != 20:\n%s", proved, open, violation, out1)
	}
	if !strings.Contains(out1, "\nseconds ") || strings.Contains(out2, "\nseconds ") {
		t.Errorf("the times are in the summary with timing only:\n%s\n%s", out1, out2)
	}
	// Apart from the line of times, the summaries are the same.
	var lines1 []string
	for line := range strings.Lines(out1) {
		if !strings.HasPrefix(line, "seconds ") {
			lines1 = append(lines1, line)
		}
	}
	if strings.Join(lines1, "") != out2 {
		t.Errorf("summaries differ between 1 and 2 workers:\n%s\n%s", out1, out2)
	}

	rows1, rows2 := readSurveyCSV(t, csv1), readSurveyCSV(t, csv2)
	if len(rows1) != 21 || len(rows2) != 21 || !slices.Equal(rows1[0], conjectureHeader) {
		t.Fatalf("%d and %d lines, header %v; want 21 and %v", len(rows1), len(rows2), rows1[0], conjectureHeader)
	}
	sec := slices.Index(conjectureHeader, "seconds")
	counts := map[string]int{}
	for i := 1; i < 21; i++ {
		r1, r2 := rows1[i], rows2[i]
		if !slices.Equal(r1[:sec], r2[:sec]) {
			t.Errorf("row %d differs between 1 and 2 workers:\n%v\n%v", i, r1, r2)
		}
		if s, err := strconv.ParseFloat(r1[sec], 64); err != nil || s < 0 || r2[sec] != "0.0000" {
			t.Errorf("row %d: seconds %q with timing, %q without", i, r1[sec], r2[sec])
		}
		status, viol := r1[slices.Index(conjectureHeader, "status")], r1[slices.Index(conjectureHeader, "violation")]
		gap, _ := strconv.ParseFloat(r1[slices.Index(conjectureHeader, "gap")], 64)
		switch {
		case viol == "true":
			counts["violation"]++
		case status == "proved" && gap <= 1e-9:
			counts["proved"]++
		case status == "open" && viol == "false":
			counts["open"]++
		default:
			t.Errorf("row %d: status %q, violation %q, gap %v", i, status, viol, gap)
		}
	}
	if counts["proved"] != proved || counts["open"] != open || counts["violation"] != violation {
		t.Errorf("CSV counts %v, summary proved %d open %d violation %d", counts, proved, open, violation)
	}
}

// readSurveyCSV returns every line of a CSV file, the header included.
func readSurveyCSV(t *testing.T, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s is not CSV: %v", name, err)
	}
	return rows
}

// TestConjectureBox shrinks the box by flags: every n drawn is in it.
func TestConjectureBox(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "box.csv")
	code, stdout, stderr := runArgs(t, "conjecture", "--points", "10", "--n-min", "2", "--n-max", "3", "--c-min", "0.2",
		"--alpha-max", "10", "--eps-min", "0.5", "--eps-max", "2", "--seed", "7", "--no-timing", "--out", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.HasPrefix(stdout, "conjecture survey: 10 of 10 points, seed 7, n 2..3, c 0.2..0.499, alpha 1.001..10, eps 0.5..2\n") {
		t.Errorf("summary starts %q", stdout)
	}
	for _, r := range readSurveyCSV(t, out)[1:] {
		if r[0] != "2" && r[0] != "3" {
			t.Errorf("row %v: n outside 2..3", r)
		}
	}
}

func TestConjectureUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--points", "0"}, "--points: points is 0, must be in 1..10000000"},
		{[]string{"--points", "x"}, `conjecture: invalid value "x" for flag -points`},
		{[]string{"--seed", "-1"}, `conjecture: invalid value "-1" for flag -seed`},
		{[]string{"--max-boxes", "0"}, "--max-boxes: max-boxes is 0, must be >= 1"},
		{[]string{"--tol", "0"}, "--tol: tol is 0, must be > 0 and finite"},
		{[]string{"--timeout", "-1s"}, "--timeout: timeout is -1s, must be >= 0"},
		{[]string{"--workers", "0"}, "--workers: workers is 0, must be >= 1"},
		{[]string{"--n-max", "0"}, "--n-min, --n-max: n range 1..0, must have 1 <= min <= max <= 1000000"},
		{[]string{"--n-max", "2000000"}, "--n-min, --n-max: n range 1..2000000"},
		{[]string{"--c-max", "0.5"}, "--c-min, --c-max: c range [0.0001, 0.5], must have 0 < min <= max < 0.5"},
		{[]string{"--alpha-min", "1"}, "--alpha-min, --alpha-max: alpha range [1, 1000]"},
		{[]string{"--alpha-max", "inf"}, "--alpha-min, --alpha-max: alpha range [1.001, +Inf]"},
		{[]string{"--eps-min", "0"}, "--eps-min, --eps-max: eps range [0, 50]"},
		{[]string{"--eps-max", "NaN"}, "--eps-min, --eps-max: eps range [0.001, NaN]"},
		{[]string{"extra"}, `conjecture: unexpected argument "extra"`},
	} {
		code, stdout, stderr := runArgs(t, append([]string{"conjecture"}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "bernamp: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("conjecture %v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", tc.args, code, stdout, stderr, "bernamp: "+tc.want)
		}
	}
	if code, stdout, _ := runArgs(t, "conjecture", "-h"); code != 0 || !strings.Contains(stdout, "-max-boxes") {
		t.Errorf("conjecture -h: exit %d, stdout %q; want 0 and the flags", code, stdout)
	}
	if _, stdout, _ := runArgs(t, "help"); !strings.Contains(stdout, "\tconjecture\n") {
		t.Error("bernamp help does not list conjecture")
	}
	if _, stdout, _ := runArgs(t, "help", "conjecture"); !strings.Contains(stdout, "--max-boxes") || !strings.Contains(stdout, "violation") {
		t.Error("bernamp help conjecture does not describe conjecture")
	}
}

// TestConjectureCancelled: a context cancelled before the start (as after
// Ctrl-C) ends the run with exit 1, a summary of no points and a CSV of the
// header only.
func TestConjectureCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "c.csv")
	var stdout, stderr bytes.Buffer
	code := runTerm(ctx, []string{"conjecture", "--points", "5", "--out", out}, &stdout, &stderr, tty{})
	if code != 1 || stderr.String() != "bernamp: interrupted: 0 of 5 points done\n" {
		t.Errorf("exit %d, stderr %q; want 1 and the interruption", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "conjecture survey: 0 of 5 points") || summaryCount(t, stdout.String(), "proved") != 0 {
		t.Errorf("summary %q", stdout.String())
	}
	if rows := readSurveyCSV(t, out); len(rows) != 1 {
		t.Errorf("CSV has %d lines, want the header only", len(rows))
	}
}

func TestMedianDecades(t *testing.T) {
	t.Parallel()
	xs := []float64{3, 1, 2}
	if m := median(xs); m != 2 || xs[0] != 3 {
		t.Errorf("median(3, 1, 2) = %v, input now %v", m, xs)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median(4, 1, 2, 3) = %v, want 2.5", m)
	}
	got := decades([]float64{5e-9, 2e-9, 0.3, -1e-17, 1e-3})
	if want := " <=0 1, [1e-9,1e-8) 2, [1e-3,1e-2) 1, [1e-1,1e0) 1"; got != want {
		t.Errorf("decades = %q, want %q", got, want)
	}
}

// TestConjectureProgress: a terminal stderr gets the progress line, unless
// --quiet.
func TestConjectureProgress(t *testing.T) {
	t.Parallel()
	for _, quiet := range []bool{false, true} {
		args := []string{"conjecture", "--points", "3", "--n-max", "5", "--alpha-max", "10"}
		if quiet {
			args = append(args, "--quiet")
		}
		var stdout, stderr bytes.Buffer
		code := runTerm(context.Background(), args, &stdout, &stderr, tty{stderr: true})
		if got := strings.Contains(stderr.String(), "bernamp: 3/3 points"); code != 0 || got == quiet {
			t.Errorf("quiet %v: exit %d, stderr %q", quiet, code, stderr.String())
		}
	}
}
