package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/journal"
)

// TestMain lets a test run the real command in a child process (to kill it):
// with BERNAMP_TEST_MAIN set, the test binary is bernamp.
func TestMain(m *testing.M) {
	if os.Getenv("BERNAMP_TEST_MAIN") != "" {
		main()
	}
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath)) // the binary of bernampBinary
	}
	os.Exit(code)
}

// sweepArgs is a post grid with points of unequal cost (k up to 8, and
// d = 2) that solves in well under a second.
var sweepArgs = []string{"post", "--d", "1,2", "--k", "1,2,8", "--c", "0.1", "--alpha", "5", "--eps", "0.5,1,2,4",
	"--certify=false", "--no-timing"}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o666); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOutFile checks that --out writes what stdout would, for any worker
// count (the long points are started first, the rows still come in order).
func TestOutFile(t *testing.T) {
	t.Parallel()
	code, want, stderr := runArgs(t, append(sweepArgs, "--workers", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(want, "\n"); n != 1+2*3*4 {
		t.Fatalf("%d lines, want 25:\n%s", n, want)
	}
	for _, workers := range []string{"1", "3"} {
		out := filepath.Join(t.TempDir(), "rows.csv")
		code, stdout, stderr := runArgs(t, append(sweepArgs, "--out", out, "--workers", workers)...)
		if code != 0 || stdout != "" {
			t.Fatalf("workers %s: exit %d, stdout %q, stderr %q", workers, code, stdout, stderr)
		}
		if got := readFile(t, out); got != want {
			t.Errorf("workers %s: --out file\n%s\nwant\n%s", workers, got, want)
		}
	}
}

// TestResume cuts a finished file in the ways a killed or partial run
// leaves it; --resume must rebuild exactly the uninterrupted file.
func TestResume(t *testing.T) {
	t.Parallel()
	_, want, _ := runArgs(t, sweepArgs...)
	lines := strings.SplitAfter(want, "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	hdr := lines[0]
	tests := []struct {
		name string
		file *string // nil: no file at all
	}{
		{"no file", nil},
		{"empty", ptr("")},
		{"partial header", ptr(hdr[:5])},
		{"header only", ptr(hdr)},
		{"first rows", ptr(strings.Join(lines[:8], ""))},
		{"first rows and a partial row", ptr(strings.Join(lines[:8], "") + lines[8][:10])},
		{"rows out of order", ptr(hdr + lines[20] + lines[3] + lines[11])},
		{"complete", ptr(want)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "rows.csv")
			if tc.file != nil {
				writeFile(t, out, *tc.file)
			}
			code, _, stderr := runArgs(t, append(sweepArgs, "--out", out, "--resume")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := readFile(t, out); got != want {
				t.Errorf("resumed file\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestResumeErrors(t *testing.T) {
	t.Parallel()
	_, want, _ := runArgs(t, sweepArgs...)
	lines := strings.SplitAfter(want, "\n")
	tests := []struct {
		name, file, msg string
	}{
		{"other grid", lines[0] + strings.Replace(lines[1], "0.5", "0.25", 1), "not a point of this run"},
		{"repeated row", lines[0] + lines[1] + lines[1], "repeats the point"},
		{"other header", "a,b\n1,2\n", "header"},
		{"short row", lines[0] + "1,1\n", "not a bernamp CSV file"},
	}
	for _, tc := range tests {
		out := filepath.Join(t.TempDir(), "rows.csv")
		writeFile(t, out, tc.file)
		code, _, stderr := runArgs(t, append(sweepArgs, "--out", out, "--resume")...)
		if code != 1 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 1 and one line with %q", tc.name, code, stderr, tc.msg)
		}
		if got := readFile(t, out); got != tc.file {
			t.Errorf("%s: the file was changed to %q", tc.name, got)
		}
	}
	code, _, stderr := runArgs(t, "post", "--resume")
	if code != 2 || !strings.Contains(stderr, "--resume: needs --out") {
		t.Errorf("--resume without --out: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runArgs(t, "post", "--out", "x.csv", "--format", "json")
	if code != 2 || !strings.Contains(stderr, "--out writes csv") {
		t.Errorf("--out with json: exit %d, stderr %q", code, stderr)
	}
}

// TestKill runs the command in a child process, kills it with SIGKILL while
// it writes, and checks that the file holds only complete rows and that
// --resume then gives the uninterrupted file.
func TestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	// d = 1, k = 24: about 0.1 s per point, so the kill lands mid-run.
	args := []string{"post", "--k", "24", "--c", "0.1", "--alpha", "5", "--eps", "0.2:6:0.2", "--no-timing", "--workers", "1"}
	out := filepath.Join(t.TempDir(), "rows.csv")
	cmd := exec.Command(os.Args[0], append(args, "--out", out)...)
	cmd.Env = append(os.Environ(), "BERNAMP_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for strings.Count(readFileOrEmpty(out), "\n") < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	partial := readFile(t, out)
	rows := readCSV(t, partial) // fails on a partial line
	if len(rows) < 3 || len(rows) >= 30 {
		t.Fatalf("killed run left %d rows, want some but not all 30", len(rows))
	}
	code, _, stderr := runArgs(t, append(args, "--out", out, "--resume")...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	_, want, _ := runArgs(t, args...)
	if got := readFile(t, out); got != want {
		t.Errorf("resumed file\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(want, partial) {
		t.Errorf("the killed run's rows are not the first rows of the full run")
	}
}

func readFileOrEmpty(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestShardMerge runs a grid in three shards and merges them: every point
// is in exactly one shard, each shard says how many on stderr and leaves
// no journal or lock, and the merge equals the unsharded run.
func TestShardMerge(t *testing.T) {
	t.Parallel()
	_, want, _ := runArgs(t, sweepArgs...)
	dir := t.TempDir()
	var files []string
	seen := map[string]int{}
	for i := range 3 {
		f := filepath.Join(dir, fmt.Sprintf("shard%d.csv", i))
		code, _, stderr := runArgs(t, append(sweepArgs, "--shard", fmt.Sprintf("%d/3", i), "--out", f)...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		rows := readCSV(t, readFile(t, f))
		line := fmt.Sprintf("bernamp: shard %d/3: %d of 24 points, estimated cost ", i, len(rows))
		if len(rows) == 0 || !strings.HasPrefix(stderr, line) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("shard %d has %d rows, stderr %q; want some, and one line %q...", i, len(rows), stderr, line)
		}
		for _, left := range []string{f + ".journal", f + ".lock"} {
			if _, err := os.Stat(left); err == nil {
				t.Errorf("shard %d left %s", i, left)
			}
		}
		for _, r := range rows {
			seen[pointKey(r)]++
		}
		files = append(files, f)
	}
	if len(seen) != 24 {
		t.Errorf("shards cover %d points, want 24", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("point %s is in %d shards", k, n)
		}
	}
	axes := []string{"--d", "1,2", "--k", "1,2,8", "--c", "0.1", "--alpha", "5", "--eps", "0.5,1,2,4"}
	code, got, stderr := runArgs(t, append(append([]string{"merge"}, axes...), files...)...)
	if code != 0 || got != want {
		t.Errorf("merge: exit %d, stderr %q, output\n%s\nwant\n%s", code, stderr, got, want)
	}
	merged := filepath.Join(dir, "merged.csv")
	runArgs(t, append(append([]string{"merge", "--out", merged}, axes...), files[2], files[0], files[1])...)
	if got := readFile(t, merged); got != want {
		t.Errorf("merge --out in another file order: \n%s\nwant\n%s", got, want)
	}

	for _, tc := range []struct {
		name  string
		files []string
		msg   string
	}{
		{"missing shard", files[:2], "are in no file"},
		{"repeated shard", append(files, files[1]), "is in both"},
		{"other grid", files, "not a point of the grid"},
	} {
		args := append([]string{"merge"}, axes...)
		if tc.name == "other grid" {
			args = append([]string{"merge"}, "--d", "1", "--k", "1,2,8", "--eps", "0.5,1,2,4", "--c", "0.1")
		}
		code, _, stderr := runArgs(t, append(args, tc.files...)...)
		if code != 1 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", tc.name, code, stderr, tc.msg)
		}
	}
	for _, args := range [][]string{{"merge"}, {"merge", "--shard", "1/2", "x.csv"}, {"merge", "--grid", "g.json", "--d", "2", "x.csv"}} {
		if code, _, _ := runArgs(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestShardFlag(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"3/3", "-1/2", "0/0", "a/2", "1", "1/2/3"} {
		code, _, stderr := runArgs(t, "bounds", "--shard", s)
		if code != 2 || !strings.HasPrefix(stderr, "bernamp: --shard: ") {
			t.Errorf("--shard %s: exit %d, stderr %q", s, code, stderr)
		}
	}
}

// TestShardBalance checks that shards of a grid with unequal points differ
// in estimated cost by at most the cost of the largest point.
func TestShardBalance(t *testing.T) {
	t.Parallel()
	g, err := newGrid(gridFlags{d: "1,2,3", k: "1,2,4,8", c: "0.1", alpha: "5", eps: "0.1:1:0.1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3, 7} {
		var sums []float64
		count := 0
		biggest := 0.0
		for i := range n {
			j := &job{g: g, settings: &bernamp.Settings{}, o: &options{tol: 1e-9}, shard: shard{i, n}}
			s := 0.0
			for _, idx := range j.selected() {
				c := j.cost(g.at(idx))
				s += c
				biggest = max(biggest, c)
				count++
			}
			sums = append(sums, s)
		}
		if count != g.n {
			t.Errorf("n = %d: shards hold %d points, want %d", n, count, g.n)
		}
		lo, hi := sums[0], sums[0]
		for _, s := range sums {
			lo, hi = min(lo, s), max(hi, s)
		}
		if hi-lo > biggest {
			t.Errorf("n = %d: shard costs %v differ by more than the largest point %v", n, sums, biggest)
		}
	}
}

// TestGridFile checks that the grid files of testdata equal the demo
// presets, that a grid file runs like the flags, and its errors.
func TestGridFile(t *testing.T) {
	t.Parallel()
	for name, gf := range presets {
		cmd, o, err := readGridFile(filepath.Join("..", "..", "testdata", "grids", name+".json"))
		if err != nil || cmd != "post" {
			t.Fatalf("%s: %q %v", name, cmd, err)
		}
		want, _ := newGrid(gf, false)
		got, err := newGrid(o.grid, false)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: grid file gives %+v, %v; the preset %+v", name, got, err, want)
		}
		if o.timeout != demoTimeout || o.tol != 1e-9 || !o.certify || o.method != "reduced" {
			t.Errorf("%s: settings %+v, want the demo's", name, o)
		}
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	writeFile(t, file, `{"d": [1, 2], "k": "1,2,8", "c": 0.1, "alpha": "5", "eps": [0.5, 1, 2, 4], "certify": false}`)
	_, want, _ := runArgs(t, sweepArgs...)
	for _, args := range [][]string{{"grid", file, "--no-timing"}, {"grid", "--no-timing", file}} {
		code, got, stderr := runArgs(t, args...)
		if code != 0 || got != want {
			t.Errorf("%v: exit %d, stderr %q, output\n%s\nwant\n%s", args, code, stderr, got, want)
		}
	}

	for _, tc := range []struct{ json, msg string }{
		{`{"d": 1, "k": 1, "c": 0.1, "alpha": 5}`, `no "eps" axis`},
		{`{"d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": 1, "tolerance": 1}`, `unknown field "tolerance"`},
		{`{"d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": 1, "command": "demo"}`, `command is "demo"`},
		{`{"d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": 1, "timeout": "soon"}`, `timeout`},
		{`{"d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": {"from": 1}}`, `must be a string, a number or an array`},
		{`{"d": 1, "k": 1, "c": 0.7, "alpha": 5, "eps": 1}`, `--c: c is 0.7`},
		{`{"d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": 1, "tol": -1}`, `--tol`},
		{`{"d": 1,`, `unexpected EOF`},
	} {
		writeFile(t, file, tc.json)
		code, _, stderr := runArgs(t, "grid", file)
		if code != 2 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.json, code, stderr, tc.msg)
		}
	}
	for _, args := range [][]string{{"grid"}, {"grid", "a.json", "b.json"}} {
		if code, _, _ := runArgs(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runArgs(t, "grid", filepath.Join(dir, "none.json")); code != 1 {
		t.Errorf("missing grid file: exit %d, want 1", code)
	}
}

// TestProgress checks the progress line: shown when stderr is a terminal,
// not with --quiet, and its text.
func TestProgress(t *testing.T) {
	t.Parallel()
	for _, quiet := range []bool{false, true} {
		var out, errb bytes.Buffer
		args := []string{"bounds", "--eps", "0.1:3:0.1"}
		if quiet {
			args = append(args, "--quiet")
		}
		if code := runTerm(context.Background(), args, &out, &errb, tty{stderr: true}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		last := errb.String()
		if quiet != (last == "") {
			t.Errorf("quiet %v: stderr %q", quiet, last)
		}
		if !quiet {
			sc := bufio.NewScanner(strings.NewReader(last))
			var line string
			for sc.Scan() {
				line = sc.Text()
			}
			if !strings.Contains(line, "bernamp: 30/30 points, ") {
				t.Errorf("final progress line %q", line)
			}
		}
	}

	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{total: 100, start: start}
	if got := p.line(start); got != "bernamp: 0/100 points" {
		t.Errorf("line at start = %q", got)
	}
	p.done.Store(25)
	if got := p.line(start.Add(10 * time.Second)); got != "bernamp: 25/100 points, 2.5/s, ETA 30s" {
		t.Errorf("line after 10 s = %q", got)
	}
	p.done.Store(100)
	if got := p.line(start.Add(40 * time.Second)); got != "bernamp: 100/100 points, 2.5/s, 40s" {
		t.Errorf("final line = %q", got)
	}
}

func TestDemoPresets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "fig3.csv")
	code, stdout, stderr := runArgs(t, "demo", "--preset", "fig3", "--out", out, "--figure", "", "--no-timing")
	if code != 0 {
		t.Fatalf("fig3: exit %d: %s", code, stderr)
	}
	rows := readCSV(t, readFile(t, out))
	if len(rows) != 3*50 || rows[0][1] != "1" || rows[149][1] != "4" || rows[149][3] != "5" {
		t.Errorf("fig3: %d rows, first %v, last %v; want 150 for k = 1, 2, 4 at alpha = 5", len(rows), rows[0], rows[len(rows)-1])
	}
	if strings.Contains(stdout, "Figure:") || strings.Count(stdout, "\n") != 1+3+1 {
		t.Errorf("fig3 summary:\n%s\nwant 3 rows and no figure", stdout)
	}
	for _, args := range [][]string{
		{"demo", "--preset", "fig4"},
		{"demo", "--figure", "x.gif"},
		{"demo", "--out", ""},
	} {
		if code, _, stderr := runArgs(t, args...); code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

// TestRangeFlag checks --range: the ranges column, the same answers as --c
// for [c, 1-c] ranges, and its errors.
func TestRangeFlag(t *testing.T) {
	t.Parallel()
	code, got, stderr := runArgs(t, "post", "--range", "0.1:0.9,0.1:0.9", "--eps", "0.5,2", "--no-timing")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, want, _ := runArgs(t, "post", "--d", "2", "--c", "0.1", "--eps", "0.5,2", "--no-timing", "--certify=false")
	if !strings.HasPrefix(got, strings.Join(rangesHeader, ",")+"\n") || rangesHeader[2] != "ranges" {
		t.Errorf("header of %q", got)
	}
	g, w := readCSV(t, strings.Replace(got, "ranges", "c", 1)), readCSV(t, want)
	for i := range g {
		if g[i][2] != "0.1:0.9;0.1:0.9" {
			t.Errorf("row %d: ranges %q", i, g[i][2])
		}
		for _, col := range []int{5, 6, 7} { // lb, ub, post: 1 - 0.9 is not 0.1 exactly
			a, _ := strconv.ParseFloat(g[i][col], 64)
			b, _ := strconv.ParseFloat(w[i][col], 64)
			if math.Abs(a-b) > 1e-9*b {
				t.Errorf("row %d column %s: %v with --range, %v with --c", i, header[col], a, b)
			}
		}
	}
	for _, args := range [][]string{
		{"post", "--range", "0.1:0.9", "--d", "2"},
		{"post", "--range", "0.1:0.9", "--c", "0.2"},
		{"post", "--range", "0.1:0.9", "--out", "x.csv", "--resume"},
		{"bounds", "--range", "0.1:0.9", "--shard", "0/2"},
		{"post", "--range", "0.5:0.4"},
		{"post", "--range", "0:0.5"},
		{"post", "--range", "0.1"},
		{"post", "--range", "0.1:x"},
	} {
		if code, _, stderr := runArgs(t, args...); code != 2 || !strings.HasPrefix(stderr, "bernamp: --range: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// sweepJournal returns the id of the journal of sweepArgs --out out, read
// from the header of a run stopped before its first point.
func sweepJournalID(t *testing.T, out string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	if code := runTerm(ctx, append(sweepArgs, "--out", out), &o, &e, tty{}); code != 1 {
		t.Fatalf("cancelled run: exit %d, %s", code, e.String())
	}
	hdr, _, _ := strings.Cut(readFile(t, out+".journal"), "\n")
	f := strings.Fields(hdr)
	if len(f) != 3 {
		t.Fatalf("journal header %q", hdr)
	}
	os.Remove(out)
	os.Remove(out + ".journal")
	return f[2]
}

// TestResumeJournal: --resume takes rows from the journal as from --out,
// in any order, with a partial last line; a journal of another grid or
// settings, a damaged one, or one that disagrees with --out is refused in
// one line and the files are left as they were.
func TestResumeJournal(t *testing.T) {
	t.Parallel()
	_, want, _ := runArgs(t, sweepArgs...)
	lines := strings.SplitAfter(want, "\n")
	hdr, rows := lines[0], lines[1:len(lines)-1] // rows[i]: grid point i
	id := sweepJournalID(t, filepath.Join(t.TempDir(), "id.csv"))
	entry := func(i int) journal.Entry {
		return journal.Entry{Key: i, Data: []byte(strings.TrimSuffix(rows[i], "\n"))}
	}
	type file struct {
		out     *string // nil: none
		id      string
		entries []journal.Entry
		tail    string // bytes after the entries
	}
	write := func(t *testing.T, dir string, f file) string {
		out := filepath.Join(dir, "rows.csv")
		if f.out != nil {
			writeFile(t, out, *f.out)
		}
		w, err := journal.Create(out+".journal", f.id)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range f.entries {
			if err := w.Add(e.Key, e.Data); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		if f.tail != "" {
			fh, _ := os.OpenFile(out+".journal", os.O_WRONLY|os.O_APPEND, 0)
			fh.WriteString(f.tail)
			fh.Close()
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    file
	}{
		{"journal only, out of order", file{nil, id, []journal.Entry{entry(20), entry(3), entry(11), entry(0)}, ""}},
		{"journal with a partial last line", file{ptr(hdr + rows[0] + rows[1]), id, []journal.Entry{entry(0), entry(1), entry(7)}, "9 1234abcd 2,"}},
		{"file and journal overlap", file{ptr(hdr + strings.Join(rows[:5], "")), id, []journal.Entry{entry(4), entry(2), entry(23)}, ""}},
		{"file rows not first, journal beside", file{ptr(hdr + rows[9] + rows[2]), id, []journal.Entry{entry(5)}, ""}},
		{"everything in the journal", file{ptr(hdr), id, func() (es []journal.Entry) {
			for i := range rows {
				es = append(es, entry(len(rows)-1-i))
			}
			return es
		}(), ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := write(t, t.TempDir(), tc.f)
			code, _, stderr := runArgs(t, append(sweepArgs, "--out", out, "--resume")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := readFile(t, out); got != want {
				t.Errorf("resumed file\n%s\nwant\n%s", got, want)
			}
			for _, left := range []string{out + ".journal", out + ".lock"} {
				if _, err := os.Stat(left); err == nil {
					t.Errorf("left %s", left)
				}
			}
		})
	}

	other := strings.Replace(rows[3], "0.1,5,", "0.1,6,", 1)
	for _, tc := range []struct {
		name string
		f    file
		msg  string
	}{
		{"journal of another grid", file{ptr(hdr), "0123456789abcdef", []journal.Entry{entry(0)}, ""}, "was written by a run of another grid, shard or settings"},
		{"damaged line", file{ptr(hdr), id, []journal.Entry{entry(0), entry(1)}, "2 00000000 x\n"}, "journal is corrupt"},
		{"row of another point", file{ptr(hdr), id, []journal.Entry{{Key: 3, Data: []byte(strings.TrimSuffix(other, "\n"))}}, ""}, "is not grid point 3"},
		{"point past the grid", file{ptr(hdr), id, []journal.Entry{{Key: 24, Data: entry(3).Data}}, ""}, "is not grid point 24"},
		{"not a row", file{ptr(hdr), id, []journal.Entry{{Key: 3, Data: []byte("1,2,3")}}, ""}, "3 fields, want 12"},
		{"bad value", file{ptr(hdr), id, []journal.Entry{{Key: 3, Data: []byte(strings.Replace(strings.TrimSuffix(rows[3], "\n"), ",0.0000", ",-1.0000", 1))}}, ""}, "seconds is -1, must be >= 0"},
		{"file and journal differ", file{ptr(hdr + rows[0]), id, []journal.Entry{{Key: 0, Data: []byte(strings.Replace(strings.TrimSuffix(rows[0], "\n"), "0.0000", "1.0000", 1))}}, ""}, "differ at d,k,c,alpha,eps = 1,1,0.1,5,0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := write(t, t.TempDir(), tc.f)
			before, jbefore := readFile(t, out), readFile(t, out+".journal")
			code, _, stderr := runArgs(t, append(sweepArgs, "--out", out, "--resume")...)
			if code != 1 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and one line with %q", code, stderr, tc.msg)
			}
			if readFile(t, out) != before || readFile(t, out+".journal") != jbefore {
				t.Errorf("the refused run changed the files")
			}
			if _, err := os.Stat(out + ".lock"); err == nil {
				t.Errorf("the refused run left its lock")
			}
		})
	}
}

// TestCost: the pool's estimate of a point's seconds grows with n = d k,
// as eps falls and as c nears 1/2; a time limit caps it; where only the
// closed forms run it is next to nothing; bounds points all cost the same.
func TestCost(t *testing.T) {
	t.Parallel()
	j := &job{settings: &bernamp.Settings{}, o: &options{tol: 1e-9}}
	p := bernamp.Params{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1}
	at := func(f func(*bernamp.Params)) float64 { q := p; f(&q); return j.cost(q) }
	base := j.cost(p)
	for _, tc := range []struct {
		name string
		c    float64
		more bool
	}{
		{"d 15", at(func(q *bernamp.Params) { q.D = 15 }), true},
		{"k 4", at(func(q *bernamp.Params) { q.K = 4 }), true},
		{"eps 0.1", at(func(q *bernamp.Params) { q.Eps = 0.1 }), true},
		{"eps 4", at(func(q *bernamp.Params) { q.Eps = 4 }), false},
		{"c 0.499", at(func(q *bernamp.Params) { q.C = 0.499 }), true},
		{"c 0.01", at(func(q *bernamp.Params) { q.C = 0.01 }), true},
		{"c 0.3", at(func(q *bernamp.Params) { q.C = 0.3 }), false},
	} {
		if tc.more != (tc.c > base) || tc.c == base {
			t.Errorf("%s: cost %v against %v at d = k = 1, c = 0.1, eps = 1; want more: %v", tc.name, tc.c, base, tc.more)
		}
	}
	closed := []float64{at(func(q *bernamp.Params) { q.Alpha = 1 + 1e-12 }), at(func(q *bernamp.Params) { q.Eps = 0 }), at(func(q *bernamp.Params) { q.D = 2_000_000 }),
		// The closed forms meet within tol (ub - lb = 1.3e-13): Post stops there.
		at(func(q *bernamp.Params) { q.D, q.C, q.Alpha, q.Eps = 15, 0.01, 50, 0.1 })}
	for _, c := range closed {
		if !(c > 0 && c < base/100) {
			t.Errorf("closed forms only: cost %v, want > 0 and below %v", c, base/100)
		}
	}
	if c := at(func(q *bernamp.Params) { q.Eps = 1e-300 }); math.IsInf(c, 0) || math.IsNaN(c) {
		t.Errorf("eps 1e-300: cost %v", c)
	}
	// --range rows carry C = 0: a finite cost, no panic.
	if c := at(func(q *bernamp.Params) { q.C = 0 }); !(c > 0) || math.IsInf(c, 0) {
		t.Errorf("c 0 (a --range row): cost %v", c)
	}
	j.o.timeout = 50 * time.Millisecond
	if c := at(func(q *bernamp.Params) { q.Eps = 1e-3 }); c != 0.05 {
		t.Errorf("--timeout 50ms: cost %v, want the limit 0.05", c)
	}
	j.settings = nil
	if a, b := j.cost(p), at(func(q *bernamp.Params) { q.D, q.Eps = 15, 0.1 }); a != 1 || b != 1 {
		t.Errorf("bounds: costs %v, %v, want 1", a, b)
	}
}
