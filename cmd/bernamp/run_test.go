package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runArgs runs the command line on buffers, with stdout not a terminal.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runTerm(context.Background(), args, &out, &errb, tty{})
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string // substring of the one-line message
	}{
		{"c too large", []string{"post", "--c", "0.7"}, "--c: c is 0.7, must be in (0, 0.5)"},
		{"c zero", []string{"post", "--c", "0.1,0"}, "--c: c is 0, must be in (0, 0.5)"},
		{"c half", []string{"bounds", "--c", "0.5"}, "--c: c is 0.5, must be in (0, 0.5)"},
		{"c NaN", []string{"post", "--c", "NaN"}, "--c: c is NaN"},
		{"c Inf", []string{"post", "--c", "Inf"}, "--c: c is +Inf"},
		{"alpha one", []string{"post", "--alpha", "1"}, "--alpha: alpha is 1, must be > 1 and finite"},
		{"alpha small", []string{"bounds", "--alpha", "2,0.5"}, "--alpha: alpha is 0.5"},
		{"alpha Inf", []string{"post", "--alpha", "+Inf"}, "--alpha: alpha is +Inf"},
		{"alpha NaN", []string{"post", "--alpha", "nan"}, "--alpha: alpha is NaN"},
		{"eps negative", []string{"post", "--eps", "-0.1"}, "--eps: eps is -0.1, must be >= 0 and finite"},
		{"eps NaN", []string{"post", "--eps", "NaN"}, "--eps: eps is NaN"},
		{"eps Inf", []string{"post", "--eps", "1,Inf"}, "--eps: eps is +Inf"},
		{"eps range negative", []string{"post", "--eps", "-1:1:0.5"}, "--eps: eps is -1"},
		{"d zero", []string{"post", "--d", "0"}, "--d: d is 0, must be >= 1"},
		{"d negative range", []string{"bounds", "--d", "-1:2:1"}, "--d: d is -1, must be >= 1"},
		{"k zero", []string{"post", "--k", "1,0"}, "--k: k is 0, must be >= 1"},
		{"d not integer", []string{"post", "--d", "1.5"}, `--d: "1.5" is not an integer`},
		{"k not a number", []string{"post", "--k", "two"}, `--k: "two" is not an integer`},
		{"c not a number", []string{"post", "--c", "0.1,x"}, `--c: "x" is not a number`},
		{"empty list", []string{"post", "--eps", ""}, "--eps: empty list"},
		{"empty item", []string{"post", "--eps", "0.1,,0.2"}, "--eps: empty value"},
		{"trailing comma", []string{"post", "--alpha", "2,"}, "--alpha: empty value"},
		{"range stop < start", []string{"post", "--eps", "1:0:0.1"}, "--eps: range \"1:0:0.1\": stop 0 is less than start 1"},
		{"range step zero", []string{"post", "--eps", "0:1:0"}, "--eps: range \"0:1:0\": step is 0, must be > 0"},
		{"range step negative", []string{"post", "--c", "0.4:0.1:-0.1"}, "--c: range \"0.4:0.1:-0.1\": step is -0.1"},
		{"range two parts", []string{"post", "--eps", "0:1"}, "--eps: range \"0:1\" must be start:stop:step"},
		{"range four parts", []string{"post", "--eps", "0:1:1:1"}, "must be start:stop:step"},
		{"range not a number", []string{"post", "--eps", "a:1:0.1"}, `--eps: range "a:1:0.1": "a" is not a number`},
		{"range Inf", []string{"post", "--eps", "0:Inf:1"}, "--eps: range \"0:Inf:1\": +Inf is not finite"},
		{"range NaN step", []string{"post", "--eps", "0:1:NaN"}, "--eps: range \"0:1:NaN\": NaN is not finite"},
		{"int range step zero", []string{"post", "--d", "1:3:0"}, "--d: range \"1:3:0\": step is 0"},
		{"int range stop < start", []string{"post", "--k", "3:1:1"}, "--k: range \"3:1:1\": stop 1 is less than start 3"},
		{"range too fine", []string{"post", "--eps", "1:1.000000000001:1e-15"}, "too small for 12 significant digits"},
		{"range too long", []string{"post", "--eps", "0:1e9:1"}, "--eps: range \"0:1e9:1\" has more than 100000000 values"},
		{"format", []string{"post", "--format", "xml"}, `--format: format is "xml", must be csv, json or table`},
		{"workers zero", []string{"post", "--workers", "0"}, "--workers: workers is 0, must be >= 1"},
		{"workers negative", []string{"bounds", "--workers", "-2"}, "--workers: workers is -2, must be >= 1"},
		{"workers not a number", []string{"post", "--workers", "many"}, `invalid value "many" for flag -workers`},
		{"tol zero", []string{"post", "--tol", "0"}, "--tol: tol is 0, must be > 0 and finite"},
		{"tol negative", []string{"post", "--tol", "-1e-9"}, "--tol: tol is -1e-09"},
		{"tol NaN", []string{"post", "--tol", "NaN"}, "--tol: tol is NaN"},
		{"tol Inf", []string{"post", "--tol", "Inf"}, "--tol: tol is +Inf"},
		{"timeout negative", []string{"post", "--timeout", "-1s"}, "--timeout: timeout is -1s, must be >= 0"},
		{"timeout malformed", []string{"post", "--timeout", "5"}, `invalid value "5" for flag -timeout`},
		{"grid too large", []string{"bounds", "--c", "0.01:0.49:0.01", "--eps", "0:3000:1"}, "grid has 147049 points, more than the limit of 100000"},
		{"grid too large post", []string{"post", "--d", "1:11:1", "--eps", "0:10000:1"}, "grid has 110011 points, more than the limit of 100000; use --force"},
		{"grid too large even forced", []string{"bounds", "--force", "--c", "0.0001:0.4999:0.0001", "--eps", "0:100000:1"}, "more than the limit of 100000000 even with --force"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"post", "--bogus", "1"}, "post: flag provided but not defined: -bogus"},
		{"tol not a bounds flag", []string{"bounds", "--tol", "1e-6"}, "bounds: flag provided but not defined: -tol"},
		{"grid not a demo flag", []string{"demo", "--d", "2"}, "demo: flag provided but not defined: -d"},
		{"demo workers", []string{"demo", "--workers", "0"}, "--workers: workers is 0"},
		{"demo tol", []string{"demo", "--tol", "-1"}, "--tol: tol is -1"},
		{"demo empty out", []string{"demo", "--out", ""}, "--out: empty file name"},
		{"positional argument", []string{"post", "--d", "1", "extra"}, `post: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runArgs(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing before validation passes", stdout)
			}
			if !strings.HasPrefix(stderr, "bernamp: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line starting with \"bernamp: \"", stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.want)
			}
		})
	}
}

// TestForce runs a grid rejected without --force (the "grid too large"
// case above), to show that --force lifts the limit.
func TestForce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 147049 rows")
	}
	args := []string{"bounds", "--c", "0.01:0.49:0.01", "--eps", "0:3000:1", "--no-timing", "--format", "csv"}
	if code, _, _ := runArgs(t, args...); code != 2 {
		t.Fatalf("without --force: exit %d, want 2", code)
	}
	code, stdout, stderr := runArgs(t, append(args, "--force")...)
	if code != 0 || stderr != "" {
		t.Fatalf("with --force: exit %d, stderr %q", code, stderr)
	}
	if n := strings.Count(stdout, "\n"); n != 147049+1 {
		t.Errorf("with --force: %d lines, want 147050", n)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	names, text := topics()
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runArgs(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, stderr)
		}
		for _, want := range append(commandNames(), "bernamp help [COMMAND | TOPIC]") {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: usage lacks %q", args, want)
			}
		}
		if strings.Contains(stdout, "//") || strings.Contains(stdout, "package main") {
			t.Errorf("%v: usage keeps Go syntax:\n%s", args, stdout)
		}
		if strings.Contains(stdout, text["output"]) || strings.Count(stdout, "\n") > 120 {
			t.Errorf("%v: %d lines with the topics' texts; want the index", args, strings.Count(stdout, "\n"))
		}
	}
	// The index names the topics there are (the sentence is hand-written).
	_, sentence, _ := strings.Cut(usage(), "The topics are ")
	sentence, _, _ = strings.Cut(sentence, ".")
	listed := strings.FieldsFunc(strings.ReplaceAll(sentence, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	if !slices.Equal(listed, names) || len(names) < 8 {
		t.Errorf("the index lists the topics %q; the sections are %q", listed, names)
	}
	for _, name := range names {
		code, stdout, stderr := runArgs(t, "help", name)
		// A topic named for a command comes within the command's help.
		if code != 0 || !strings.Contains(stdout, text[name]) || slices.Contains(commandNames(), name) != (stdout != text[name]) || len(text[name]) < 200 {
			t.Errorf("help %s: exit %d, %d bytes, stderr %q", name, code, len(stdout), stderr)
		}
	}
	// help COMMAND is COMMAND -h: the entry, the flags, the topics.
	for _, cmd := range []string{"post", "curve", "grid"} {
		_, viaHelp, _ := runArgs(t, "help", cmd)
		code, stdout, _ := runArgs(t, cmd, "-h")
		if code != 0 || viaHelp != stdout {
			t.Errorf("help %s and %s -h differ (exit %d):\n%s\n---\n%s", cmd, cmd, code, viaHelp, stdout)
		}
		if !strings.Contains(stdout, commandEntry(cmd)) || commandEntry(cmd) == "" || !strings.Contains(stdout, "Topics (bernamp help TOPIC): grids,") {
			t.Errorf("%s -h lacks its entry %q or the topics:\n%s", cmd, commandEntry(cmd), stdout)
		}
	}
	_, postHelp, _ := runArgs(t, "post", "-h")
	for _, want := range []string{"-d string", "-k string", "-c string", "-alpha string", "-eps string", "-format string",
		"-workers int", "-tol float", "-timeout duration", "-force", "-no-timing", "-out string"} {
		if !strings.Contains(postHelp, "  "+want+"\n") {
			t.Errorf("post -h lacks %q", want)
		}
	}
	if _, curveHelp, _ := runArgs(t, "curve", "-h"); !strings.Contains(curveHelp, text["curve"]) {
		t.Errorf("curve -h lacks the topic curve")
	}
	if code, _, stderr := runArgs(t, "help", "nope"); code != 2 || !strings.Contains(stderr, "the topics: grids") {
		t.Errorf("help nope: exit %d, stderr %q; want 2 naming the commands and topics", code, stderr)
	}
	code, stdout, stderr := runArgs(t)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "bernamp <command> [flags]") {
		t.Errorf("no args: exit %d, stdout %q, stderr %q; want 2 and the usage on stderr", code, stdout, stderr)
	}
	// No arguments: a short usage (it was the whole 282-line text), naming
	// every command.
	if n := strings.Count(stderr, "\n"); n > 10 {
		t.Errorf("no args: %d lines on stderr, want a short usage", n)
	}
	_, list, _ := strings.Cut(stderr, "Commands: ")
	list, _, _ = strings.Cut(list, "\n")
	if got, want := list, "bounds, post, grid, merge, demo, plot, compose, curve, calibrate, pure, delta, conjecture, serve, verify, help"; got != want {
		t.Errorf("no args: commands %q, want %q", got, want)
	}
	code, stdout, _ = runArgs(t, "post", "-h")
	if code != 0 || !strings.Contains(stdout, "-timeout") {
		t.Errorf("post -h: exit %d, stdout %q; want 0 and the flags", code, stdout)
	}
}

func TestParseFloats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []float64
		wantErr bool
	}{
		{"0.1:0.5:0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5}, false},
		{"1:10:3", []float64{1, 4, 7, 10}, false},
		{"1:2:5", []float64{1}, false},
		{"2:2:1", []float64{2}, false},
		{"0:1:0.3", []float64{0, 0.3, 0.6, 0.9}, false},
		{"0.1:5:0.1", nil, false}, // length checked below
		{"-1:0:0.25", []float64{-1, -0.75, -0.5, -0.25, 0}, false},
		{"1:1.0000000001:0.0000000001", []float64{1, 1.0000000001}, false},
		{"0.5, 1,2", []float64{0.5, 1, 2}, false},
		{"3", []float64{3}, false},
		{"", nil, true},
		{"1,", nil, true},
		{",1", nil, true},
		{"a", nil, true},
		{"1:0:1", nil, true},
		{"0:1:0", nil, true},
		{"0:1:-1", nil, true},
		{"0::1", nil, true},
		{"0:1", nil, true},
		{"0:1:1:1", nil, true},
		{"0:NaN:1", nil, true},
		{"-Inf:0:1", nil, true},
		{"0:1e300:1e-300", nil, true},
	}
	for _, tc := range tests {
		got, err := parseFloats(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseFloats(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if tc.in == "0.1:5:0.1" {
			if len(got) != 50 || got[0] != 0.1 || got[2] != 0.3 || got[49] != 5 {
				t.Errorf("parseFloats(%q) = %v, want 0.1, 0.2, ..., 5 (50 values)", tc.in, got)
			}
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseFloats(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseInts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1:10:3", []int{1, 4, 7, 10}, false},
		{"1:2:5", []int{1}, false},
		{"1:9:3", []int{1, 4, 7}, false},
		{"1,2,4", []int{1, 2, 4}, false},
		{" 5 ", []int{5}, false},
		{"", nil, true},
		{"1,,2", nil, true},
		{"1.0", nil, true},
		{"1e3", nil, true},
		{"3:1:1", nil, true},
		{"1:3:0", nil, true},
		{"1:3", nil, true},
		{"x:3:1", nil, true},
		{"0:1000000000:1", nil, true},
	}
	for _, tc := range tests {
		got, err := parseInts(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseInts(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseInts(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestGridOrder checks the cartesian product order: d, k, c, alpha, eps with
// eps varying fastest.
func TestGridOrder(t *testing.T) {
	t.Parallel()
	g, err := newGrid(gridFlags{d: "1,2", k: "1", c: "0.1,0.2", alpha: "3", eps: "0.5,1,2"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if g.n != 12 {
		t.Fatalf("n = %d, want 12", g.n)
	}
	want := []struct {
		d      int
		c, eps float64
	}{{1, 0.1, 0.5}, {1, 0.1, 1}, {1, 0.1, 2}, {1, 0.2, 0.5}, {1, 0.2, 1}, {1, 0.2, 2},
		{2, 0.1, 0.5}, {2, 0.1, 1}, {2, 0.1, 2}, {2, 0.2, 0.5}, {2, 0.2, 1}, {2, 0.2, 2}}
	for i, w := range want {
		p := g.at(i)
		if p.D != w.d || p.K != 1 || p.C != w.c || p.Alpha != 3 || p.Eps != w.eps {
			t.Errorf("point %d = %+v, want d=%d c=%v eps=%v", i, p, w.d, w.c, w.eps)
		}
	}
}

// readCSV parses the output and checks the header.
func readCSV(t *testing.T, out string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, out)
	}
	if len(rows) == 0 || !reflect.DeepEqual(rows[0], header) {
		t.Fatalf("header = %v, want %v", rows[:min(1, len(rows))], header)
	}
	return rows[1:]
}

func TestPostCSV(t *testing.T) {
	t.Parallel()
	grid := []string{"--d", "1", "--k", "1,2", "--c", "0.1,0.25", "--alpha", "2,5", "--eps", "0.5:1.5:0.5"}
	const n = 2 * 2 * 2 * 3
	outputs := make(map[string]string)
	for _, workers := range []string{"1", "4"} {
		for _, timing := range []bool{false, true} {
			args := append([]string{"post", "--workers", workers}, grid...)
			if !timing {
				args = append(args, "--no-timing")
			}
			code, stdout, stderr := runArgs(t, args...)
			if code != 0 || stderr != "" {
				t.Fatalf("workers %s: exit %d, stderr %q", workers, code, stderr)
			}
			rows := readCSV(t, stdout)
			if len(rows) != n {
				t.Fatalf("workers %s: %d rows, want %d", workers, len(rows), n)
			}
			var b strings.Builder
			for i, r := range rows {
				// Grid order: eps varies fastest, then alpha, c, k.
				wantEps := []string{"0.5", "1", "1.5"}[i%3]
				wantK := []string{"1", "2"}[i/12]
				if r[1] != wantK || r[4] != wantEps {
					t.Errorf("row %d: k=%s eps=%s, want k=%s eps=%s", i, r[1], r[4], wantK, wantEps)
				}
				var v [4]float64
				for j := range v {
					f, err := strconv.ParseFloat(r[5+j], 64)
					if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
						t.Fatalf("row %d column %s = %q, want a finite number", i, header[5+j], r[5+j])
					}
					v[j] = f
				}
				lb, ub, post, postUpper := v[0], v[1], v[2], v[3]
				if !(leq(lb, post) && leq(post, postUpper) && leq(postUpper, ub)) {
					t.Errorf("row %d: lb %v post %v post_upper %v ub %v out of order", i, lb, post, postUpper, ub)
				}
				if r[9] != "certified" {
					t.Errorf("row %d: status %q, want certified for d = 1", i, r[9])
				}
				if r[10] != "verified" {
					t.Errorf("row %d: check %q, want verified (checked by default)", i, r[10])
				}
				if secs, err := strconv.ParseFloat(r[11], 64); err != nil || secs < 0 || (!timing && r[11] != "0.0000") {
					t.Errorf("row %d: seconds %q (timing %v)", i, r[11], timing)
				}
				b.WriteString(strings.Join(r[:11], ",") + "\n") // without seconds
			}
			if !timing {
				outputs["bytes"+workers] = stdout
			}
			outputs[workers+strconv.FormatBool(timing)] = b.String()
		}
	}
	if outputs["bytes1"] != outputs["bytes4"] {
		t.Errorf("--no-timing output differs between --workers 1 and 4:\n%s\n%s", outputs["bytes1"], outputs["bytes4"])
	}
	for _, k := range []string{"1true", "4false", "4true"} {
		if outputs[k] != outputs["1false"] {
			t.Errorf("output %s differs from 1false, ignoring seconds", k)
		}
	}
}

func TestBoundsCSV(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runArgs(t, "bounds", "--d", "1:3:1", "--k", "1,3", "--c", "0.05", "--alpha", "50", "--eps", "0:2:0.5")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	rows := readCSV(t, stdout)
	if len(rows) != 3*2*5 {
		t.Fatalf("%d rows, want 30", len(rows))
	}
	for i, r := range rows {
		if r[5] != r[7] || r[6] != r[8] {
			t.Errorf("row %d: post %s post_upper %s, want lb %s and ub %s", i, r[7], r[8], r[5], r[6])
		}
		if r[9] != "bounds" && r[9] != "certified" {
			t.Errorf("row %d: status %q", i, r[9])
		}
	}
	// eps = 0 gives Post = 0: lb = ub = 0, certified.
	if r := rows[0]; r[4] != "0" || r[5] != "0" || r[6] != "0" || r[9] != "certified" {
		t.Errorf("eps = 0 row = %v, want lb = ub = 0, certified", r)
	}
}

func TestPostJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runArgs(t, "post", "--d", "1", "--k", "1,2", "--eps", "0,0.5,1", "--format", "json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.HasPrefix(stdout, "[\n{") || !strings.HasSuffix(stdout, "}\n]\n") || strings.Count(stdout, "\n") != 6+2 {
		t.Errorf("want one object per line between [ and ]:\n%s", stdout)
	}
	var recs []record
	if err := json.Unmarshal([]byte(stdout), &recs); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	for i, r := range recs {
		if r.D != 1 || r.Status == "" || r.Conjecture == "" || r.Method == "" {
			t.Errorf("record %d = %+v, want d = 1 and status, conjecture, method", i, r)
		}
		w := r.Witness
		if w == nil || len(w.Corners) == 0 || len(w.P) != len(w.Corners) || len(w.Q) != len(w.Corners) {
			t.Fatalf("record %d: witness %+v, want corners with masses p and q", i, w)
		}
		if math.Abs(w.Value-r.Post) > 1e-12 && r.Post != r.LB {
			t.Errorf("record %d: witness value %v, post %v", i, w.Value, r.Post)
		}
		if w.DivPQ > r.Eps*(1+1e-9)+1e-12 || w.DivQP > r.Eps*(1+1e-9)+1e-12 {
			t.Errorf("record %d: witness divergences %v, %v exceed eps %v", i, w.DivPQ, w.DivQP, r.Eps)
		}
		if (r.Search == nil || !r.Search.Complete) && (r.Pieces == nil || !r.Pieces.Proved) && r.UB-r.LB > 1e-9 {
			t.Errorf("record %d: search %+v, pieces %+v, want a complete search or a proved certificate", i, r.Search, r.Pieces)
		}
		if r.UB != math.Min(r.UBPostProcessing, r.UBAsymptote) || r.Excess != r.Post-r.LB {
			t.Errorf("record %d: ub %v excess %v inconsistent", i, r.UB, r.Excess)
		}
	}
	// Witness and search are omitted for bounds.
	_, stdout, _ = runArgs(t, "bounds", "--format", "json")
	if strings.Contains(stdout, "witness") || strings.Contains(stdout, "search") || !strings.Contains(stdout, `"ub_post_processing":1`) {
		t.Errorf("bounds JSON = %s, want no witness or search", stdout)
	}
}

func TestFormatDefault(t *testing.T) {
	t.Parallel()
	for _, terminal := range []bool{false, true} {
		var out, errb bytes.Buffer
		code := runTerm(context.Background(), []string{"bounds", "--eps", "1,2"}, &out, &errb, tty{stdout: terminal})
		if code != 0 {
			t.Fatalf("terminal %v: exit %d, stderr %q", terminal, code, errb.String())
		}
		wantPrefix := "d,k,c,alpha,eps,lb"
		if terminal {
			wantPrefix = "d  k  c    alpha  eps  lb"
		}
		if !strings.HasPrefix(out.String(), wantPrefix) || strings.Count(out.String(), "\n") != 3 {
			t.Errorf("terminal %v: output\n%s\nwant 3 lines starting %q", terminal, out.String(), wantPrefix)
		}
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("isTerminal(buffer) = true")
	}
}

// TestCancelled runs with a context cancelled before the start, as after
// Ctrl-C: exit 1 with a message, and the output is still well formed.
func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, format := range []string{"csv", "json"} {
		var out, errb bytes.Buffer
		code := runTerm(ctx, []string{"post", "--eps", "1,2", "--format", format}, &out, &errb, tty{})
		if code != 1 || !strings.Contains(errb.String(), "bernamp: interrupted: 0 of 2 rows written") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and an interruption message", format, code, errb.String())
		}
		if format == "json" {
			var recs []record
			if err := json.Unmarshal(out.Bytes(), &recs); err != nil || len(recs) != 0 {
				t.Errorf("json: %q is not an empty array: %v", out.String(), err)
			}
		} else if out.String() != strings.Join(header, ",")+"\n" {
			t.Errorf("csv: output %q, want the header only", out.String())
		}
	}
}

func TestCrossCheck(t *testing.T) {
	t.Parallel()
	ok := record{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1, LB: 0.5, Post: 0.6, PostUpper: 0.7, UB: 1, Conjecture: "open"}
	tests := []struct {
		name   string
		mod    func(*record)
		failed int
		want   string // substring of stderr, "" for nothing
	}{
		{"ordered", func(*record) {}, 0, ""},
		{"equal", func(r *record) { r.Post, r.PostUpper, r.UB = 0.5, 0.5, 0.5 }, 0, ""},
		{"within tolerance", func(r *record) { r.Post = r.LB * (1 - 5e-13) }, 0, ""},
		{"post below lb", func(r *record) { r.Post = r.LB * (1 - 1e-11) }, 1, "bernamp: cross-check failed: d=1 k=1 c=0.1 alpha=5 eps=1: lb=0.5"},
		{"post above upper", func(r *record) { r.Post = 0.8 }, 1, "cross-check failed"},
		{"upper above ub", func(r *record) { r.PostUpper = 1.1 }, 1, "post_upper=1.1 ub=1"},
		{"zero", func(r *record) { r.LB, r.Post, r.PostUpper, r.UB = 0, 1e-16, 0, 0 }, 0, ""},
		{"refuted", func(r *record) {
			r.Conjecture = "refuted"
			r.Excess = 0.1
			r.Witness = &witnessRecord{Corners: []string{"0", "1"}, P: []float64{0.5, 0.5}, Q: []float64{0.25, 0.75}, Value: 0.6}
		}, 0, "bernamp: conjecture refuted at d=1 k=1 c=0.1 alpha=5 eps=1: post=0.6 exceeds lb=0.5 by 0.1; witness corners=[0 1] p=[0.5 0.5]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := ok
			tc.mod(&r)
			var errb bytes.Buffer
			c := rowChecker{w: &errb}
			c.check(&r)
			if c.failed != tc.failed {
				t.Errorf("failed = %d, want %d", c.failed, tc.failed)
			}
			if (tc.want == "") != (errb.Len() == 0) || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr = %q, want %q", errb.String(), tc.want)
			}
		})
	}
}

func TestFinite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mod  func(*record)
		want string // "" for no error
	}{
		{"finite", func(*record) {}, ""},
		{"lb NaN", func(r *record) { r.LB = math.NaN() }, "lb is NaN"},
		{"ub Inf", func(r *record) { r.UB = math.Inf(1) }, "ub is +Inf"},
		{"thm2 -Inf", func(r *record) { r.Thm2 = math.Inf(-1) }, "thm2 is -Inf"},
		{"witness q", func(r *record) { r.Witness = &witnessRecord{P: []float64{1}, Q: []float64{math.NaN()}} }, "witness.q[0] is NaN"},
		{"open bound", func(r *record) { r.Search = &searchRecord{OpenBound: math.Inf(1)} }, "search.open_bound is +Inf"},
	}
	for _, tc := range tests {
		var r record
		tc.mod(&r)
		err := r.finite()
		if (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
			t.Errorf("%s: finite() = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestUsageText(t *testing.T) {
	t.Parallel()
	u := usage()
	if !strings.HasPrefix(u, "Bernamp computes") || !strings.Contains(u, "\tbernamp <command> [flags]\n") {
		t.Errorf("usage text starts %q; want the doc without comment markers", u[:min(len(u), 80)])
	}
}

// TestDemo runs the Figure 1 grid. The time limit per point keeps it to
// seconds; points cut short still carry proved intervals.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("demo solves 750 points")
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "demo.csv")
	fig := filepath.Join(t.TempDir(), "demo.png")
	code, stdout, stderr := runArgs(t, "demo", "--out", out, "--figure", fig, "--timeout", "1ms", "--no-timing")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, "cross-check") {
		t.Errorf("stderr %q", stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, string(b))
	if len(rows) != 5*3*50 {
		t.Errorf("%d rows, want 750", len(rows))
	}
	if r := rows[len(rows)-1]; r[0] != "15" || r[2] != "0.3" || r[3] != "50" || r[4] != "5" {
		t.Errorf("last row %v, want d=15 c=0.3 alpha=50 eps=5", r)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 1+15+2 || !strings.HasPrefix(lines[0], "d ") || lines[16] != "CSV: "+out || lines[17] != "Figure: "+fig {
		t.Fatalf("summary:\n%s\nwant a header, 15 rows, the CSV and figure paths", stdout)
	}
	f, err := os.Open(fig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width < 500 || cfg.Height < 500 {
		t.Errorf("figure: %+v, %v; want a PNG of the 5 x 3 panels", cfg, err)
	}
	for _, l := range lines[1:16] {
		if f := strings.Fields(l); len(f) != 10 || f[1] != "1" || f[3] != "50" {
			t.Errorf("summary row %q, want 10 fields with k=1 and 50 points", l)
		}
	}
	// With --timeout 1ms the certificate closes only some points; the
	// summary's certified count must be the CSV's.
	certified := 0
	for _, r := range rows {
		if r[0] == "1" && r[2] == "0.01" && r[9] == "certified" {
			certified++
		}
	}
	if f := strings.Fields(lines[1]); f[0] != "1" || f[2] != "0.01" || f[4] != strconv.Itoa(certified) {
		t.Errorf("first summary row %q, want d=1 c=0.01 with the CSV's %d certified", lines[1], certified)
	}
}

// The demo's first panel (d = 1, c = 0.01, alpha 50, eps 0.1:5:0.1) is
// certified at every point by the pieces certificate with post's default
// time limit (TestDemo runs the demo at 1 ms a point, where it is not).
func TestDemoFirstPanelCertified(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runArgs(t, "post", "--d", "1", "--c", "0.01", "--alpha", "50", "--eps", "0.1:5:0.1", "--no-timing")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	rows := readCSV(t, stdout)
	if len(rows) != 50 {
		t.Fatalf("%d rows, want 50", len(rows))
	}
	for _, r := range rows {
		if r[9] != "certified" {
			t.Errorf("eps %s: %s, post %s, post_upper %s", r[4], r[9], r[7], r[8])
		}
	}
}

func TestSolverSettings(t *testing.T) {
	t.Parallel()
	tests := []struct{ workers, n, want int }{
		{8, 1, 8}, {8, 3, 2}, {8, 8, 1}, {2, 750, 1}, {1, 1, 1}, {3, 2, 1},
	}
	for _, tc := range tests {
		o := options{workers: tc.workers, tol: 1e-6}
		s := solverSettings(&o, tc.n)
		if s.Workers != tc.want || s.Tol != 1e-6 {
			t.Errorf("workers %d, n %d: settings %+v, want Workers %d", tc.workers, tc.n, s, tc.want)
		}
	}
}

func TestMethodFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{"post", "--method", "dense"}, 2, "--method"},
		{[]string{"post", "--d", "30", "--method", "full"}, 2, "--method"},
		{[]string{"post", "--d", "2", "--method", "full", "--no-timing"}, 0, ""},
	} {
		code, stdout, stderr := runArgs(t, tc.args...)
		if code != tc.wantCode || !strings.Contains(stderr, tc.wantErr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.wantCode, tc.wantErr)
		}
		if code == 0 {
			full := readCSV(t, stdout)
			_, red, _ := runArgs(t, "post", "--d", "2", "--no-timing")
			reduced := readCSV(t, red)
			// The two evaluators agree to 1e-12; the printed witnesses must
			// agree to the 10 digits a user reads.
			f, _ := strconv.ParseFloat(full[0][7], 64)
			r, _ := strconv.ParseFloat(reduced[0][7], 64)
			if math.Abs(f-r) > 1e-10 {
				t.Errorf("post with full %v, reduced %v", f, r)
			}
		}
	}
}
