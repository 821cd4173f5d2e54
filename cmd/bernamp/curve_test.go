package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/internal/testref"
)

// runCurveArgs runs curve on buffers and returns the exit status run would
// give: 0, 1 on a runtime error, 2 on a usage error.
func runCurveArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := runCurve(context.Background(), args, &out, &errb)
	var uerr usageError
	switch {
	case err == nil:
	case errors.As(err, &uerr):
		code = 2
		errb.WriteString("bernamp: " + err.Error() + "\n")
	default:
		code = 1
		errb.WriteString("bernamp: " + err.Error() + "\n")
	}
	return code, out.String(), errb.String()
}

// writeTemp writes a file in a test's temporary directory.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCurveUsageErrors(t *testing.T) {
	t.Parallel()
	order1 := writeTemp(t, "order1.csv", "alpha,eps\n1,0.1\n2,0.2\n")
	below := writeTemp(t, "below.csv", "alpha,eps\n2,0.2\n0.5,0.1\n")
	negative := writeTemp(t, "negative.csv", "2,-0.1\n")
	good := writeTemp(t, "good.csv", "2,0.5\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"order 1 in file", []string{"--in", order1}, "--in: " + order1 + ": line 2: alpha is 1, must be > 1 and finite"},
		{"order below 1 in file", []string{"--in", below}, "line 3: alpha is 0.5"},
		{"negative eps in file", []string{"--in", negative}, "line 1: eps is -0.1, must be >= 0"},
		{"delta 0", []string{"--in", good, "--delta", "0"}, "--delta: delta is 0, must be in (0, 1)"},
		{"delta 1", []string{"--in", good, "--delta", "1"}, "--delta: delta is 1, must be in (0, 1)"},
		{"delta NaN", []string{"--in", good, "--delta", "NaN"}, "--delta: delta is NaN"},
		{"delta negative", []string{"--in", good, "--delta", "-1e-5"}, "--delta: delta is -1e-05"},
		{"no curve", nil, "--mechanism: give --mechanism gaussian|laplace|rr or --in FILE"},
		{"unknown mechanism", []string{"--mechanism", "exponential"}, `--mechanism: mechanism is "exponential"`},
		{"sigma missing", []string{"--mechanism", "gaussian"}, "--sigma: needed with --mechanism gaussian"},
		{"sigma zero", []string{"--mechanism", "gaussian", "--sigma", "0"}, "--sigma: sigma is 0, must be > 0 and finite"},
		{"b negative", []string{"--mechanism", "laplace", "--b", "-1"}, "--b: b is -1, must be > 0"},
		{"p one", []string{"--mechanism", "rr", "--p-true", "1"}, "--p-true: p-true is 1, must be in (0, 1)"},
		{"p missing", []string{"--mechanism", "rr"}, "--p-true: needed with --mechanism rr (or --noise-parameter)"},
		{"p renamed", []string{"--mechanism", "rr", "--p", "0.7"}, "renamed: --p-true P (probability of the true bit) or --noise-parameter Q"},
		{"noise zero", []string{"--mechanism", "rr", "--noise-parameter", "0"}, "--noise-parameter: noise-parameter is 0, must be in (0, 1]"},
		{"p and noise", []string{"--mechanism", "rr", "--p-true", "0.7", "--noise-parameter", "0.5"}, "--p-true: give either --p-true or --noise-parameter"},
		{"noise with gaussian", []string{"--mechanism", "gaussian", "--sigma", "1", "--noise-parameter", "0.5"}, "--noise-parameter: only with --mechanism rr"},
		{"compose zero", []string{"--in", good, "--compose", "0"}, "--compose: compose is 0, must be >= 1"},
		{"inf and nan", []string{"--in", writeTemp(t, "nan.csv", "2,nan\n")}, "line 1: eps is NaN"},
		{"no common order", []string{"--in", good, "--in", writeTemp(t, "three.csv", "3,1\n")}, "--in: the curves have no order in common"},
		{"dp_accounting orders", []string{"--in", writeTemp(t, "low.csv", "1.005,0.5\n"), "--conversion", "dp_accounting"}, "--conversion: dp_accounting needs an order above 1.01"},
		{"b with gaussian", []string{"--mechanism", "gaussian", "--sigma", "1", "--b", "1"}, "--b: only with --mechanism laplace"},
		{"sigma with file", []string{"--in", good, "--sigma", "1"}, "--sigma: only with --mechanism gaussian"},
		{"in and mechanism", []string{"--in", good, "--mechanism", "rr", "--p-true", "0.7"}, "--in: give either --in or --mechanism"},
		{"orders with in", []string{"--in", good, "--orders", "2,3"}, "--orders: not with --in"},
		{"order one", []string{"--mechanism", "gaussian", "--sigma", "1", "--orders", "1,2"}, "--orders: alpha is 1, must be > 1"},
		{"orders decreasing", []string{"--mechanism", "gaussian", "--sigma", "1", "--orders", "3,2"}, "--orders: alpha 2 does not exceed"},
		{"orders not numbers", []string{"--mechanism", "gaussian", "--sigma", "1", "--orders", "2,x"}, `--orders: "x" is not a number`},
		{"c half", []string{"--in", good, "--c", "0.5"}, "--c: c is 0.5, must be in (0, 0.5)"},
		{"d zero", []string{"--in", good, "--d", "0"}, "--d: d is 0, must be >= 1"},
		{"k zero", []string{"--in", good, "--k", "0"}, "--k: k is 0, must be >= 1"},
		{"d k too many flips", []string{"--in", good, "--d", "100000", "--k", "1000"}, "--d, --k: d*k is 100000*1000"},
		{"format", []string{"--in", good, "--format", "xml"}, `--format: format is "xml"`},
		{"conversion", []string{"--in", good, "--conversion", "bun2016"}, `--conversion: conversion is "bun2016", must be balle2020, mironov2017 or dp_accounting`},
		{"workers", []string{"--in", good, "--workers", "0"}, "--workers: workers is 0, must be >= 1"},
		{"tol", []string{"--in", good, "--tol", "0"}, "--tol: tol is 0"},
		{"argument", []string{"--in", good, "extra"}, `curve: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCurveArgs(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tc.name, code, stderr, stdout, tc.want)
		}
	}
	// A missing file is a runtime failure, not a usage error.
	if code, _, stderr := runCurveArgs(t, "--in", filepath.Join(t.TempDir(), "none.csv")); code != 1 || !strings.Contains(stderr, "none.csv") {
		t.Errorf("missing file: exit %d, stderr %q; want 1", code, stderr)
	}
}

// refValue returns the value column of the row of a reference CSV whose
// first columns equal key.
func refValue(t *testing.T, file string, key []string, col int) float64 {
	t.Helper()
	recs := testref.Records(t, filepath.Join("..", "..", "testdata", "ref", file))
next:
	for _, rec := range recs {
		for i, k := range key {
			if rec[i] != k {
				continue next
			}
		}
		v, err := strconv.ParseFloat(rec[col], 64)
		if err != nil {
			t.Fatalf("%s %v: %v", file, key, err)
		}
		return v
	}
	t.Fatalf("%s: no row %v", file, key)
	return 0
}

// TestCurveCSV amplifies a curve read from a file and checks each column
// against independent mpmath references: post against the exact d = 1
// optimum (testdata/ref/post_d1.csv), the Dobrushin column against
// mixing.csv, and the summary's bernamp row against Theorem 21 of Balle et
// al. 2020 evaluated here on those references.
func TestCurveCSV(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "curve.csv", "# a made-up accountant export\nalpha,eps\n50,2\n2,0.5\n5,1\n")
	sum := filepath.Join(t.TempDir(), "summary.csv")
	code, stdout, stderr := runCurveArgs(t, "--in", in, "--d", "1", "--k", "1", "--c", "0.1", "--delta", "1e-3", "--no-timing", "--summary", sum)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// With the summary in a file, stderr has only the warnings: at delta
	// 1e-3 every curve converts best at its largest order, 50.
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(line, "bernamp: warning: ") || !strings.Contains(line, "largest order alpha = 50") {
			t.Errorf("stderr line %q", line)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "d,k,c,alpha,eps,lb,post,post_upper,status,check,dobrushin,doeblin,ultra_mixing,seconds" || len(recs) != 4 {
		t.Fatalf("stdout is not the 3-row curve CSV:\n%s", stdout)
	}
	const tol = 1e-9 // the certified gap of Post (--tol default)
	var wantBernamp = math.Inf(1)
	for i, alpha := range []string{"2", "5", "50"} {
		rec := recs[i+1]
		eps := []string{"0.5", "1", "2"}[i]
		if rec[3] != alpha || rec[4] != eps || rec[8] != "certified" || rec[9] != "verified" || rec[13] != "0.0000" {
			t.Errorf("row %d: %v", i+1, rec)
		}
		f := func(j int) float64 {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		want := refValue(t, "post_d1.csv", []string{"1", "0.1", alpha, eps}, 4)
		lb, post, up := f(5), f(6), f(7)
		if !(lb <= post && post <= up) || math.Abs(post-want) > tol || up < want || up > want+2*tol {
			t.Errorf("alpha %s: lb %v post %v post_upper %v, exact %v", alpha, lb, post, up, want)
		}
		dob := refValue(t, "mixing.csv", []string{"renyi:0.8", "0", "0", "0", alpha, eps}, 6)
		// For d = k = 1 the Dobrushin and Doeblin coefficients are both
		// 1 - 2c (computed two ways); ultra-mixing is larger.
		if got := f(10); math.Abs(got-dob) > 1e-12*dob || math.Abs(f(11)-dob) > 1e-12*dob || f(12) < got {
			t.Errorf("alpha %s: dobrushin %v doeblin %v ultra_mixing %v, want %v, %v and more", alpha, got, f(11), f(12), dob, dob)
		}
		a, _ := strconv.ParseFloat(alpha, 64)
		conv := want + math.Log1p(-1/a) - (math.Log(1e-3)+math.Log(a))/(a-1)
		wantBernamp = math.Min(wantBernamp, conv)
	}
	srecs := readCSVFile(t, sum)
	if strings.Join(srecs[0], ",") != "bound,eps,delta,order,delta_in,eps_in,warning" || len(srecs) != 10 {
		t.Fatalf("summary:\n%v", srecs)
	}
	got, _ := strconv.ParseFloat(srecs[2][1], 64)
	if srecs[2][0] != "bernamp" || got < wantBernamp || got > wantBernamp+1e-8 {
		t.Errorf("bernamp summary %v, want %v (Theorem 21 on the exact values)", srecs[2], wantBernamp)
	}
}

func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	recs := testref.Records(t, path)
	return recs
}

// TestCurveJSONSummary runs the Gaussian mechanism on the default orders
// and checks the (eps, delta) summary against testdata/ref: the
// un-amplified conversion (rdp_convert.csv) and the Theorem 1 comparators
// (mixing_approx.csv), each from an independent mpmath computation.
func TestCurveJSONSummary(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCurveArgs(t, "--mechanism", "gaussian", "--sigma", "1", "--c", "0.1", "--delta", "1e-5", "--format", "json", "--no-timing")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var out curveOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Orders) != 156 || out.Orders[0].Alpha != 1.1 || out.Orders[155].Alpha != 1024 || out.Conversion != "balle2020" || out.Delta != 1e-5 {
		t.Fatalf("JSON: %d orders, conversion %q, delta %v", len(out.Orders), out.Conversion, out.Delta)
	}
	for _, r := range out.Orders {
		if float64(r.Eps) != r.Alpha/2 { // exact: alpha / (2 sigma^2) with sigma = 1
			t.Errorf("alpha %v: eps %v, want alpha/2", r.Alpha, r.Eps)
		}
		if r.Status != "certified" || r.PostUpper > float64(r.Eps) || float64(r.Dobrushin) < r.PostUpper {
			t.Errorf("alpha %v: %+v", r.Alpha, r)
		}
	}
	byName := map[string]accountant.SummaryRow{}
	for _, s := range out.Summary {
		byName[s.Bound] = s
	}
	check := func(name string, want float64, tol float64) {
		t.Helper()
		s, ok := byName[name]
		if !ok || s.Eps == nil {
			t.Errorf("%s: missing or null in %+v", name, out.Summary)
			return
		}
		if *s.Eps < want*(1-1e-12) || *s.Eps > want*(1+tol) {
			t.Errorf("%s: eps %.17g, want %.17g", name, *s.Eps, want)
		}
	}
	check("mechanism", refValue(t, "rdp_convert.csv", []string{"gaussian", "1", "1e-5", "balle2020"}, 4), 1e-12)
	for _, item := range []string{"dobrushin", "dobrushin_hs", "ultra_mixing"} {
		check("thm1_"+item, refValue(t, "mixing_approx.csv", []string{item, "1", "1", "0.1", "1", "1e-5"}, 6), 1e-9)
	}
	if s := byName["thm1_doeblin"]; s.Eps != nil || s.Order != nil {
		t.Errorf("thm1_doeblin: %+v, want null eps (vacuous, mixing_approx.csv)", s)
	}
	if !strings.Contains(stdout, `"eps": null`) {
		t.Error(`JSON has no "eps": null for the vacuous bound`)
	}
	// The amplified curve is never above the mechanism's, nor its
	// conversion.
	if *byName["bernamp"].Eps > *byName["mechanism"].Eps {
		t.Errorf("bernamp %v above mechanism %v", *byName["bernamp"].Eps, *byName["mechanism"].Eps)
	}
}

// TestCurveFormats checks that csv keeps stdout a pure CSV with the
// summary on stderr, that table prints both on stdout, and that the
// warning for a minimum at the edge of the grid reaches stderr.
func TestCurveFormats(t *testing.T) {
	t.Parallel()
	args := []string{"--mechanism", "rr", "--p-true", "0.75", "--orders", "2:10:2", "--k", "2", "--no-timing"}
	code, stdout, stderr := runCurveArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll(); err != nil || len(recs) != 6 {
		t.Errorf("csv stdout: %d records, %v:\n%s", len(recs), err, stdout)
	}
	for _, want := range []string{"(eps, delta=1e-05)-DP", "mechanism", "bernamp", "thm1_doeblin", "none", "warning: mechanism, bernamp"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("csv stderr lacks %q:\n%s", want, stderr)
		}
	}
	// One warning line per cause (it was one per bound, five times the same).
	if n := strings.Count(stderr, "the minimum over orders is at the largest order alpha = 10"); n != 1 {
		t.Errorf("the edge-of-grid warning %d times on stderr, want once:\n%s", n, stderr)
	}
	code, table, stderr2 := runCurveArgs(t, append(args, "--format", "table")...)
	if code != 0 || !strings.Contains(table, "randomized response, p_true=0.75; kernel d=1 k=2 c=0.1") || !strings.Contains(table, "thm1_dobrushin_hs") || strings.Contains(stderr2, "(eps, delta") {
		t.Errorf("table: exit %d\n%s\nstderr %s", code, table, stderr2)
	}
	// Mironov's conversion is looser than Balle et al.'s.
	_, _, stderrM := runCurveArgs(t, append(args, "--conversion", "mironov2017")...)
	if mechEps(t, stderrM) <= mechEps(t, stderr) {
		t.Errorf("mironov2017 %v not above balle2020 %v", mechEps(t, stderrM), mechEps(t, stderr))
	}
	// Identical output for any number of workers.
	_, one, _ := runCurveArgs(t, append(args, "--workers", "1")...)
	if one != stdout {
		t.Errorf("output differs with --workers 1:\n%s\n%s", one, stdout)
	}
}

// mechEps returns the eps of the mechanism row of a summary table.
func mechEps(t *testing.T, table string) float64 {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "mechanism" {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no mechanism row in\n%s", table)
	return 0
}

// TestCurveAccountantInput reads an accountant's JSON curve with Infinity
// (Python's json) and a dip, composes it and emits the amplified curve:
// the inf order carries d k r_alpha(c) (finite), the dip is repaired with a
// warning, and the emitted curve is 100 times the monotone post_upper
// column, read back by accountant.Read.
func TestCurveAccountantInput(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "acc.json", `{"orders": [2, 4, 8], "rdp": [0.5, 0.4999, Infinity]}`)
	emit := filepath.Join(t.TempDir(), "amp.csv")
	code, stdout, stderr := runCurveArgs(t, "--in", in, "--c", "0.3", "--compose", "100", "--emit-curve", emit, "--no-timing")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: "+in+": eps 0.5 at alpha 2 exceeds eps 0.4999") || !strings.Contains(stderr, "bernamp  ") {
		t.Errorf("stderr lacks the repair warning or the summary:\n%s", stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("csv: %v\n%s", err, stdout)
	}
	last := recs[3] // alpha 8, eps inf
	// r_8(0.3) = log(0.3^8 0.7^-7 + 0.7^8 0.3^-7)/7 (mpmath, 30 digits: 0.796344728734462479...;
	// d k = 1)
	if last[4] != "inf" || last[9] != "none" || last[8] != "certified" {
		t.Errorf("inf row: %v", last)
	}
	up, _ := strconv.ParseFloat(last[7], 64)
	if want := 0.7963447287344625; !(up >= want && up-want < 1e-12) {
		t.Errorf("inf row post_upper %v, want r_8(0.3) = %v rounded up", up, want)
	}
	data, err := os.ReadFile(emit)
	if err != nil {
		t.Fatal(err)
	}
	ems, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(ems) != 4 || ems[0][0] != "alpha" {
		t.Fatalf("emitted: %v\n%s", err, data)
	}
	prev := 0.0
	for i, r := range ems[1:] {
		e, _ := strconv.ParseFloat(r[1], 64)
		pu, _ := strconv.ParseFloat(recs[i+1][7], 64)
		if e < prev || e < 100*pu*(1-1e-15) && i == 2 || e > 100*pu*(1+1e-15) {
			t.Errorf("emitted row %v: %v, post_upper %v (x100), previous %v", r, e, pu, prev)
		}
		prev = e
	}
}
