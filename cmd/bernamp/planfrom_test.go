package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
)

// lptShards is the split --shard makes from the costs given, computed here
// the plain way: points by decreasing cost (ties in grid order), each to
// the shard of least total so far (ties to the lowest shard).
func lptShards(costs []float64, n int) [][]int {
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpFloat(costs[a], costs[b]) })
	load := make([]float64, n)
	shards := make([][]int, n)
	for _, i := range order {
		s := 0
		for t := range load {
			if load[t] < load[s] {
				s = t
			}
		}
		load[s] += costs[i]
		shards[s] = append(shards[s], i)
	}
	for _, s := range shards {
		slices.Sort(s)
	}
	return shards
}

// TestPlanFrom checks grid --plan-from: the shards hold the points the
// file's seconds imply (the estimate for points it lacks), the shard line
// says how many costs came from the file, the rows do not depend on the
// plan, and a missing or bad file is a one-line error.
func TestPlanFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gridPath := filepath.Join(dir, "g.json")
	writeFile(t, gridPath, `{"d": [1, 2], "k": "1,2,3", "c": 0.1, "alpha": "5", "eps": [0.5, 1, 2, 4], "certify": false}`)
	code, whole, stderr := runArgs(t, "grid", "--no-timing", gridPath)
	if code != 0 {
		t.Fatalf("grid: exit %d: %s", code, stderr)
	}
	rows := readCSV(t, whole) // in grid order
	sec := slices.Index(header, "seconds")
	// plan writes the rows listed with the seconds given, as a run would.
	plan := func(name string, idx []int, seconds func(i int) string) string {
		var b strings.Builder
		b.WriteString(strings.Join(header, ",") + "\n")
		for _, i := range idx {
			r := slices.Clone(rows[i])
			r[sec] = seconds(i)
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		path := filepath.Join(dir, name)
		writeFile(t, path, b.String())
		return path
	}
	all := make([]int, len(rows))
	for i := range all {
		all[i] = i
	}
	// shardsOf runs every shard of an n-way split with --plan-from and
	// returns the grid indices of each, its stderr, and the merged rows.
	shardsOf := func(path string, n int) (got [][]int, lines []string, merged string) {
		var files []string
		for s := range n {
			f := filepath.Join(dir, fmt.Sprintf("%s-%d-%d.csv", filepath.Base(path), n, s))
			code, _, stderr := runArgs(t, "grid", "--no-timing", "--plan-from", path, "--shard", fmt.Sprintf("%d/%d", s, n), "--out", f, gridPath)
			if code != 0 {
				t.Fatalf("%s shard %d/%d: exit %d: %s", path, s, n, code, stderr)
			}
			var idx []int
			for _, r := range readCSV(t, readFile(t, f)) {
				idx = append(idx, slices.IndexFunc(rows, func(w []string) bool { return pointKey(w) == pointKey(r) }))
			}
			got = append(got, idx)
			lines = append(lines, stderr)
			files = append(files, f)
		}
		code, merged, stderr := runArgs(t, append([]string{"merge", "--grid", gridPath}, files...)...)
		if code != 0 {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
		return got, lines, merged
	}

	// One point of 100 s and the others of 1 s: alone in shard 0 of 2.
	const big = 13
	hundred := plan("hundred.csv", all, func(i int) string {
		if i == big {
			return "100"
		}
		return "1"
	})
	got, lines, merged := shardsOf(hundred, 2)
	if want := [][]int{{big}, slices.Delete(slices.Clone(all), big, big+1)}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("plan of one 100 s point: shards %v, want %v", got, want)
	}
	if merged != whole {
		t.Errorf("merged shards of the plan differ from the whole grid:\n%s\nwant\n%s", merged, whole)
	}
	wantLine := fmt.Sprintf("bernamp: shard 1/2: %d of %d points, estimated cost 0.374 x the mean shard (largest 1.626 x); costs of %d of %d points from %s, the rest estimated\n",
		len(rows)-1, len(rows), len(rows), len(rows), hundred)
	if lines[1] != wantLine {
		t.Errorf("shard line\n%q\nwant\n%q", lines[1], wantLine)
	}

	// Random seconds for every point, then for half the points (the
	// others estimated), split 3 and 5 ways.
	rng := rand.New(rand.NewPCG(34, 4))
	costs := make([]float64, len(rows))
	for i := range costs {
		costs[i] = float64(rng.IntN(100000)) / 1e4
	}
	random := plan("random.csv", all, func(i int) string { return strconv.FormatFloat(costs[i], 'f', 4, 64) })
	var half []int
	for i := range all {
		if rng.IntN(2) == 0 {
			half = append(half, i)
		}
	}
	partial := plan("partial.csv", half, func(i int) string { return strconv.FormatFloat(costs[i], 'f', 4, 64) })
	g, err := newGrid(gridFlags{d: "1,2", k: "1,2,3", c: "0.1", alpha: "5", eps: "0.5,1,2,4"}, false)
	if err != nil {
		t.Fatal(err)
	}
	est := &job{g: g, settings: &bernamp.Settings{}, o: &options{tol: 1e-9}}
	partialCosts := make([]float64, len(rows))
	for i := range partialCosts {
		partialCosts[i] = est.cost(g.at(i))
		if slices.Contains(half, i) {
			partialCosts[i] = costs[i]
		}
	}
	for _, tc := range []struct {
		path  string
		costs []float64
		found int
		n     int
	}{{random, costs, len(rows), 3}, {random, costs, len(rows), 5}, {partial, partialCosts, len(half), 3}} {
		n := tc.n
		{
			got, lines, merged := shardsOf(tc.path, n)
			if want := lptShards(tc.costs, n); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s, %d shards: %v, want %v", tc.path, n, got, want)
			}
			if merged != whole {
				t.Errorf("%s, %d shards: merged rows differ from the whole grid", tc.path, n)
			}
			if want := fmt.Sprintf("; costs of %d of %d points from %s, the rest estimated\n", tc.found, len(rows), tc.path); !strings.HasSuffix(lines[0], want) {
				t.Errorf("%s, %d shards: shard line %q, want it to end %q", tc.path, n, lines[0], want)
			}
		}
	}
	// Without --shard the plan orders the pool only: the same rows.
	if code, out, stderr := runArgs(t, "grid", "--no-timing", "--plan-from", random, gridPath); code != 0 || out != whole || stderr != "" {
		t.Errorf("whole grid with --plan-from: exit %d, stderr %q, same rows %v", code, stderr, out == whole)
	}

	hdr := strings.Join(header, ",") + "\n"
	row := strings.Join(rows[0], ",") + "\n"
	for _, tc := range []struct{ name, content, msg string }{
		{"missing.csv", "", "no such file"},
		{"empty.csv", "-", "no rows"},
		{"header-only.csv", hdr, "no rows"},
		{"not-csv.csv", "{\"d\": 1}\n", "not a bernamp CSV file"},
		{"other-header.csv", "d,k,c\n1,1,0.1\n", "header"},
		{"short-row.csv", hdr + "1,1,0.1,5,0.5,1\n", "row 1 has 6 fields"},
		{"bad-seconds.csv", hdr + strings.Replace(row, ",0.0000\n", ",soon\n", 1), `seconds "soon" is not a number`},
		{"negative-seconds.csv", hdr + strings.Replace(row, ",0.0000\n", ",-1\n", 1), "seconds is -1"},
		{"twice.csv", hdr + strings.Replace(row, ",0.0000\n", ",1\n", 1) + strings.Replace(row, ",0.0000\n", ",2\n", 1), "appears twice"},
		{"no-timing.csv", whole, "every seconds value is 0"},
	} {
		path := filepath.Join(dir, tc.name)
		switch tc.content {
		case "":
		case "-":
			writeFile(t, path, "")
		default:
			writeFile(t, path, tc.content)
		}
		code, out, stderr := runArgs(t, "grid", "--no-timing", "--plan-from", path, "--shard", "0/2", gridPath)
		if code != 1 || out != "" || !strings.HasPrefix(stderr, "bernamp: --plan-from: ") || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1, nothing, and one line with %q", tc.name, code, out, stderr, tc.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.csv")); err == nil {
		t.Errorf("--plan-from created the missing file")
	}
}

// TestPlanJournalID checks that a shard's journal names its plan: a
// --resume with other costs (another split) does not take its rows.
func TestPlanJournalID(t *testing.T) {
	t.Parallel()
	g, err := newGrid(gridFlags{d: "1,2", k: "1", c: "0.1", alpha: "5", eps: "1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	id := func(planned []float64, sh shard) string {
		return (&job{g: g, o: &options{}, shard: sh, planned: planned}).journalID()
	}
	two := shard{0, 2}
	if id(nil, two) == id([]float64{1, 2}, two) || id([]float64{1, 2}, two) == id([]float64{2, 1}, two) {
		t.Errorf("a shard's journal ID does not change with its plan")
	}
	if id([]float64{1, 2}, two) != id([]float64{1, 2}, two) || id(nil, shard{}) != id([]float64{1, 2}, shard{}) {
		t.Errorf("the journal ID changes without a change of split")
	}
}
