// Command bench times a fixed suite of bernamp computations and writes a
// markdown report: the machine (CPU model, cores), the Go version and date,
// then one table per experiment with medians over repeated runs.
//
// Usage (from the repository root):
//
//	go run ./bench [-quick] [-runs N] [-exp LIST] [-out FILE]
//
// The experiments, in order (names for -exp), each with its anchor in the
// same run:
//
//	bounds    the closed-form bounds
//	pieces    the engine: certify.Certify (the two-point pieces certificate,
//	          with bernamp.Post's settings) on every point of the paper's
//	          three grids (testdata/grids/fig1.json, fig2.json, fig3.json):
//	          per grid points proved, median, worst point (with its boxes)
//	          and total time; beside it the closed forms (bounds.Lower and
//	          bounds.UpperBound) over the same grid, their time and the gap
//	          UB - LB they leave against the certificate's Upper - LB
//	scaling   certify.Certify at n = 10 to 10^6 (c = 0.4999 and c = 0.45,
//	          alpha 5, eps 1): time, boxes, what settles the point; beside
//	          it bounds.Lower at the same n
//	check     the independent checker: verify.Check on the certificate file
//	          Post exports (certify.Result.File) at every 10th eps of each
//	          panel of the grids, against the certificate's own time
//	          (checker / solver per point: median, worst; ratio of sums);
//	          and at n = 10^3, 10^4, 10^6
//	post      bernamp.Post end to end on the Figure 1 grid through the pool
//	          as bernamp demo runs it (parallel.MapSchedule, 2 workers, 3 s
//	          a point): the default (certificate and independent check)
//	          against the default (check off), wall time and ratio
//	kron      the channel K x: Kronecker apply against a dense product
//	grad      one objective-and-gradient evaluation of the witness search
//	          (must not allocate)
//	solve     the witness search, solver.Maximize, for k = 1, d = 1..10 and
//	          k in {2, 4, 8}, d = 1..4, with least-squares growth exponents
//	          of time and memory against (k+1)^d, the configurations and the
//	          outputs
//	reach     the largest d the witness search solves within 10 s per
//	          point, k = 1 and k = 4
//	baseline  package baseline (a generic local optimizer with random
//	          starts) against bernamp.Post with its defaults: value, time,
//	          misses
//	pool      bernamp.Post without the certificate (the witness search)
//	          over a fixed grid on 1, 2 and 4 workers, as the CLI runs it
//	          (parallel.MapSchedule, longest first) and in index order
//	          (parallel.Map): speedup
//	compose   accountant.ComposeClaim at T = 1000 (Gaussian sigma 2, c 0.1)
//	          for n = 1 to 10^6: the claim, the claim with its lower side, and
//	          in the same run the unamplified PLD, the single-pair route and
//	          Google's dp_accounting (Python, when found: the Gaussian's PLD
//	          composed, timed live; the amplified profile composed, from
//	          testdata/ref/compose_ref.csv)
//
// The full suite is budgeted at 20 minutes on 2 cores and writes
// bench/results.md unless -out says otherwise. -quick runs a reduced suite
// (one run per case, no reach, every few eps of the grids) budgeted at two
// minutes, for CI smoke use, and writes no file unless -out is given. -runs
// overrides the repetitions (default 3 full, 1 quick). -exp runs only the
// listed experiments (comma separated), e.g. -exp solve,reach. -smoke runs
// a seconds-long suite, the harness's own test. The report also goes to
// stdout; progress and warnings go to stderr. Exit status 1 when a case
// fails (a search that does not complete, an allocation in a hot loop,
// results that depend on the worker count), 2 on bad flags. A certificate
// the checker rejects is not a failure of the harness: the report counts
// it in bold and stderr warns.
//
// dp_accounting is looked for as python3 or /usr/bin/python3 ($BERNAMP_PYTHON
// overrides) importing it as installed, or from $BERNAMP_DP_ACCOUNTING, or
// from ../shared/vendor/dp_accounting beside the repository; without it
// the compose table says so and has no live dp_accounting column values.
//
// The benchmarks of the packages themselves run with go test -bench (for
// example go test ./solver -run XXX -bench Maximize); go test without
// -bench runs only a seconds-long smoke test of this harness.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/bernamp/bernamp"
)

// defaultOut is where the full suite writes its report.
const defaultOut = "bench/results.md"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "the reduced suite (about a minute; no file unless -out)")
	runs := fs.Int("runs", 0, "repetitions of each case, >= 1 (0: 3 full, 1 quick)")
	exps := fs.String("exp", "", "comma-separated experiments to run (default all): "+expNames())
	out := fs.String("out", "", "write the report to this file (default "+defaultOut+" for the full suite)")
	smoke := fs.Bool("smoke", false, "a seconds-long suite for testing the harness")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := fullConfig()
	switch {
	case *smoke:
		cfg = smokeConfig()
	case *quick:
		cfg = quickConfig()
	}
	if *runs < 0 {
		fmt.Fprintf(stderr, "bench: -runs is %d, must be >= 1\n", *runs)
		return 2
	}
	if *runs > 0 {
		cfg.runs = *runs
	}
	selected, err := selectExperiments(*exps)
	if err != nil {
		fmt.Fprintf(stderr, "bench: -exp: %v\n", err)
		return 2
	}
	path := *out
	if path == "" && cfg.name == "full" {
		path = defaultOut
	}

	start := time.Now()
	var r report
	fmt.Fprintf(&r, "# bernamp benchmarks\n\n")
	fmt.Fprintf(&r, "- date: %s\n", start.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&r, "- machine: %s, %d cores (GOMAXPROCS %d), %s/%s\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&r, "- go: %s%s\n", runtime.Version(), revision())
	fmt.Fprintf(&r, "- suite: %s, %d runs per case (median reported), fast cases called for at least %s per run\n", cfg.name, cfg.runs, dur(cfg.minTime))
	fmt.Fprintf(&r, "- command: `go run ./bench %s`\n", strings.Join(args, " "))
	load0 := loadAvg()
	fmt.Fprintf(&r, "- load average (1 min) at the start: %s\n\n", load0)
	st := &state{solves: map[[2]int]sample{}, pieces: map[bernamp.Params]pieceRun{}, warn: stderr}
	var elapsed []string
	for i, e := range experiments {
		if !selected[e.name] {
			continue
		}
		fmt.Fprintf(stderr, "bench: %s ...\n", e.name)
		t := time.Now()
		fmt.Fprintf(&r, "## %d. %s\n\n", i+1, e.title)
		if err := e.run(ctx, cfg, st, &r); err != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", e.name, err)
			return 1
		}
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "bench: interrupted\n")
			return 1
		}
		el := time.Since(t)
		elapsed = append(elapsed, fmt.Sprintf("%s %s", e.name, dur(el)))
		fmt.Fprintf(stderr, "bench: %s done in %s\n", e.name, dur(el))
	}
	total := time.Since(start)
	fmt.Fprintf(&r, "## Time\n\n")
	fmt.Fprintf(&r, "The suite took %s (budget %s): %s.\n", dur(total), dur(cfg.budget), strings.Join(elapsed, ", "))
	fmt.Fprintf(&r, "\nLoad average (1 min) at the start %s, at the end %s on %d cores: above the core count the machine was shared with other jobs while the suite ran, and absolute times are inflated by about the load over the cores; the side-by-side columns of one table, measured in the same run, compare better than runs on different days.\n", load0, loadAvg(), runtime.NumCPU())
	if total > cfg.budget {
		fmt.Fprintf(&r, "\n**Over budget.**\n")
		fmt.Fprintf(stderr, "bench: warning: the %s suite took %s, over its budget of %s\n", cfg.name, dur(total), dur(cfg.budget))
	}
	fmt.Fprint(stdout, r.String())
	if path != "" {
		if err := os.WriteFile(path, []byte(r.String()), 0o644); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", path)
	}
	return 0
}

func expNames() string {
	var names []string
	for _, e := range experiments {
		names = append(names, e.name)
	}
	return strings.Join(names, ",")
}

// selectExperiments parses -exp: empty means every experiment.
func selectExperiments(list string) (map[string]bool, error) {
	sel := map[string]bool{}
	if strings.TrimSpace(list) == "" {
		for _, e := range experiments {
			sel[e.name] = true
		}
		return sel, nil
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.ContainsFunc(experiments, func(e experiment) bool { return e.name == name }) {
			return nil, fmt.Errorf("unknown experiment %q (want some of %s)", name, expNames())
		}
		sel[name] = true
	}
	return sel, nil
}

// cpuModel returns the CPU model name from /proc/cpuinfo, or "unknown".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return "unknown"
}

// loadAvg returns the 1-minute load average from /proc/loadavg, or
// "unknown".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// revision returns ", commit <hash>" from the build info, or "" when the
// binary was built without VCS stamping.
func revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return ", commit " + s.Value
		}
	}
	return ""
}
