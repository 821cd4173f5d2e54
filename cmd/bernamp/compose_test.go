package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bernamp/bernamp/accountant"
)

// docExamples returns the examples of a Markdown file: each fenced block
// whose first line is "$ bernamp ...", as the arguments and the lines that
// follow (what the command prints).
func docExamples(t *testing.T, path string) (args [][]string, want []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```")
	for i := 1; i < len(blocks); i += 2 {
		b := strings.TrimPrefix(blocks[i], "\n")
		cmd, out, _ := strings.Cut(b, "\n")
		if !strings.HasPrefix(cmd, "$ bernamp ") {
			continue
		}
		args = append(args, strings.Fields(strings.TrimPrefix(cmd, "$ bernamp ")))
		want = append(want, out)
	}
	return args, want
}

// TestDocExamples runs every example of docs/compose.md, README.md and
// docs/web.md (blocks of one "$ bernamp ..." command), and compares what
// it prints (stdout, or stderr when it fails) with the page.
func TestDocExamples(t *testing.T) {
	t.Chdir("../..")
	args, want := docExamples(t, "docs/compose.md")
	if len(args) < 4 {
		t.Fatalf("%d examples in docs/compose.md", len(args))
	}
	for _, page := range []string{"README.md", "docs/web.md", "docs/grids.md"} {
		a, w := docExamples(t, page)
		if page == "docs/grids.md" && len(a) < 1 {
			t.Fatalf("no examples in %s", page)
		}
		args, want = append(args, a...), append(want, w...)
	}
	for i, a := range args {
		var out, errb bytes.Buffer
		code := runTerm(context.Background(), a, &out, &errb, tty{})
		got := out.String()
		if code != 0 {
			got = errb.String()
		}
		if got != want[i] {
			t.Errorf("bernamp %s (exit %d):\n got:\n%s\nwant:\n%s", strings.Join(a, " "), code, got, want[i])
		}
	}
}

// TestComposeUsage: bad input is one line on stderr and exit code 2.
func TestComposeUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"compose"}, "--mechanism: give"},
		{[]string{"compose", "--mechanism", "gaussian"}, "--sigma: needed"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "0"}, "--sigma: sigma is 0"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--b", "1"}, "--b: only with --mechanism laplace"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--c", "0.5"}, "--c"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--steps", "0"}, "--steps: steps is 0"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--delta", "1"}, "--delta: delta is 1"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--delta", "1e-5", "--eps", "1"}, "not both"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--discretization", "-1"}, "--discretization"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--discretization", "2"}, "--discretization"},
		{[]string{"compose", "--mechanism", "subsampled-gaussian", "--sigma", "1"}, "--q"},
		{[]string{"compose", "--mechanism", "subsampled-gaussian", "--sigma", "1", "--q", "1.5"}, "--q"},
		{[]string{"compose", "--mechanism", "rdp"}, "--in: needed"},
		{[]string{"compose", "--mechanism", "profile", "--in", "/nonexistent"}, "--in"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--d", "1,2", "--emit-pld", "x.json"}, "--emit-pld: needs one row"},
		{[]string{"compose", "--mechanism", "nope"}, `mechanism is "nope"`},
		{[]string{"compose", "--mechanism", "cauchy", "--sigma", "2"}, `--mechanism: mechanism is "cauchy"`},
		{[]string{"curve", "--mechanism", "cauchy", "--sigma", "2"}, `--mechanism: mechanism is "cauchy"`},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--k", "0"}, "--k: k is 0"},
		{[]string{"compose", "--mechanism", "gaussian", "--sigma", "1", "--d", "0"}, "--d: d is 0"},
		{[]string{"compose", "--plan", "testdata/compose/nope.json"}, "--plan"},
		{[]string{"compose", "--plan", "x.json", "--d", "2"}, "--d: not with --plan"},
	} {
		var out, errb bytes.Buffer
		code := runTerm(context.Background(), tc.args, &out, &errb, tty{})
		msg := errb.String()
		if code != 2 || !strings.Contains(msg, tc.msg) || strings.Count(msg, "\n") != 1 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, msg, out.String(), tc.msg)
		}
	}
}

// TestComposeInfJSON: an eps that does not exist (delta below what any
// eps up to 700 reaches: the Gaussian at sigma 0.001, hardly amplified) is null in JSON and +Inf in CSV, never a failure.
func TestComposeInfJSON(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"json", "csv"} {
		var out, errb bytes.Buffer
		args := []string{"compose", "--mechanism", "gaussian", "--sigma", "0.001", "--d", "1000000", "--c", "0.1", "--steps", "1",
			"--rdp-route=false", "--unamplified=false", "--format", f, "--no-timing"}
		if code := runTerm(context.Background(), args, &out, &errb, tty{}); code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errb.String())
		}
		if f == "json" && !strings.Contains(out.String(), `"eps_upper": null`) || f == "csv" && !strings.Contains(out.String(), "+Inf") {
			t.Errorf("%s: %s", f, out.String())
		}
	}
}

// TestComposeProfileRoundTrip: the PLD that --emit-pld writes, read back
// with --mechanism profile, is the profile of the composed mechanism: one
// step of it answers what the composition answered (up to the grid).
func TestComposeProfileRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := dir + "/pld.json"
	var out, errb bytes.Buffer
	args := []string{"compose", "--mechanism", "gaussian", "--sigma", "2", "--c", "0.1", "--steps", "10", "--format", "csv",
		"--rdp-route=false", "--unamplified=false", "--no-timing", "--emit-pld", f}
	if code := runTerm(context.Background(), args, &out, &errb, tty{}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first := out.String()
	out.Reset()
	args = []string{"compose", "--mechanism", "profile", "--in", f, "--c", "0.1", "--steps", "1", "--format", "csv",
		"--rdp-route=false", "--unamplified=true", "--no-timing"}
	if code := runTerm(context.Background(), args, &out, &errb, tty{}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// eps_upper of 10 steps (column 7 of the first run) equals the
	// unamplified eps of the emitted PLD read back (column 9 of the
	// second), to the grid's 1e-4.
	col := func(csv string, i int) float64 {
		lines := strings.Split(strings.TrimSpace(csv), "\n")
		return mustFloat(t, strings.Split(lines[1], ",")[i])
	}
	a, b := col(first, 6), col(out.String(), 8)
	if d := a - b; d > 2e-4 || d < -2e-4 {
		t.Errorf("composed eps_upper %v, its PLD read back gives %v", a, b)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestComposeDeltaProfileFile: the file that delta --profile writes (the
// amplified profile of one (eps, delta) pair) is a profile compose reads,
// as a mechanism of its own: its eps at 1e-2 is positive and finite, and
// amplifying it again (c = 0.3) never raises it.
func TestComposeDeltaProfileFile(t *testing.T) {
	t.Parallel()
	f := t.TempDir() + "/profile.json"
	var out, errb bytes.Buffer
	args := []string{"delta", "--eps", "1", "--delta", "1e-3", "--c", "0.1", "--profile", f, "--profile-step", "1e-3", "--eps-out", "0"}
	if code := runTerm(context.Background(), args, &out, &errb, tty{}); code != 0 {
		t.Fatalf("delta: exit %d: %s", code, errb.String())
	}
	out.Reset()
	args = []string{"compose", "--mechanism", "profile", "--in", f, "--c", "0.3", "--steps", "1", "--delta", "1e-2",
		"--rdp-route=false", "--format", "csv", "--no-timing"}
	if code := runTerm(context.Background(), args, &out, &errb, tty{}); code != 0 {
		t.Fatalf("compose: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	f9 := strings.Split(lines[1], ",")
	amp, own := mustFloat(t, f9[6]), mustFloat(t, f9[8])
	// The profile file of the (1, 1e-3) pair amplified at c = 0.1 is a
	// mechanism; amplifying it again at c = 0.3 only helps.
	if !(amp <= own) || !(own > 0) {
		t.Errorf("eps_upper %v, eps_unamplified %v", amp, own)
	}
}

// TestOutputPermissions: files the commands write get 0666 less the umask
// (0644 under umask 022), so that a run's results are readable by the
// other users of a shared machine (os.CreateTemp's 0600 was not). Not
// parallel: the umask is the process's.
func TestOutputPermissions(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	f := t.TempDir() + "/out.json"
	if err := writeFileAtomic(f, func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o644 {
		t.Errorf("mode %v, want -rw-r--r--", m)
	}
}

// TestComposeProgress: rows of a multi-row run are counted on stderr when
// it is a terminal, as the other commands' progress, and nowhere else
// (a pipe to a program, the Python client, gets no such lines; only a
// route longer than plainProgressEvery writes its progress there,
// TestPlainProgress).
func TestComposeProgress(t *testing.T) {
	t.Parallel()
	args := []string{"compose", "--mechanism", "rr", "--p-true", "0.75", "--steps", "1,2", "--rdp-route=false", "--format", "csv", "--no-timing"}
	for _, term := range []bool{false, true} {
		var out, errb bytes.Buffer
		if code := runTerm(context.Background(), args, &out, &errb, tty{stderr: term}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if got, want := errb.String(), map[bool]string{false: "", true: "bernamp: compose: 1/2 rows\nbernamp: compose: 2/2 rows\n"}[term]; got != want {
			t.Errorf("stderr a terminal: %v: stderr %q, want %q", term, got, want)
		}
	}
}

// TestComposeChecked: compose checks its claim by default (the profile
// certificate, package verify) and says so; --no-check says off; a
// mechanism known by a file (profile points, an RDP curve) is checked too; --certificate-out
// writes the file that bernamp verify accepts. The row is docs/compose.md's
// Gaussian sigma 2, c 0.1, T 100: eps 19.61 at delta 1e-5.
func TestComposeChecked(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/points.csv", []byte("eps,delta\n0,0.2\n1,0.05\n2,0.001\n3,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"compose", "--c", "0.1", "--steps", "100", "--delta", "1e-5", "--format", "csv",
		"--rdp-route=false", "--unamplified=false", "--lower=false", "--no-timing"}
	for _, tc := range []struct {
		extra []string
		check string
	}{
		{[]string{"--mechanism", "gaussian", "--sigma", "2", "--certificate-out", dir}, "verified"},
		{[]string{"--mechanism", "gaussian", "--sigma", "2", "--no-check"}, "off"},
		{[]string{"--mechanism", "laplace", "--b", "2"}, "verified"},
		{[]string{"--mechanism", "rr", "--p-true", "0.75"}, "verified"},
		{[]string{"--mechanism", "subsampled-gaussian", "--q", "0.01", "--sigma", "1"}, "verified"},
		{[]string{"--mechanism", "profile", "--in", dir + "/points.csv"}, "verified"}, // the points in the certificate
		{[]string{"--mechanism", "rdp", "--in", "../../testdata/compose/rdp_gaussian.csv", "--conversion", "dp_accounting"}, "verified"},
		{[]string{"--mechanism", "gaussian", "--sigma", "2", "--d", "3", "--steps", "1"}, "verified"}, // one step: the profile's own value
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{}, base...), tc.extra...)
		if code := runTerm(context.Background(), args, &out, &errb, tty{}); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.extra, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		f := strings.Split(lines[len(lines)-1], ",")
		if len(f) < 12 || f[10] != tc.check {
			t.Errorf("%v: %s; want check %s", tc.extra, out.String(), tc.check)
		}
		if tc.check == "verified" && f[3] == "100" && tc.extra[1] == "gaussian" {
			eps, _ := strconv.ParseFloat(f[6], 64)
			if math.Abs(eps-19.61) > 0.005 {
				t.Errorf("eps_upper %v, want 19.61", eps)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := runTerm(context.Background(), []string{"verify", dir + "/profile-gaussian-d1-k1-c0.1-steps100-delta1e-05.json"}, &out, &errb, tty{}); code != 0 {
		t.Errorf("verify: exit %d: %s %s", code, out.String(), errb.String())
	}
}

// TestComposeRDPBudget: --rdp-budget too small for any order leaves every
// order that could lower eps_rdp at the closed-form upper bound UB, as its
// help says, with a warning: eps_rdp is then above the value with the
// orders solved (where amplification helps, n = 1) and above eps_lower
// (the safe side); the default budget and no cap (0) give the same value
// and no warning; a negative budget is a usage error.
func TestComposeRDPBudget(t *testing.T) {
	t.Parallel()
	args := []string{"compose", "--mechanism", "gaussian", "--sigma", "2", "--c", "0.1", "--steps", "10", "--format", "csv", "--no-timing"}
	run := func(extra ...string) (rdp, lower float64, stderr string) {
		code, out, errs := runArgs(t, append(slices.Clone(args), extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		recs := strings.Split(strings.TrimSpace(out), "\n")
		f := strings.Split(recs[len(recs)-1], ",")
		if len(recs) != 2 || len(f) != 12 {
			t.Fatalf("%v: output %q", extra, out)
		}
		var kept []string // without the progress lines of a run slowed past plainProgressEvery
		for _, l := range strings.SplitAfter(errs, "\n") {
			if !strings.HasPrefix(l, "bernamp: compose: ") {
				kept = append(kept, l)
			}
		}
		errs = strings.Join(kept, "")
		var err error
		if lower, err = strconv.ParseFloat(f[5], 64); err != nil {
			t.Fatal(err)
		}
		if rdp, err = strconv.ParseFloat(f[7], 64); err != nil {
			t.Fatal(err)
		}
		return rdp, lower, errs
	}
	solved, lower, errs := run()
	if errs != "" {
		t.Errorf("default budget: stderr %q", errs)
	}
	if all, _, errs := run("--rdp-budget", "0"); all != solved || errs != "" {
		t.Errorf("--rdp-budget 0: eps_rdp %v (stderr %q), default %v", all, errs, solved)
	}
	closed, _, errs := run("--rdp-budget", "1ns")
	if !strings.HasPrefix(errs, "bernamp: warning: RDP route: --rdp-budget 1ns was spent after 0 of the ") || !strings.Contains(errs, "keep the closed-form upper bound UB") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--rdp-budget 1ns: stderr %q, want one warning naming the closed form", errs)
	}
	if !(closed > solved && solved > lower) {
		t.Errorf("eps_rdp %v with the closed form, %v solved, eps_lower %v: want closed > solved > lower", closed, solved, lower)
	}
	help := flagHelp(t, "compose", "rdp-budget")
	for _, want := range []string{"closed-form upper bound UB", "upper bound either way", "under " + accountant.MinOrderTime.String(), "(default " + defaultRDPBudget.String() + ")", "a warning"} {
		if !strings.Contains(help, want) {
			t.Errorf("compose -h, -rdp-budget: %q does not say %q", help, want)
		}
	}
	if code, _, errs := runArgs(t, append(slices.Clone(args), "--rdp-budget", "-1s")...); code != 2 || !strings.Contains(errs, "--rdp-budget") {
		t.Errorf("--rdp-budget -1s: exit %d, %q", code, errs)
	}
}

// flagHelp returns the help of -name in cmd -h, its lines joined.
func flagHelp(t *testing.T, cmd, name string) string {
	t.Helper()
	code, out, errs := runArgs(t, cmd, "-h")
	if code != 0 {
		t.Fatalf("%s -h: exit %d: %s", cmd, code, errs)
	}
	_, rest, ok := strings.Cut(out+errs, "  -"+name+" ")
	if !ok {
		t.Fatalf("%s -h lists no -%s", cmd, name)
	}
	var lines []string
	for i, l := range strings.Split(rest, "\n") {
		if i > 0 && !strings.HasPrefix(l, "    ") {
			break
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	return strings.Join(lines, " ")
}

// TestPlainProgress: on a stderr that is not a terminal the progress is
// whole lines, none for a run shorter than one interval, and a last line
// at the end of a longer one.
func TestPlainProgress(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := &progress{w: &b, total: 4, what: "orders", plain: true, start: start, stop: make(chan struct{}), now: func() time.Time { return start.Add(5 * time.Second) }}
	p.set(4)
	p.finish()
	if b.String() != "" {
		t.Errorf("short run: %q, want nothing", b.String())
	}
	p = &progress{w: &b, total: 4, what: "orders", plain: true, start: start, stop: make(chan struct{}), now: func() time.Time { return start.Add(20 * time.Second) }}
	p.set(2)
	p.write(start.Add(10 * time.Second))
	p.set(4)
	p.finish()
	if want := "bernamp: 2/4 orders, 0.2/s, ETA 10s\nbernamp: 4/4 orders, 0.2/s, 20s\n"; b.String() != want {
		t.Errorf("long run: %q, want %q", b.String(), want)
	}
	p = &progress{total: 3, what: "rows", label: "compose", extra: func() string { return " (RDP route: 1/8 orders solved)" }, start: start}
	if got, want := p.line(start), "bernamp: compose: 0/3 rows (RDP route: 1/8 orders solved)"; got != want {
		t.Errorf("compose's line %q, want %q", got, want)
	}
	var nilp *progress
	nilp.set(1)
	nilp.finish()
}
