package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hostileCase is one command line of TestHostile. In args and in the
// contents of files, $D stands for the case's own temporary directory.
type hostileCase struct {
	name  string
	args  []string
	files map[string]string // name in $D -> content, written before the run
	code  int               // the documented exit status
	// orRefuse accepts exit 2 (a one-line refusal) in place of code 0: for
	// inputs that may be answered or refused.
	orRefuse bool
	// want is the content $D/out.csv must have after the run, if not "".
	want string
}

// nonFinite matches a NaN or an infinity written as a value: a CSV field,
// a JSON value or a table cell.
var nonFinite = regexp.MustCompile(`(?i)(^|[\s,:;\[{"=])[+-]?(nan|inf|infinity)($|[\s,;\]}"])`)

// TestHostile runs every command on hostile input in process: flags out of
// their domain or malformed (NaN, Inf, -0, 1e309, empty, negative, huge,
// unicode, ranges such as 1:0:1 and 1:2:0), grid files, curve files and
// CSV files of rows (given to merge, plot and --resume) that are empty,
// truncated, from another grid or corrupted, and missing or unwritable
// paths. Each must end with the documented exit status (doc.go: 2 for
// invalid input, 1 for a file that cannot be read or written, for CSV rows
// that do not fit, and for runtime failures), with exactly one line on
// stderr when it fails and none when it succeeds, without a panic, and
// without NaN or Inf in what it writes.
func TestHostile(t *testing.T) {
	t.Parallel()
	// Rows of a small bounds grid, the fixtures of merge, plot and --resume.
	small := []string{"bounds", "--d", "1", "--k", "1,2", "--c", "0.1", "--alpha", "5", "--eps", "0.5,1", "--no-timing"}
	code, rows, stderr := runArgs(t, small...)
	if code != 0 || strings.Count(rows, "\n") != 5 {
		t.Fatalf("fixture: exit %d, stderr %q, rows\n%s", code, stderr, rows)
	}
	lines := strings.SplitAfter(rows, "\n") // header, 4 rows, ""
	head := lines[0]
	withOut := func(args ...string) []string { return append(append([]string{}, small...), args...) }
	resume := withOut("--out", "$D/out.csv", "--resume")
	const gridOK = `{"command": "bounds", "d": 1, "k": [1, 2], "c": "0.1", "alpha": 5, "eps": "0.5,1"}`
	const curveOK = "alpha,eps\n2,0.5\n4,1\n"
	post := func(args ...string) []string {
		return append([]string{"post", "--timeout", "2s", "--no-timing"}, args...)
	}

	tests := []hostileCase{
		// bounds and post: values of the axis flags.
		{name: "eps NaN", args: []string{"bounds", "--eps", "NaN"}, code: 2},
		{name: "eps Inf", args: []string{"bounds", "--eps", "Inf"}, code: 2},
		{name: "eps -Inf", args: []string{"bounds", "--eps", "-Inf"}, code: 2},
		{name: "eps -0", args: []string{"bounds", "--eps", "-0"}, code: 0},
		{name: "eps 1e309", args: []string{"bounds", "--eps", "1e309"}, code: 2},
		{name: "eps empty", args: []string{"bounds", "--eps", ""}, code: 2},
		{name: "eps blank", args: []string{"bounds", "--eps", "  "}, code: 2},
		{name: "eps negative", args: []string{"bounds", "--eps", "-1"}, code: 2},
		{name: "eps largest float", args: []string{"bounds", "--eps", "1.7976931348623157e308"}, code: 0},
		{name: "eps subnormal", args: []string{"bounds", "--eps", "5e-324"}, code: 0},
		{name: "eps underflow", args: []string{"bounds", "--eps", "1e-400"}, code: 0},
		{name: "eps range 1:0:1", args: []string{"bounds", "--eps", "1:0:1"}, code: 2},
		{name: "eps range 1:2:0", args: []string{"bounds", "--eps", "1:2:0"}, code: 2},
		{name: "eps range negative step", args: []string{"bounds", "--eps", "1:2:-1"}, code: 2},
		{name: "eps range empty fields", args: []string{"bounds", "--eps", "::"}, code: 2},
		{name: "eps range two fields", args: []string{"bounds", "--eps", "1:2"}, code: 2},
		{name: "eps range four fields", args: []string{"bounds", "--eps", "0:1:0.1:"}, code: 2},
		{name: "eps range NaN step", args: []string{"bounds", "--eps", "0:1:NaN"}, code: 2},
		{name: "eps range Inf stop", args: []string{"bounds", "--eps", "0:Inf:1"}, code: 2},
		{name: "eps range huge", args: []string{"bounds", "--eps", "0:1e308:1e300"}, code: 2},
		{name: "eps range at the top", args: []string{"bounds", "--eps", "1e308:1.7976931348623157e308:1e307"}, code: 0},
		{name: "eps range too fine", args: []string{"bounds", "--eps", "1:1.000000000001:1e-15"}, code: 2},
		{name: "eps fullwidth digit", args: []string{"bounds", "--eps", "１"}, code: 2},
		{name: "eps arabic digit", args: []string{"bounds", "--eps", "0,٣"}, code: 2},
		{name: "eps space inside", args: []string{"bounds", "--eps", "1 2"}, code: 2},
		{name: "eps trailing comma", args: []string{"bounds", "--eps", "1,"}, code: 2},
		{name: "eps newline", args: []string{"bounds", "--eps", "1\n2"}, code: 2},
		{name: "c zero", args: []string{"bounds", "--c", "0"}, code: 2},
		{name: "c -0", args: []string{"bounds", "--c", "-0"}, code: 2},
		{name: "c half", args: []string{"bounds", "--c", "0.5"}, code: 2},
		{name: "c below half", args: []string{"bounds", "--c", "0.49999999999999994"}, code: 0},
		{name: "c subnormal", args: []string{"bounds", "--c", "5e-324", "--d", "3", "--k", "7"}, code: 0},
		{name: "c NaN", args: []string{"bounds", "--c", "NaN"}, code: 2},
		{name: "c greek", args: []string{"bounds", "--c", "0.1α"}, code: 2},
		{name: "alpha one", args: []string{"bounds", "--alpha", "1"}, code: 2},
		{name: "alpha below one", args: []string{"bounds", "--alpha", "0.5"}, code: 2},
		{name: "alpha Inf", args: []string{"bounds", "--alpha", "Inf"}, code: 2},
		{name: "alpha 1e309", args: []string{"bounds", "--alpha", "1e309"}, code: 2},
		{name: "alpha NaN", args: []string{"bounds", "--alpha", "nan"}, code: 2},
		{name: "alpha large", args: []string{"bounds", "--alpha", "1e15"}, code: 0},
		{name: "d zero", args: []string{"bounds", "--d", "0"}, code: 2},
		{name: "d negative", args: []string{"bounds", "--d", "-1"}, code: 2},
		{name: "d fraction", args: []string{"bounds", "--d", "1.5"}, code: 2},
		{name: "d exponent", args: []string{"bounds", "--d", "1e3"}, code: 2},
		{name: "d hex", args: []string{"bounds", "--d", "0x10"}, code: 2},
		{name: "d overflow", args: []string{"bounds", "--d", "9223372036854775808"}, code: 2},
		{name: "d largest int", args: []string{"bounds", "--d", "9223372036854775807"}, code: 2},
		{name: "d k past 2^53", args: []string{"bounds", "--d", "94906266", "--k", "94906266"}, code: 2},
		{name: "k past 2^53", args: []string{"bounds", "--k", "9007199254740993"}, code: 2},
		{name: "k at 2^53", args: []string{"bounds", "--k", "9007199254740992"}, code: 0},
		{name: "d range of every int", args: []string{"bounds", "--d", "-9223372036854775808:9223372036854775807:1"}, code: 2},
		{name: "d range 1:0:1", args: []string{"bounds", "--d", "1:0:1"}, code: 2},
		{name: "d range 1:2:0", args: []string{"bounds", "--d", "1:2:0"}, code: 2},
		{name: "k range long", args: []string{"bounds", "--k", "1:9223372036854775807:1"}, code: 2},
		{name: "grid too large", args: []string{"bounds", "--c", "0.01:0.49:0.01", "--eps", "0:3000:1"}, code: 2},
		{name: "grid too large forced", args: []string{"bounds", "--force", "--c", "0.0001:0.4999:0.0001", "--eps", "0:100000:1"}, code: 2},
		// bounds and post: the other flags.
		{name: "range open end", args: []string{"bounds", "--range", "0:1"}, code: 2},
		{name: "range empty", args: []string{"bounds", "--range", "0.5:0.5"}, code: 2},
		{name: "range reversed", args: []string{"bounds", "--range", "0.9:0.1"}, code: 2},
		{name: "range trailing comma", args: []string{"bounds", "--range", "0.1:0.9,"}, code: 2},
		{name: "range NaN", args: []string{"bounds", "--range", "NaN:0.5"}, code: 2},
		{name: "range three fields", args: []string{"bounds", "--range", "0.1:0.9:0.1"}, code: 2},
		{name: "range with d", args: []string{"bounds", "--range", "0.1:0.9", "--d", "2"}, code: 2},
		{name: "range ok", args: []string{"bounds", "--range", "0.1:0.9,0.2:0.8", "--k", "3"}, code: 0},
		{name: "shard 0/0", args: []string{"bounds", "--shard", "0/0"}, code: 2},
		{name: "shard -1/2", args: []string{"bounds", "--shard", "-1/2"}, code: 2},
		{name: "shard 2/2", args: []string{"bounds", "--shard", "2/2"}, code: 2},
		{name: "shard words", args: []string{"bounds", "--shard", "a/b"}, code: 2},
		{name: "shard one number", args: []string{"bounds", "--shard", "1"}, code: 2},
		{name: "format xml", args: []string{"bounds", "--format", "xml"}, code: 2},
		{name: "out with json", args: []string{"bounds", "--format", "json", "--out", "$D/out.csv"}, code: 2},
		{name: "workers zero", args: []string{"bounds", "--workers", "0"}, code: 2},
		{name: "workers overflow", args: []string{"bounds", "--workers", "99999999999999999999"}, code: 2},
		{name: "unicode flag", args: []string{"bounds", "--ε", "1"}, code: 2},
		{name: "flag without value", args: []string{"bounds", "--eps"}, code: 2},
		{name: "tol NaN", args: post("--tol", "NaN"), code: 2},
		{name: "tol zero", args: post("--tol", "0"), code: 2},
		{name: "tol Inf", args: post("--tol", "Inf"), code: 2},
		{name: "timeout negative", args: post("--timeout", "-1s"), code: 2},
		{name: "timeout unitless", args: post("--timeout", "5"), code: 2},
		{name: "timeout overflow", args: post("--timeout", "1e300h"), code: 2},
		{name: "timeout 1ns", args: post("--timeout", "1ns"), code: 0},
		{name: "method", args: post("--method", "dense"), code: 2},
		{name: "certify value", args: post("--certify=maybe"), code: 2},
		{name: "post c subnormal", args: post("--d", "2", "--c", "5e-324"), code: 0},
		{name: "post eps tiny", args: post("--eps", "5e-324"), code: 0},
		{name: "post eps 700", args: post("--eps", "700"), code: 0},
		{name: "post alpha large", args: post("--alpha", "1e15"), code: 0},
		{name: "post tol huge", args: post("--tol", "1e300"), code: 0},
		// The four blow-ups of issue 19, and the same paths reached otherwise.
		{name: "alpha near 1", args: post("--d", "1", "--c", "0.1", "--alpha", "1.0000001", "--eps", "1"), code: 0, orRefuse: true},
		{name: "d 10^6", args: post("--d", "1000000", "--c", "0.1", "--alpha", "5", "--eps", "1"), code: 0, orRefuse: true},
		{name: "bounds n 10^10", args: []string{"bounds", "--d", "100000", "--k", "100000", "--c", "0.1", "--alpha", "5", "--eps", "1"}, code: 0, orRefuse: true},
		{name: "eps 1e300", args: post("--d", "1", "--c", "0.1", "--alpha", "5", "--eps", "1e300"), code: 0, orRefuse: true},
		{name: "eps 1e20", args: post("--eps", "1e20"), code: 0, orRefuse: true},
		// Paths of bounds and post.
		{name: "out in a missing directory", args: withOut("--out", "$D/none/out.csv"), code: 1},
		{name: "out is a directory", args: withOut("--out", "$D"), code: 1},
		{name: "resume without out", args: withOut("--resume"), code: 2},
		{name: "resume a missing file", args: resume, code: 0, want: rows},
		{name: "resume an empty file", args: resume, files: map[string]string{"out.csv": ""}, code: 0, want: rows},
		{name: "resume the header", args: resume, files: map[string]string{"out.csv": head}, code: 0, want: rows},
		{name: "resume a truncated row", args: resume, files: map[string]string{"out.csv": head + lines[1] + lines[2][:10]}, code: 0, want: rows},
		{name: "resume a truncated header", args: resume, files: map[string]string{"out.csv": head[:7]}, code: 0, want: rows},
		{name: "resume out of order", args: resume, files: map[string]string{"out.csv": head + lines[3] + lines[1]}, code: 0, want: rows},
		{name: "resume a finished file", args: resume, files: map[string]string{"out.csv": rows}, code: 0, want: rows},
		{name: "resume another grid", args: resume, files: map[string]string{"out.csv": head + strings.Replace(lines[1], "0.5", "0.25", 1)}, code: 1},
		{name: "resume another header", args: resume, files: map[string]string{"out.csv": "a,b\n1,2\n"}, code: 1},
		{name: "resume a short row", args: resume, files: map[string]string{"out.csv": head + "1,1\n"}, code: 1},
		{name: "resume a repeated row", args: resume, files: map[string]string{"out.csv": head + lines[1] + lines[1]}, code: 1},
		{name: "resume a NaN value", args: resume, files: map[string]string{"out.csv": head + corrupt(lines[1], 5, "NaN")}, code: 1},
		{name: "resume an Inf value", args: resume, files: map[string]string{"out.csv": head + corrupt(lines[2], 8, "+Inf")}, code: 1},
		{name: "resume a word", args: resume, files: map[string]string{"out.csv": head + corrupt(lines[1], 6, "x")}, code: 1},
		{name: "resume a status", args: resume, files: map[string]string{"out.csv": head + corrupt(lines[1], 9, "proved")}, code: 1},
		{name: "resume negative seconds", args: resume, files: map[string]string{"out.csv": head + corrupt(lines[1], 10, "-1")}, code: 1},
		{name: "resume a bare quote", args: resume, files: map[string]string{"out.csv": head + "1,1,\"0.1,5\n"}, code: 1},
		{name: "resume blank lines", args: resume, files: map[string]string{"out.csv": "\n\n"}, code: 1},
		{name: "resume binary", args: resume, files: map[string]string{"out.csv": "\x00\xff\xfe\n"}, code: 1},
		{name: "resume a directory", args: withOut("--out", "$D", "--resume"), code: 1},

		// grid: grid files.
		{name: "grid ok", args: []string{"grid", "--no-timing", "$D/g.json"}, files: map[string]string{"g.json": gridOK}, code: 0},
		{name: "grid missing", args: []string{"grid", "$D/none.json"}, code: 1},
		{name: "grid is a directory", args: []string{"grid", "$D"}, code: 1},
		{name: "grid no file", args: []string{"grid"}, code: 2},
		{name: "grid two files", args: []string{"grid", "$D/g.json", "$D/g.json"}, files: map[string]string{"g.json": gridOK}, code: 2},
		{name: "grid empty", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": ""}, code: 2},
		{name: "grid empty object", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": "{}"}, code: 2},
		{name: "grid truncated", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": gridOK[:30]}, code: 2},
		{name: "grid two values", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": gridOK + gridOK}, code: 2},
		{name: "grid unknown field", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, "{", `{"x": 1, `, 1)}, code: 2},
		{name: "grid command", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, "bounds", "pure", 1)}, code: 2},
		{name: "grid null axis", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"d": 1`, `"d": null`, 1)}, code: 2},
		{name: "grid object axis", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"d": 1`, `"d": {"a": 1}`, 1)}, code: 2},
		{name: "grid nested array", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `[1, 2]`, `[[1], 2]`, 1)}, code: 2},
		{name: "grid numbers in strings", args: []string{"grid", "--no-timing", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `[1, 2]`, `["1", "2"]`, 1)}, code: 0},
		{name: "grid words in array", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `[1, 2]`, `["1", "x"]`, 1)}, code: 2},
		{name: "grid number 1e309", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"alpha": 5`, `"alpha": 1e309`, 1)}, code: 2},
		{name: "grid NaN string", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"0.5,1"`, `"NaN"`, 1)}, code: 2},
		{name: "grid range 1:0:1", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"0.5,1"`, `"1:0:1"`, 1)}, code: 2},
		{name: "grid range huge", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"0.5,1"`, `"0:1e9:1"`, 1)}, code: 2},
		{name: "grid tol negative", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"bounds"`, `"post", "tol": -1`, 1)}, code: 2},
		{name: "grid tol string", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"bounds"`, `"post", "tol": "small"`, 1)}, code: 2},
		{name: "grid timeout", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"bounds"`, `"post", "timeout": "soon"`, 1)}, code: 2},
		{name: "grid method", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"bounds"`, `"post", "method": "dense"`, 1)}, code: 2},
		{name: "grid certify", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": strings.Replace(gridOK, `"bounds"`, `"post", "certify": "yes"`, 1)}, code: 2},
		{name: "grid byte order mark", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": "\ufeff" + gridOK}, code: 2},
		{name: "grid binary", args: []string{"grid", "$D/g.json"}, files: map[string]string{"g.json": "\x00\x01\x02"}, code: 2},
		{name: "grid out unwritable", args: []string{"grid", "--out", "$D/none/out.csv", "$D/g.json"}, files: map[string]string{"g.json": gridOK}, code: 1},

		// merge: CSV files of shards.
		{name: "merge ok", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv", "$D/b.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": head + lines[1] + lines[3], "b.csv": head + lines[2] + lines[4]}, code: 0},
		// Size guards (guard.go): input files past --max-memory/16, orders
		// and boxes past their caps, refused before any work; under the
		// cap the same files pass the guard.
		{name: "merge a shard past the cap", args: []string{"merge", "--grid", "$D/g.json", "--max-memory", "1MiB", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows + strings.Repeat("x", 70_000)}, code: 2},
		{name: "merge a grid past the cap", args: []string{"merge", "--grid", "$D/g.json", "--max-memory", "1MiB", "$D/a.csv"}, files: map[string]string{"g.json": gridOK + strings.Repeat(" ", 70_000), "a.csv": rows}, code: 2},
		{name: "merge under a raised cap", args: []string{"merge", "--grid", "$D/g.json", "--max-memory", "2MiB", "$D/a.csv"}, files: map[string]string{"g.json": gridOK + strings.Repeat(" ", 70_000), "a.csv": rows}, code: 0},
		{name: "merge max-memory malformed", args: []string{"merge", "--grid", "$D/g.json", "--max-memory", "lots", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows}, code: 2},
		{name: "plot an input past the cap", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/a.png", "--max-memory", "1MiB"}, files: map[string]string{"a.csv": rows + strings.Repeat("x", 70_000)}, code: 2},
		{name: "plot max-memory NaN", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/a.png", "--max-memory", "NaN"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "verify a file past the cap", args: []string{"verify", "--max-memory", "1MiB", "$D/c.json"}, files: map[string]string{"c.json": strings.Repeat(" ", 70_000)}, code: 2},
		{name: "curve an input past the cap", args: []string{"curve", "--in", "$D/c.csv", "--max-memory", "1MiB"}, files: map[string]string{"c.csv": curveOK + strings.Repeat("#", 70_000)}, code: 2},
		{name: "curve ten million orders", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "1", "--orders", "1.01:1000:0.0001"}, code: 2},
		{name: "curve 10001 orders", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "1", "--orders", "2:10002:1"}, code: 2},
		{name: "calibrate ten million orders", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--orders", "1.01:1000:0.0001"}, code: 2},
		// calibrate's work guard (calibrate.go): orders x candidates x a
		// Post, by estimate, past --max-work is refused before any Post.
		{name: "calibrate k 100 past max-work", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--k", "100", "--d", "1"}, code: 2},
		{name: "calibrate sigma d 3 k 50 past max-work", args: []string{"calibrate", "--solve", "sigma", "--mechanism", "gaussian", "--eps", "1", "--k", "50", "--d", "3"}, code: 2},
		{name: "calibrate a fine resolution past max-work", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--resolution", "1e-300"}, code: 2},
		{name: "calibrate timeout 0 past max-work", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--k", "1000", "--timeout", "0", "--orders", "2"}, code: 2},
		{name: "calibrate max-work 0", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--max-work", "0"}, code: 2},
		{name: "calibrate max-work negative", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--max-work", "-1s"}, code: 2},
		{name: "calibrate max-work malformed", args: []string{"calibrate", "--solve", "c", "--mechanism", "gaussian", "--sigma", "1", "--eps", "1", "--max-work", "NaN"}, code: 2},
		{name: "calibrate an input past the cap", args: []string{"calibrate", "--solve", "c", "--eps", "1", "--in", "$D/c.csv", "--max-memory", "1MiB"}, files: map[string]string{"c.csv": curveOK + strings.Repeat("#", 70_000)}, code: 2},
		{name: "conjecture boxes past the cap", args: []string{"conjecture", "--points", "1", "--max-boxes", "1000000000"}, code: 2},
		{name: "conjecture max-memory too small", args: []string{"conjecture", "--points", "1", "--max-memory", "1KiB"}, code: 2},
		{name: "merge no shards", args: []string{"merge", "--grid", "$D/g.json"}, files: map[string]string{"g.json": gridOK}, code: 2},
		{name: "merge a missing shard", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv", "$D/none.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows}, code: 1},
		{name: "merge a missing grid", args: []string{"merge", "--grid", "$D/none.json", "$D/a.csv"}, files: map[string]string{"a.csv": rows}, code: 1},
		{name: "merge a bad grid", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv"}, files: map[string]string{"g.json": "{", "a.csv": rows}, code: 2},
		{name: "merge grid and axes", args: []string{"merge", "--grid", "$D/g.json", "--d", "1", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows}, code: 2},
		{name: "merge axis NaN", args: []string{"merge", "--eps", "NaN", "$D/a.csv"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "merge a truncated shard", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows[:len(rows)-5]}, code: 1},
		{name: "merge another grid", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv"}, files: map[string]string{"g.json": strings.Replace(gridOK, `[1, 2]`, `1`, 1), "a.csv": rows}, code: 1},
		{name: "merge a repeated shard", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows}, code: 1},
		{name: "merge a NaN value", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": head + lines[1] + lines[2] + lines[3] + corrupt(lines[4], 7, "nan")}, code: 1},
		{name: "merge another header", args: []string{"merge", "--grid", "$D/g.json", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": strings.Replace(rows, "post_upper", "upper", 1)}, code: 1},
		{name: "merge a directory", args: []string{"merge", "--grid", "$D/g.json", "$D"}, files: map[string]string{"g.json": gridOK}, code: 1},
		{name: "merge out unwritable", args: []string{"merge", "--grid", "$D/g.json", "--out", "$D/none/m.csv", "$D/a.csv"}, files: map[string]string{"g.json": gridOK, "a.csv": rows}, code: 1},

		// plot: CSV files of rows.
		{name: "plot ok", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": rows}, code: 0},
		{name: "plot missing in", args: []string{"plot", "--in", "$D/none.csv", "--out", "$D/f.svg"}, code: 1},
		{name: "plot no in", args: []string{"plot", "--out", "$D/f.svg"}, code: 2},
		{name: "plot no out", args: []string{"plot", "--in", "$D/a.csv"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot gif", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.gif"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot view", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg", "--view", "ratio"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot panels", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg", "--panels", "d"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot width NaN", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg", "--width", "NaN"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot width negative", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg", "--width", "-1"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot height 1e309", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg", "--height", "1e309"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot height huge", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg", "--height", "1e6"}, files: map[string]string{"a.csv": rows}, code: 2},
		{name: "plot empty", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": ""}, code: 1},
		{name: "plot header only", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": head}, code: 1},
		{name: "plot truncated", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": rows[:len(rows)-20]}, code: 1},
		{name: "plot a NaN value", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": head + corrupt(lines[1], 5, "NaN")}, code: 1},
		{name: "plot a bad point", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": head + corrupt(lines[1], 2, "0.7")}, code: 1},
		{name: "plot rows of pure", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/f.svg"}, files: map[string]string{"a.csv": "d,k,c,eps,eps_out\n1,1,0.1,1,0.5\n"}, code: 1},
		{name: "plot out unwritable", args: []string{"plot", "--in", "$D/a.csv", "--out", "$D/none/f.svg"}, files: map[string]string{"a.csv": rows}, code: 1},

		// curve: RDP curve files and flags.
		{name: "curve file ok", args: []string{"curve", "--in", "$D/c.csv", "--format", "json", "--no-timing"}, files: map[string]string{"c.csv": curveOK}, code: 0},
		{name: "curve missing file", args: []string{"curve", "--in", "$D/none.csv"}, code: 1},
		{name: "curve empty file", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": ""}, code: 2},
		{name: "curve header only", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "alpha,eps\n"}, code: 2},
		{name: "curve alpha one", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "1,0.5\n"}, code: 2},
		{name: "curve eps NaN", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "2,NaN\n"}, code: 2},
		{name: "curve eps negative", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "2,-1\n"}, code: 2},
		{name: "curve decreasing", args: []string{"curve", "--in", "$D/c.csv", "--format", "json", "--no-timing"}, files: map[string]string{"c.csv": "2,1\n4,0.5\n"}, code: 0},
		{name: "curve repeated order", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "2,1\n2,1\n"}, code: 2},
		{name: "curve three fields", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "2,1,3\n"}, code: 2},
		{name: "curve truncated", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "alpha,eps\n2,0.5\n4"}, code: 2},
		{name: "curve bare quote", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "2,\"1\n"}, code: 2},
		{name: "curve binary", args: []string{"curve", "--in", "$D/c.csv"}, files: map[string]string{"c.csv": "\x00\xff,\x01\n"}, code: 2},
		{name: "curve file and mechanism", args: []string{"curve", "--in", "$D/c.csv", "--mechanism", "rr", "--p-true", "0.6"}, files: map[string]string{"c.csv": curveOK}, code: 2},
		{name: "curve sigma NaN", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "NaN"}, code: 2},
		{name: "curve sigma zero", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "0"}, code: 2},
		{name: "curve sigma tiny", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "1e-300", "--orders", "2"}, code: 2},
		{name: "curve sigma huge", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "1e300", "--orders", "2", "--format", "json", "--no-timing"}, code: 0},
		{name: "curve b tiny", args: []string{"curve", "--mechanism", "laplace", "--b", "1e-300", "--orders", "2", "--format", "json"}, code: 0, orRefuse: true},
		{name: "curve order near 1", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "1", "--orders", "1.0000000001", "--format", "json"}, code: 0, orRefuse: true},
		{name: "curve p one", args: []string{"curve", "--mechanism", "rr", "--p-true", "1"}, code: 2},
		{name: "curve compose zero", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--compose", "0"}, code: 2},
		{name: "curve emit unwritable", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--orders", "2", "--format", "json", "--no-timing", "--emit-curve", "$D/none/e.csv"}, code: 1},
		{name: "curve b with gaussian", args: []string{"curve", "--mechanism", "gaussian", "--sigma", "1", "--b", "1"}, code: 2},
		{name: "curve mechanism", args: []string{"curve", "--mechanism", "laplacian"}, code: 2},
		{name: "curve no mechanism", args: []string{"curve"}, code: 2},
		{name: "curve orders 1:0:1", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--orders", "1:0:1"}, code: 2},
		{name: "curve orders one", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--orders", "1"}, code: 2},
		{name: "curve orders decreasing", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--orders", "3,2"}, code: 2},
		{name: "curve delta zero", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--delta", "0"}, code: 2},
		{name: "curve delta NaN", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--delta", "NaN"}, code: 2},
		{name: "curve conversion", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--conversion", "bun2016"}, code: 2},
		{name: "curve d huge", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--d", "9223372036854775807"}, code: 2},
		{name: "curve summary unwritable", args: []string{"curve", "--mechanism", "rr", "--p-true", "0.6", "--orders", "2", "--no-timing", "--summary", "$D/none/s.csv"}, code: 1},

		// pure.
		{name: "pure eps NaN", args: []string{"pure", "--eps", "NaN"}, code: 2},
		{name: "pure eps -0", args: []string{"pure", "--eps", "-0"}, code: 0},
		{name: "pure eps huge", args: []string{"pure", "--eps", "1e308"}, code: 0},
		{name: "pure c subnormal", args: []string{"pure", "--c", "5e-324", "--eps", "700"}, code: 0},
		{name: "pure d largest int", args: []string{"pure", "--d", "9223372036854775807"}, code: 0},
		{name: "pure c half", args: []string{"pure", "--c", "0.5"}, code: 2},
		{name: "pure d range 1:2:0", args: []string{"pure", "--d", "1:2:0"}, code: 2},
		{name: "pure method", args: []string{"pure", "--method", "simplex"}, code: 2},
		{name: "pure lp too large", args: []string{"pure", "--method", "lp", "--d", "7"}, code: 2},
		{name: "pure range with d", args: []string{"pure", "--range", "0.1:0.9", "--d", "2"}, code: 2},
		{name: "pure range bad", args: []string{"pure", "--range", "0.1"}, code: 2},
		{name: "pure format", args: []string{"pure", "--format", "xml"}, code: 2},

		// delta.
		{name: "delta ok", args: []string{"delta", "--eps", "1", "--delta", "1e-5", "--no-timing"}, code: 0},
		{name: "delta no eps", args: []string{"delta", "--delta", "0.1"}, code: 2},
		{name: "delta eps NaN", args: []string{"delta", "--eps", "NaN", "--delta", "0.1"}, code: 2},
		{name: "delta eps largest float", args: []string{"delta", "--eps", "1.7976931348623157e308", "--delta", "0.5", "--no-timing"}, code: 0},
		{name: "delta delta one", args: []string{"delta", "--eps", "1", "--delta", "1"}, code: 2},
		{name: "delta delta -0", args: []string{"delta", "--eps", "1", "--delta", "-0", "--no-timing"}, code: 0},
		{name: "delta delta NaN", args: []string{"delta", "--eps", "1", "--delta", "NaN"}, code: 2},
		{name: "delta sigma tiny", args: []string{"delta", "--eps", "1", "--gaussian", "1e-300"}, code: 2},
		{name: "delta sigma huge", args: []string{"delta", "--eps", "1", "--gaussian", "1e300"}, code: 0, orRefuse: true},
		{name: "delta both", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--gaussian", "1"}, code: 2},
		{name: "delta eps-out NaN", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--eps-out", "NaN"}, code: 2},
		{name: "delta eps-out 1:0:1", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--eps-out", "1:0:1"}, code: 2},
		{name: "delta eps-out huge", args: []string{"delta", "--eps", "1", "--delta", "0", "--eps-out", "1e308", "--no-timing"}, code: 0},
		{name: "delta d large", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--d", "1000"}, code: 2},
		{name: "delta d largest int", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--d", "9223372036854775807"}, code: 2},
		{name: "delta k large", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--k", "16777216"}, code: 2},
		{name: "delta conversion", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--conversion", "mironov2017"}, code: 2},
		{name: "delta rdp-timeout", args: []string{"delta", "--eps", "1", "--gaussian", "1", "--rdp-timeout", "-1s"}, code: 2},
		{name: "delta format", args: []string{"delta", "--eps", "1", "--delta", "0.1", "--format", "table"}, code: 2},

		// demo: validation only (a run writes the figure's grid).
		{name: "demo preset", args: []string{"demo", "--preset", "fig4"}, code: 2},
		{name: "demo figure", args: []string{"demo", "--figure", "x.gif"}, code: 2},
		{name: "demo empty out", args: []string{"demo", "--out", ""}, code: 2},
		{name: "demo tol NaN", args: []string{"demo", "--tol", "NaN"}, code: 2},
		{name: "demo timeout", args: []string{"demo", "--timeout", "-1s"}, code: 2},
		{name: "demo grid flag", args: []string{"demo", "--d", "1"}, code: 2},
		{name: "demo out unwritable", args: []string{"demo", "--out", "$D/none/x.csv", "--figure", ""}, code: 1},

		// conjecture.
		{name: "conjecture ok", args: []string{"conjecture", "--points", "2", "--n-max", "4", "--timeout", "200ms", "--no-timing", "--quiet", "--out", "$D/s.csv"}, code: 0},
		{name: "conjecture points zero", args: []string{"conjecture", "--points", "0"}, code: 2},
		{name: "conjecture points negative", args: []string{"conjecture", "--points", "-1"}, code: 2},
		{name: "conjecture points huge", args: []string{"conjecture", "--points", "9223372036854775807"}, code: 2},
		{name: "conjecture seed negative", args: []string{"conjecture", "--seed", "-1"}, code: 2},
		{name: "conjecture seed overflow", args: []string{"conjecture", "--seed", "18446744073709551616"}, code: 2},
		{name: "conjecture max-boxes", args: []string{"conjecture", "--max-boxes", "0"}, code: 2},
		{name: "conjecture tol NaN", args: []string{"conjecture", "--tol", "NaN"}, code: 2},
		{name: "conjecture n-max", args: []string{"conjecture", "--n-max", "9223372036854775807"}, code: 2},
		{name: "conjecture c-min", args: []string{"conjecture", "--c-min", "0"}, code: 2},
		{name: "conjecture alpha-min", args: []string{"conjecture", "--alpha-min", "1"}, code: 2},
		{name: "conjecture eps-max Inf", args: []string{"conjecture", "--eps-max", "Inf"}, code: 2},
		{name: "conjecture eps reversed", args: []string{"conjecture", "--eps-min", "2", "--eps-max", "1"}, code: 2},
		{name: "conjecture out unwritable", args: []string{"conjecture", "--points", "1", "--out", "$D/none/s.csv"}, code: 1},

		// help and the command itself.
		{name: "help", args: []string{"help"}, code: 0},
		{name: "help flag", args: []string{"--help"}, code: 0},
		{name: "post help", args: []string{"post", "-h"}, code: 0},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2},
		{name: "unicode command", args: []string{"pöst"}, code: 2},
		{name: "empty command", args: []string{""}, code: 2},
		{name: "extra argument", args: []string{"bounds", "extra"}, code: 2},
	}
	if len(tests) < 100 {
		t.Fatalf("%d cases, want at least 100", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runHostile(t, tc)
		})
	}
}

// onlyWarnings reports whether every line of stderr is a warning.
func onlyWarnings(stderr string) bool {
	for line := range strings.Lines(stderr) {
		if !strings.HasPrefix(line, "bernamp: warning: ") {
			return false
		}
	}
	return true
}

// corrupt returns the CSV line with field j replaced by v.
func corrupt(line string, j int, v string) string {
	f := strings.Split(strings.TrimSuffix(line, "\n"), ",")
	f[j] = v
	return strings.Join(f, ",") + "\n"
}

// runHostile runs one case and checks its outcome.
func runHostile(t *testing.T, tc hostileCase) {
	dir := t.TempDir()
	for name, content := range tc.files {
		writeFile(t, filepath.Join(dir, name), strings.ReplaceAll(content, "$D", dir))
	}
	args := make([]string, len(tc.args))
	for i, a := range tc.args {
		args[i] = strings.ReplaceAll(a, "$D", dir)
	}
	// The time limit ends a run that does not stop by itself: the run is
	// then cancelled and fails the exit status check.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := runTerm(ctx, args, &stdout, &stderr, tty{})
	if ctx.Err() != nil {
		t.Errorf("still running after 20 s")
	}

	if code != tc.code && !(tc.orRefuse && code == 2) {
		t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr.String())
	}
	errs := stderr.String()
	switch {
	case code == 0 && !onlyWarnings(errs):
		t.Errorf("exit 0 with stderr %q, want nothing but warnings", errs)
	case code != 0 && (!strings.HasPrefix(errs, "bernamp: ") || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n")):
		t.Errorf("stderr %q, want one line starting with \"bernamp: \"", errs)
	}
	if code == 2 && stdout.Len() > 0 {
		t.Errorf("exit 2 with output %q: invalid input must be rejected before any output", stdout.String())
	}
	if out := stdout.String(); out != usage() && nonFinite.MatchString(out) {
		t.Errorf("NaN or Inf in the output:\n%s", out)
	}
	// Every file written, in $D and below, holds finite values only.
	filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !(strings.HasSuffix(path, ".csv") || strings.HasSuffix(path, ".json")) {
			return nil
		}
		if _, given := tc.files[e.Name()]; given && filepath.Dir(path) == dir && e.Name() != "out.csv" {
			return nil // an input of the case, unchanged
		}
		b, _ := os.ReadFile(path)
		if code == 0 && nonFinite.Match(b) {
			t.Errorf("NaN or Inf in %s:\n%s", e.Name(), b)
		}
		return nil
	})
	if tc.want != "" {
		if got := readFileOrEmpty(filepath.Join(dir, "out.csv")); got != tc.want {
			t.Errorf("out.csv\n%s\nwant\n%s", got, tc.want)
		}
	}
}
