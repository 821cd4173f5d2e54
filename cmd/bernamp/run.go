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
	"github.com/bernamp/bernamp/parallel"
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

// errHelp is returned when -h was given: the usage was printed, exit 0.
var errHelp = errors.New("help requested")

// run runs the command line args and returns the exit status: 0 on success,
// 1 on runtime failures, 2 on invalid input.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runTerm(ctx, args, stdout, stderr, isTerminal(stdout))
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// runTerm is run with the terminal test injected: terminal selects the
// default format.
func runTerm(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	case "bounds", "post":
		err = runGrid(ctx, cmd, rest, stdout, stderr, terminal)
	case "demo":
		err = runDemo(ctx, rest, stdout, stderr)
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
	timeout  time.Duration
	force    bool
	noTiming bool
	out      string
}

// Flag groups of newFlagSet.
const (
	gridOpts   = 1 << iota // --d --k --c --alpha --eps --format --force
	solverOpts             // --tol --timeout --method --certify
	demoOpts               // --out
)

// newFlagSet defines the flags of cmd in the groups given, plus --workers
// and --no-timing, which every command has.
func newFlagSet(cmd string, o *options, groups int) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	if groups&gridOpts != 0 {
		fs.StringVar(&o.grid.d, "d", "1", "dimension of theta: list or range of integers >= 1")
		fs.StringVar(&o.grid.k, "k", "1", "Bernoulli samples released: list or range of integers >= 1")
		fs.StringVar(&o.grid.c, "c", "0.1", "range constant: list or range in (0, 0.5)")
		fs.StringVar(&o.grid.alpha, "alpha", "5", "Rényi order: list or range, > 1")
		fs.StringVar(&o.grid.eps, "eps", "1", "RDP level in nats: list or range, >= 0")
		fs.StringVar(&o.format, "format", "", "csv, json or table (default table on a terminal, else csv)")
		fs.BoolVar(&o.force, "force", false, fmt.Sprintf("allow grids of more than %d points", maxGrid))
	}
	if groups&solverOpts != 0 {
		fs.Float64Var(&o.tol, "tol", 1e-9, "certified gap in nats, > 0")
		fs.StringVar(&o.method, "method", solver.MethodReduced, "evaluator of the search for d >= 2: reduced or full")
		fs.BoolVar(&o.certify, "certify", true, "prove an upper bound for d >= 2 where it fits (--certify=false skips it)")
		fs.DurationVar(&o.timeout, "timeout", 0, "time limit per point, 0 means none")
	}
	if groups&demoOpts != 0 {
		fs.StringVar(&o.out, "out", "bernamp-demo.csv", "CSV file to write")
	}
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "points solved in parallel, >= 1")
	fs.BoolVar(&o.noTiming, "no-timing", false, "write 0 as seconds")
	return fs
}

// parseFlags parses args into fs. Errors come back as usage errors of one
// line; -h prints the flags of cmd to stdout and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard) // errors are returned and printed on one line
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "usage: bernamp %s [flags]\n\nFlags:\n", fs.Name())
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// checkOptions validates the flags other than the grid.
func checkOptions(o *options, groups int) error {
	if o.workers < 1 {
		return usagef("--workers: workers is %d, must be >= 1", o.workers)
	}
	if groups&gridOpts != 0 {
		switch o.format {
		case "csv", "json", "table":
		default:
			return usagef("--format: format is %q, must be csv, json or table", o.format)
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
	if groups&demoOpts != 0 && o.out == "" {
		return usagef("--out: empty file name")
	}
	return nil
}

// runGrid runs bounds (closed-form bounds) or post (the solver) on the grid
// given by the flags and writes one record per point to stdout.
func runGrid(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer, terminal bool) error {
	groups := gridOpts
	if cmd == "post" {
		groups |= solverOpts
	}
	var o options
	fs := newFlagSet(cmd, &o, groups)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if o.format == "" {
		o.format = "csv"
		if terminal {
			o.format = "table"
		}
	}
	if err := checkOptions(&o, groups); err != nil {
		return err
	}
	g, err := newGrid(o.grid, o.force)
	if err != nil {
		return err
	}
	var settings *bernamp.Settings
	if cmd == "post" {
		settings = solverSettings(&o, g.n)
		if o.method == solver.MethodFull {
			for _, d := range g.d {
				for _, k := range g.k {
					if d > 1 && !solver.FullFits(d, k) {
						return usagef("--method: full needs (k+1)^d <= 2^20 outputs, and d=%d k=%d has %.3g: use reduced", d, k, math.Pow(float64(k+1), float64(d)))
					}
				}
			}
		}
	}
	w, err := newRowWriter(o.format, stdout)
	if err != nil {
		return err
	}
	return solveGrid(ctx, g, settings, &o, w, stderr, nil)
}

// solveGrid computes every point of g, with bernamp.Post and settings, or
// with bernamp.Bounds when settings is nil, and writes the records in grid
// order to w, closing it. Cross-check failures and refutations go to stderr.
// Each written record is also passed to seen, if not nil.
func solveGrid(ctx context.Context, g *grid, settings *bernamp.Settings, o *options, w rowWriter, stderr io.Writer, seen func(*record)) error {
	do := func(ctx context.Context, i int) (*record, error) {
		p := g.at(i)
		var (
			res bernamp.Result
			err error
		)
		if settings == nil {
			res, err = bernamp.Bounds(p)
		} else {
			res, err = bernamp.Post(ctx, p, settings)
		}
		if err != nil {
			return nil, fmt.Errorf("row %d (%s): %w", i+1, pointString(p), err)
		}
		r := newRecord(res, !o.noTiming)
		if err := r.finite(); err != nil {
			return nil, fmt.Errorf("row %d (%s): %v (a bug: every value must be finite)", i+1, pointString(p), err)
		}
		return r, nil
	}
	checker := rowChecker{w: stderr}
	written := 0
	emit := func(i int, r *record) error {
		checker.check(r)
		if err := w.write(r); err != nil {
			return err
		}
		written++
		if seen != nil {
			seen(r)
		}
		return nil
	}
	err := parallel.Map(ctx, g.n, o.workers, do, emit)
	if cerr := w.close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted: %d of %d rows written", written, g.n)
	case err != nil:
		return err
	case checker.failed > 0:
		return fmt.Errorf("%d of %d rows failed the cross-check lb <= post <= post_upper <= ub", checker.failed, g.n)
	}
	return nil
}

// solverSettings returns the settings of Post for a grid of n points. The
// pool runs min(n, workers) points at once; each point may use the workers
// left over, so a single hard point still gets every worker.
func solverSettings(o *options, n int) *bernamp.Settings {
	return &bernamp.Settings{Tol: o.tol, Timeout: o.timeout, Method: o.method, NoCertify: !o.certify, Workers: max(1, o.workers/min(n, o.workers))}
}
