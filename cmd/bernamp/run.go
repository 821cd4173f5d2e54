package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/solver"
)

//go:embed doc.go
var doc string

// usage returns the package doc of doc.go without the comment markers.
func usage() string {
	var b strings.Builder
	for line := range strings.Lines(doc) {
		if !strings.HasPrefix(line, "//") {
			break // the package clause ends the doc
		}
		line = strings.TrimPrefix(line, "//")
		line = strings.TrimPrefix(line, " ")
		b.WriteString(line)
	}
	return b.String()
}

// shortUsage returns what bernamp with no arguments prints: the first
// sentence of usage, the usage line and the commands' names (read from
// usage's command list), and where the rest is.
func shortUsage() string {
	intro, _, _ := strings.Cut(usage(), "\n\n")
	return intro + "\n\nUsage: bernamp <command> [flags]\n\nCommands: " + strings.Join(commandNames(), ", ") +
		"\n\nRun 'bernamp help' for what each command does, 'bernamp COMMAND -h' for its flags.\n"
}

// errHelp is returned when -h was given: the usage was printed, exit 0.
var errHelp = errors.New("help requested")

// run runs the command line args and returns the exit status: 0 on success,
// 1 on runtime failures, 2 on invalid input.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runTerm(ctx, args, stdout, stderr, tty{stdout: isTerminal(stdout), stderr: isTerminal(stderr)})
}

// tty says which outputs are terminals: a terminal stdout gets the table
// format by default, a terminal stderr the progress line.
type tty struct{ stdout, stderr bool }

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// runTerm is run with the terminal tests injected.
func runTerm(ctx context.Context, args []string, stdout, stderr io.Writer, term tty) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, shortUsage())
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "help", "-h", "-help", "--help":
		err = runHelp(rest, stdout, func(cmd string) error {
			if code := runTerm(ctx, []string{cmd, "-h"}, stdout, stderr, term); code != 0 {
				return fmt.Errorf("%s -h: exit %d", cmd, code)
			}
			return nil
		})
	case "bounds", "post":
		err = runGrid(ctx, cmd, rest, stdout, stderr, term)
	case "grid":
		err = runGridFile(ctx, rest, stdout, stderr, term)
	case "merge":
		err = runMerge(rest, stdout)
	case "plot":
		err = runPlot(ctx, rest, stdout, stderr)
	case "curve":
		err = runCurve(ctx, rest, stdout, stderr)
	case "calibrate":
		err = runCalibrate(ctx, rest, stdout, stderr)
	case "pure":
		err = runPure(ctx, rest, stdout, stderr)
	case "delta":
		err = runDelta(ctx, rest, stdout, stderr)
	case "compose":
		err = runCompose(ctx, rest, stdout, stderr, term)
	case "demo":
		err = runDemo(ctx, rest, stdout, stderr, term)
	case "conjecture":
		err = runConjecture(ctx, rest, stdout, stderr, term)
	case "verify":
		err = runVerify(ctx, rest, stdout)
	case "serve":
		err = runServe(ctx, rest, stdout, stderr)
	default:
		err = usagef("unknown command %q; run 'bernamp help' for usage", cmd)
	}
	var uerr usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "bernamp: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "bernamp: %v\n", err)
	return 1
}

// options holds every flag; each command defines the ones it uses.
type options struct {
	grid     gridFlags
	format   string
	workers  int
	tol      float64
	method   string
	certify  bool
	check    bool // re-prove each certificate by the independent checker (default on)
	noCheck  bool // --no-check: check off
	timeout  time.Duration
	force    bool
	noTiming bool
	out      string // CSV file of the rows; "" means stdout
	resume   bool   // skip the rows already in out
	shard    string // i/n
	planFrom string // grid only: CSV file of an earlier run whose seconds are the points' costs
	quiet    bool   // no progress line
	preset   string // demo only
	figure   string // demo only
	memFlag  string // --max-memory as given
	maxMem   int64  // --max-memory in bytes (checkOptions); 0 means bernamp.DefaultMaxMemory
	certOut  string // post only: directory of exported certificates
}

// Flag groups of newFlagSet.
const (
	axisOpts   = 1 << iota // --d --k --c --alpha --eps
	gridOpts               // --format --force
	solverOpts             // --tol --timeout --method --certify --check
	runOpts                // --out --resume --shard --quiet
	demoOpts               // --preset
	// The flags every command has unless it says otherwise: a command
	// that does not read one leaves it out, so its -h lists only the
	// flags it reads.
	withoutWorkers   // no --workers
	withoutNoTiming  // no --no-timing
	withoutMaxMemory // no --max-memory
)

// newFlagSet defines the flags of cmd in the groups given, plus --workers,
// --max-memory and --no-timing unless left out by withoutWorkers,
// withoutMaxMemory and withoutNoTiming.
func newFlagSet(cmd string, o *options, groups int) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	if groups&axisOpts != 0 {
		fs.StringVar(&o.grid.d, "d", "1", "dimension of theta: list or range of integers >= 1")
		fs.StringVar(&o.grid.k, "k", "1", "Bernoulli samples released: list or range of integers >= 1")
		fs.StringVar(&o.grid.c, "c", "0.1", "range constant: list or range in (0, 0.5)")
		fs.StringVar(&o.grid.alpha, "alpha", "5", "Rényi order: list or range, > 1")
		fs.StringVar(&o.grid.eps, "eps", "1", "RDP level in nats: list or range, >= 0")
	}
	if groups&gridOpts != 0 {
		fs.StringVar(&o.format, "format", "", "csv, json or table (default table on a terminal, else csv; csv with --out)")
		fs.BoolVar(&o.force, "force", false, fmt.Sprintf("allow grids of more than %d points", maxGrid))
	}
	if groups&solverOpts != 0 {
		fs.Float64Var(&o.tol, "tol", 1e-9, "certified gap in nats, > 0")
		fs.StringVar(&o.method, "method", solver.MethodReduced, "evaluator of the search for d >= 2: reduced or full")
		fs.BoolVar(&o.certify, "certify", true, "prove post_upper by the two-point-pieces certificate (--certify=false skips it: post_upper is then the closed form)")
		fs.BoolVar(&o.check, "check", true, "re-prove each certificate behind post_upper by the independent checker (package verify); a bound it does not accept is not used (post_upper is then ub, never certified on it)")
		fs.BoolVar(&o.noCheck, "no-check", false, "skip the independent checker (--check=false): faster, and post_upper rests on the solver's rounding model")
		fs.DurationVar(&o.timeout, "timeout", 0, "time limit per point's solve, and again for its check, 0 means none")
	}
	if groups&runOpts != 0 {
		fs.StringVar(&o.out, "out", "", "CSV file to write the rows to, in grid order; each finished point also goes to FILE.journal at once (default stdout)")
		fs.BoolVar(&o.resume, "resume", false, "keep the rows already in --out and its journal and compute only the missing ones")
		fs.StringVar(&o.shard, "shard", "", "i/n: run only shard i of n (0 <= i < n) of the grid")
		fs.BoolVar(&o.quiet, "quiet", false, "no progress line on stderr")
	}
	if groups&demoOpts != 0 {
		fs.StringVar(&o.preset, "preset", "fig1", "grid of the paper: fig1, fig2 or fig3")
		fs.StringVar(&o.figure, "figure", "", `figure of the CSV, .png, .svg or .pdf (default <preset>.png in --dir; "" for none)`)
	}
	if groups&withoutWorkers == 0 {
		fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "points solved in parallel, >= 1")
	}
	if groups&withoutMaxMemory == 0 {
		fs.StringVar(&o.memFlag, "max-memory", "1GiB", "memory cap of the run by estimate, e.g. 512MiB, 4GiB or bytes: engines past it answer with the closed forms")
	}
	if groups&withoutNoTiming == 0 {
		fs.BoolVar(&o.noTiming, "no-timing", false, "write 0 as seconds")
	}
	return fs
}

// parseFlags parses args into fs. Errors come back as usage errors of one
// line; -h prints the flags of cmd to stdout and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	rest, err := parseFlagsArgs(fs, args, stdout)
	if err == nil && len(rest) > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), rest[0])
	}
	return err
}

// parseFlagsArgs is parseFlags for a command that takes arguments after
// its flags: it returns them.
func parseFlagsArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard) // errors are returned and printed on one line
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		writeCommandHelp(stdout, fs)
		return nil, errHelp
	}
	if err != nil {
		return nil, usagef("%s: %v", fs.Name(), err)
	}
	return fs.Args(), nil
}

// checkOptions validates the flags other than the grid.
func checkOptions(o *options, groups int) error {
	if groups&withoutWorkers == 0 && o.workers < 1 {
		return usagef("--workers: workers is %d, must be >= 1", o.workers)
	}
	if o.noCheck {
		o.check = false
	}
	if o.memFlag != "" {
		m, err := parseBytes(o.memFlag)
		if err != nil {
			return usagef("--max-memory: %v", err)
		}
		o.maxMem = m
	}
	if groups&gridOpts != 0 {
		switch o.format {
		case "csv", "json", "table":
		default:
			return usagef("--format: format is %q, must be csv, json or table", o.format)
		}
		if o.out != "" && o.format != "csv" {
			return usagef("--format: --out writes csv, not %s", o.format)
		}
	}
	if groups&solverOpts != 0 {
		if !(o.tol > 0) || math.IsInf(o.tol, 1) {
			return usagef("--tol: tol is %v, must be > 0 and finite", o.tol)
		}
		if o.method != solver.MethodReduced && o.method != solver.MethodFull {
			return usagef("--method: method is %q, must be %s or %s", o.method, solver.MethodReduced, solver.MethodFull)
		}
		if o.timeout < 0 {
			return usagef("--timeout: timeout is %v, must be >= 0", o.timeout)
		}
	}
	if groups&runOpts != 0 && o.resume && o.out == "" {
		return usagef("--resume: needs --out FILE")
	}
	return nil
}

// runGrid runs bounds (closed-form bounds) or post (the solver) on the grid
// given by the flags.
func runGrid(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer, term tty) error {
	groups := axisOpts | gridOpts | runOpts
	if cmd == "post" {
		groups |= solverOpts
	}
	var o options
	fs := newFlagSet(cmd, &o, groups)
	var ranges string
	fs.StringVar(&ranges, "range", "", "per-coordinate ranges lo:hi,lo:hi,... (0 < lo < hi < 1), one per coordinate, instead of --d and --c")
	if cmd == "post" {
		fs.StringVar(&o.certOut, "certificate-out", "", "directory to write a certificate file to for each point proved by the pieces certificate (docs/certificates.md)")
	}
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	var rs []bounds.Range
	if ranges != "" {
		var err error
		if rs, err = parseRanges(ranges); err != nil {
			return err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, name := range []string{"d", "c", "resume", "shard", "method"} {
			if set[name] {
				return usagef("--range: does not go with --%s", name)
			}
		}
		o.grid.d, o.grid.c = "1", "0.1" // placeholders, replaced below
	}
	if o.certOut != "" {
		if err := os.MkdirAll(o.certOut, 0o755); err != nil {
			return err
		}
	}
	g, err := newGrid(o.grid, o.force)
	if err != nil {
		return err
	}
	if rs != nil {
		g.ranges, g.d, g.c = rs, []int{len(rs)}, []float64{0}
	}
	j, err := newJob(cmd, g, &o, groups, term)
	if err != nil {
		return err
	}
	return j.run(ctx, stdout, stderr, nil)
}

// solverSettings returns the settings of Post for a run of n points. The
// pool runs min(n, workers) points at once; each point may use the workers
// left over, so a single hard point still gets every worker.
func solverSettings(o *options, n int) *bernamp.Settings {
	return &bernamp.Settings{MaxMemory: o.maxMem / int64(min(max(n, 1), o.workers)), Tol: o.tol, Timeout: o.timeout, Method: o.method, NoCertify: !o.certify, Check: o.check, Workers: max(1, o.workers/min(max(n, 1), o.workers))}
}
