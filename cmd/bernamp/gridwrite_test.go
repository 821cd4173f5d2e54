package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridWriteRoundTrip: grid --write FILE with post's axis and solver
// flags writes a file that grid FILE runs to the rows of post (or bounds)
// with the same flags, byte for byte, and --write - prints the same file.
func TestGridWriteRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tc := range []struct {
		cmd  string
		args []string
	}{
		{"post", []string{"--d", "1,2", "--k", "1,2", "--c", "0.1,0.3", "--alpha", "5", "--eps", "0.5:1.5:0.5", "--timeout", "2s", "--tol", "1e-8"}},
		{"post", []string{"--d", "2", "--k", "1", "--c", "0.2", "--alpha", "3,50", "--eps", "1", "--certify=false", "--method", "full"}},
		{"post", nil}, // every default
		{"bounds", []string{"--d", "1:3:1", "--k", "1,4", "--c", "0.01", "--alpha", "50", "--eps", "0.1:5:0.1"}},
	} {
		file := filepath.Join(dir, "sweep"+string(rune('0'+i))+".json")
		write := append([]string{"grid", "--write", file, "--command", tc.cmd}, tc.args...)
		code, stdout, stderr := runArgs(t, write...)
		if code != 0 || !strings.Contains(stdout, file+": "+tc.cmd+" on ") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", write, code, stdout, stderr)
		}
		code, printed, stderr := runArgs(t, append([]string{"grid", "--write", "-", "--command", tc.cmd}, tc.args...)...)
		if code != 0 || printed != readFile(t, file) {
			t.Errorf("%v: --write - printed %q (exit %d, %s), the file holds %q", tc.args, printed, code, stderr, readFile(t, file))
		}
		for _, format := range []string{"csv", "json"} {
			_, want, _ := runArgs(t, append(append([]string{tc.cmd}, tc.args...), "--format", format, "--no-timing")...)
			code, got, stderr := runArgs(t, "grid", "--format", format, "--no-timing", file)
			if code != 0 || got != want || want == "" {
				t.Errorf("%s %v (%s): grid of the written file: exit %d, %s\n got:\n%s\nwant:\n%s", tc.cmd, tc.args, format, code, stderr, got, want)
			}
		}
	}
}

// TestGridWriteErrors: grid --write refuses what post would refuse, and
// the flags of the other mode, before writing anything.
func TestGridWriteErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	good := filepath.Join(dir, "good.json")
	if code, _, stderr := runArgs(t, "grid", "--write", good); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"grid", "--write", file, "--d", "0"}, "--d: d is 0"},
		{[]string{"grid", "--write", file, "--eps", "1:2"}, "--eps"},
		{[]string{"grid", "--write", file, "--tol", "0"}, "--tol"},
		{[]string{"grid", "--write", file, "--method", "fast"}, "--method"},
		{[]string{"grid", "--write", file, "--command", "bounds", "--tol", "1e-6"}, "--tol: bounds has no solver settings"},
		{[]string{"grid", "--write", file, "--command", "demo"}, `--command: command is "demo"`},
		{[]string{"grid", "--write", file, "--out", "x.csv"}, "--out does not go with --write"},
		{[]string{"grid", "--write", file, "--shard", "0/2"}, "--shard does not go with --write"},
		{[]string{"grid", "--write", file, good}, "takes no grid file"},
		{[]string{"grid", "--write", "", "--d", "1"}, "--write: empty file name"},
		{[]string{"grid", "--write", file, "--d", "1:400000:1"}, "--force"},
		{[]string{"grid", "--d", "2", good}, "--d goes with --write"},
		{[]string{"grid", "--timeout", "1s", good}, "--timeout goes with --write"},
	} {
		code, stdout, stderr := runArgs(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, stdout, stderr, tc.msg)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v: wrote %s", tc.args, file)
		}
	}
	// A grid file written is one merge --grid reads.
	if code, _, stderr := runArgs(t, "merge", "--grid", good, filepath.Join(dir, "none.csv")); code != 1 || !strings.Contains(stderr, "none.csv") {
		t.Errorf("merge --grid of a written file: exit %d, %s", code, stderr)
	}
}
