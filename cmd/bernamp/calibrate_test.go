package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/accountant"
)

// calibrateFast are the settings that keep a calibration to a second or
// so: five orders, a coarse bracket, d = 1 (no certificate needed).
var calibrateFast = []string{"--timeout", "2s", "--workers", "2", "--resolution", "0.02"}

// curveEps returns the proved (eps, delta) of bernamp curve on args (the
// summary row "bernamp", --format json): the guarantee calibrate's answer
// is judged by, recomputed through another command.
func curveEps(t *testing.T, args ...string) float64 {
	t.Helper()
	code, stdout, stderr := runArgs(t, append([]string{"curve", "--format", "json", "--timeout", "2s", "--workers", "1"}, args...)...)
	if code != 0 {
		t.Fatalf("curve %q: exit %d: %s", args, code, stderr)
	}
	var out curveOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("curve %q: %v", args, err)
	}
	for _, s := range out.Summary {
		if s.Bound == "bernamp" {
			if s.Eps == nil {
				t.Fatalf("curve %q: no bernamp eps", args)
			}
			return *s.Eps
		}
	}
	t.Fatalf("curve %q: no bernamp row", args)
	return 0
}

// TestCalibrate runs each --solve mode at small settings and recomputes
// the answer's guarantee with bernamp curve (same kernel, curve, --compose
// steps, delta and conversion): the answer must meet the target with the
// eps calibrate reports, and the reported neighbour must miss it, on the
// side the safe-side line says. --in is given a curve by hand as CSV and
// as accountant JSON (the Gaussian with sigma = 2, eps = alpha/8, with no
// guarantee at order 32); the two must give the same answer.
func TestCalibrate(t *testing.T) {
	t.Parallel()
	const gaussCSV = "alpha,eps\n2,0.25\n4,0.5\n8,1\n16,2\n32,inf\n"
	const gaussJSON = `{"orders": [2, 4, 8, 16, 32], "rdp": [0.25, 0.5, 1.0, 2.0, Infinity]}`
	csvFile, jsonFile := writeTemp(t, "g.csv", gaussCSV), writeTemp(t, "g.json", gaussJSON)
	orders := []string{"--orders", "2,4,8,16,32"}
	tests := []struct {
		name   string
		args   []string // calibrate's, besides --solve and calibrateFast
		solve  string
		curve  []string // curve's arguments for the mechanism, besides the unknown
		larger bool     // the neighbour is above the answer
	}{
		{"c gaussian", append([]string{"--mechanism", "gaussian", "--sigma", "1", "--eps", "2", "--steps", "10"}, orders...), "c",
			append([]string{"--mechanism", "gaussian", "--sigma", "1", "--compose", "10"}, orders...), false},
		{"k gaussian", append([]string{"--mechanism", "gaussian", "--sigma", "2", "--c", "0.45", "--eps", "1"}, orders...), "k",
			append([]string{"--mechanism", "gaussian", "--sigma", "2", "--c", "0.45"}, orders...), true},
		{"sigma", append([]string{"--mechanism", "gaussian", "--c", "0.3", "--eps", "2", "--steps", "10"}, orders...), "sigma",
			append([]string{"--mechanism", "gaussian", "--c", "0.3", "--compose", "10"}, orders...), false},
		{"b dp_accounting", append([]string{"--mechanism", "laplace", "--c", "0.3", "--eps", "2", "--steps", "10", "--conversion", "dp_accounting"}, orders...), "b",
			append([]string{"--mechanism", "laplace", "--c", "0.3", "--compose", "10", "--conversion", "dp_accounting"}, orders...), false},
		{"c --in csv", []string{"--in", csvFile, "--eps", "2", "--steps", "4", "--delta", "1e-6"}, "c",
			[]string{"--in", csvFile, "--compose", "4", "--delta", "1e-6"}, false},
		{"c --in json", []string{"--in", jsonFile, "--eps", "2", "--steps", "4", "--delta", "1e-6"}, "c",
			[]string{"--in", jsonFile, "--compose", "4", "--delta", "1e-6"}, false},
		{"k --in json d=2", []string{"--in", jsonFile, "--d", "2", "--c", "0.45", "--eps", "3", "--steps", "4"}, "k",
			[]string{"--in", jsonFile, "--d", "2", "--c", "0.45", "--compose", "4"}, true},
	}
	answers := map[string]calibrateOutput{}
	for _, tc := range tests {
		args := append(append([]string{"calibrate", "--solve", tc.solve, "--format", "json"}, calibrateFast...), tc.args...)
		code, stdout, stderr := runArgs(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", tc.name, code, stderr)
		}
		var a calibrateOutput
		if err := json.Unmarshal([]byte(stdout), &a); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		target, _ := strconv.ParseFloat(tc.args[indexOf(tc.args, "--eps")+1], 64)
		if a.Any || a.Fail == nil || a.FailEps == nil || a.Solve != tc.solve || a.TargetEps != target || a.Evals < 2 {
			t.Fatalf("%s: %+v: want an answer with a failing neighbour", tc.name, a)
		}
		if (*a.Fail > a.Value) != tc.larger {
			t.Errorf("%s: neighbour %v on the wrong side of %v", tc.name, *a.Fail, a.Value)
		}
		at := func(v float64) float64 {
			return curveEps(t, append(append([]string{}, tc.curve...), "--"+tc.solve, strconv.FormatFloat(v, 'g', -1, 64))...)
		}
		if got := at(a.Value); got > target || got != a.Eps {
			t.Errorf("%s: %s = %v: curve gives eps %v, calibrate said %v, target %v", tc.name, tc.solve, a.Value, got, a.Eps, target)
		}
		if got := at(*a.Fail); !(got > target) || got != *a.FailEps {
			t.Errorf("%s: neighbour %s = %v: curve gives eps %v, calibrate said %v; want it to miss %v", tc.name, tc.solve, *a.Fail, got, *a.FailEps, target)
		}
		answers[tc.name] = a
	}
	if c, j := answers["c --in csv"], answers["c --in json"]; c.Value != j.Value || c.Eps != j.Eps || *c.Fail != *j.Fail {
		t.Errorf("--in: the CSV curve gives %+v, the same curve in JSON %+v", c, j)
	}
}

// indexOf returns the index of s in args, or -1.
func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// TestCalibrateText checks the table format's lines against the JSON of
// the same run: the answer, the neighbour and the safe side.
func TestCalibrateText(t *testing.T) {
	t.Parallel()
	args := append([]string{"calibrate", "--solve", "k", "--mechanism", "gaussian", "--sigma", "2", "--c", "0.45", "--eps", "1", "--orders", "2,4,8,16,32"}, calibrateFast...)
	code, text, stderr := runArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, js, stderr := runArgs(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var a calibrateOutput
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	want := []string{
		"target (1, 1e-05)-DP after 1 release(s), conversion balle2020; kernel d=1 c=0.45",
		"k = " + fmtFloat(a.Value) + "  proved eps ",
		"k = " + fmtFloat(*a.Fail) + "  misses it: eps ",
		"safe side: " + a.SafeSide + "; " + strconv.Itoa(a.Evals) + " amplified curves computed",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), text)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start with %q", i+1, lines[i], w)
		}
	}
}

// TestCalibrateUsageErrors checks that bad input exits 2 with one line on
// stderr naming the flag, and nothing on stdout.
func TestCalibrateUsageErrors(t *testing.T) {
	t.Parallel()
	good := writeTemp(t, "good.csv", "2,0.5\n4,1\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no solve", []string{"--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--solve: give c, k, sigma or b"},
		{"bad solve", []string{"--solve", "delta", "--eps", "1"}, `--solve: solve is "delta", must be c, k, sigma or b`},
		{"no eps", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1"}, "--eps: the target eps is needed"},
		{"eps 0", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "0"}, "--eps: the target eps is needed, > 0 and finite (got 0)"},
		{"eps inf", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "inf"}, "(got +Inf)"},
		{"eps NaN", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "NaN"}, "(got NaN)"},
		{"delta 1", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--delta", "1"}, "--delta: delta is 1, must be in (0, 1)"},
		{"steps 0", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--steps", "0"}, "--steps: steps is 0, must be >= 1"},
		{"resolution 1", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--resolution", "1"}, "--resolution: resolution is 1, must be in (0, 1)"},
		{"conversion", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--conversion", "pld"}, "--conversion:"},
		{"format", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--format", "csv"}, `--format: format is "csv", must be table or json`},
		{"c with solve c", []string{"--solve", "c", "--c", "0.2", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--c: not with --solve c"},
		{"k with solve k", []string{"--solve", "k", "--k", "2", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--k: not with --solve k"},
		{"c out of range", []string{"--solve", "k", "--c", "0.7", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--c: c is 0.7, must be in (0, 0.5)"},
		{"k 0", []string{"--solve", "c", "--k", "0", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--k: k is 0"},
		{"d 0", []string{"--solve", "c", "--d", "0", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--d: d is 0"},
		{"sigma with laplace", []string{"--solve", "sigma", "--mechanism", "laplace", "--eps", "1"}, "--solve sigma: needs --mechanism gaussian and no --sigma"},
		{"sigma given", []string{"--solve", "sigma", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--solve sigma: needs --mechanism gaussian and no --sigma"},
		{"b with in", []string{"--solve", "b", "--in", good, "--eps", "1"}, "--solve b: needs --mechanism laplace and no --b"},
		{"in and mechanism", []string{"--solve", "c", "--in", good, "--mechanism", "gaussian", "--sigma", "1", "--eps", "1"}, "--in: give either --in or --mechanism, not both"},
		// Flags of a named mechanism with --in were ignored.
		{"sigma with in", []string{"--solve", "c", "--in", good, "--sigma", "2", "--eps", "1"}, "--sigma: only with --mechanism gaussian"},
		{"orders with in", []string{"--solve", "k", "--in", good, "--orders", "2,4", "--eps", "1"}, "--orders: not with --in"},
		{"bad curve", []string{"--solve", "c", "--in", writeTemp(t, "bad.csv", "2,0.5\n2,1\n"), "--eps", "1"}, "line 2: alpha 2 repeats line 1"},
		{"bad json curve", []string{"--solve", "k", "--in", writeTemp(t, "bad.json", `{"orders": [2, 3], "rdp": [1]}`), "--eps", "1"}, "2 orders and 1 rdp values"},
		{"no mechanism", []string{"--solve", "c", "--eps", "1"}, "--mechanism: give --mechanism gaussian|laplace|rr or --in FILE"},
		{"sigma missing", []string{"--solve", "c", "--mechanism", "gaussian", "--eps", "1"}, "--sigma: needed with --mechanism gaussian"},
		{"impossible target", []string{"--solve", "c", "--in", good, "--eps", "1e-6"}, "calibrate: no c in (0, 1/2) meets eps 1e-06"},
		{"impossible k", []string{"--solve", "k", "--c", "0.01", "--mechanism", "gaussian", "--sigma", "0.5", "--eps", "0.5", "--orders", "2,4"}, "calibrate: no k >= 1 meets eps 0.5"},
		{"argument", []string{"--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "extra"}, `calibrate: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		code, stdout, stderr := runArgs(t, append([]string{"calibrate", "--timeout", "2s"}, tc.args...)...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") ||
			!strings.HasPrefix(stderr, "bernamp: ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tc.name, code, stdout, stderr, tc.want)
		}
	}
}

// TestCalibrateWork checks the work guard: accountant.Problem.MinEvals is
// never above the amplified curves a search that runs to the end computes
// (the estimate counts only candidates the bracket forces), and the guard
// refuses a run whose estimate is just above --max-work (exit 2, one line
// naming --max-work, no Post) and runs it just below. The mechanism is the
// curve with no guarantee at any order (its amplified curve is the closed
// form d k r_alpha(c), so no solve is slow) or the Gaussian on two orders.
func TestCalibrateWork(t *testing.T) {
	t.Parallel()
	inf := writeTemp(t, "inf.csv", "alpha,eps\n2,inf\n8,inf\n")
	tests := []struct {
		name string
		args []string
		p    accountant.Problem
		n    int // orders
	}{
		{"c coarse", []string{"--solve", "c", "--in", inf, "--eps", "2", "--resolution", "0.3"}, accountant.Problem{Solve: accountant.SolveC, Resolution: 0.3, Kernel: accountant.Kernel{D: 1, K: 1}}, 2},
		{"c fine", []string{"--solve", "c", "--in", inf, "--eps", "2", "--k", "3", "--resolution", "1e-6"}, accountant.Problem{Solve: accountant.SolveC, Resolution: 1e-6, Kernel: accountant.Kernel{D: 1, K: 3}}, 2},
		{"c d 2", []string{"--solve", "c", "--in", inf, "--eps", "4", "--d", "2", "--k", "2", "--resolution", "0.01"}, accountant.Problem{Solve: accountant.SolveC, Resolution: 0.01, Kernel: accountant.Kernel{D: 2, K: 2}}, 2},
		{"k", []string{"--solve", "k", "--in", inf, "--eps", "5", "--c", "0.3"}, accountant.Problem{Solve: accountant.SolveK, Kernel: accountant.Kernel{D: 1, C: 0.3}}, 2},
		{"sigma", []string{"--solve", "sigma", "--mechanism", "gaussian", "--orders", "2,8", "--eps", "2", "--c", "0.05", "--resolution", "0.05"}, accountant.Problem{Solve: accountant.SolveNoise, Resolution: 0.05, Kernel: accountant.Kernel{D: 1, K: 1, C: 0.05}}, 2},
		{"sigma fine", []string{"--solve", "sigma", "--mechanism", "gaussian", "--orders", "2,8", "--eps", "2", "--c", "0.05", "--resolution", "1e-4"}, accountant.Problem{Solve: accountant.SolveNoise, Resolution: 1e-4, Kernel: accountant.Kernel{D: 1, K: 1, C: 0.05}}, 2},
	}
	for _, tc := range tests {
		work, _, _, _ := tc.p.Work(tc.n, 2*time.Second)
		below := time.Duration(work*float64(time.Second)) - time.Millisecond
		above := time.Duration(work*float64(time.Second)) + time.Millisecond
		code, stdout, stderr := runArgs(t, append([]string{"calibrate", "--timeout", "2s", "--workers", "1", "--max-work", below.String()}, tc.args...)...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "more than --max-work") {
			t.Errorf("%s: --max-work %v (estimate %gs): exit %d, stdout %q, stderr %q; want exit 2 and one line on --max-work", tc.name, below, work, code, stdout, stderr)
			continue
		}
		code, stdout, stderr = runArgs(t, append([]string{"calibrate", "--timeout", "2s", "--workers", "1", "--format", "json", "--max-work", above.String()}, tc.args...)...)
		if code != 0 {
			t.Errorf("%s: --max-work %v: exit %d: %s", tc.name, above, code, stderr)
			continue
		}
		var out calibrateOutput
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.Any {
			t.Errorf("%s: the search ended early (any); pick a target it must search for", tc.name)
		}
		if min := tc.p.MinEvals(); out.Evals < min {
			t.Errorf("%s: %d amplified curves computed, fewer than MinEvals %d", tc.name, out.Evals, min)
		}
	}
}
