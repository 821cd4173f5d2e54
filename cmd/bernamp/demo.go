package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/bernamp/bernamp"
)

// demoTimeout is the demo's time limit per point (search and certificate)
// unless --timeout is given: the configuration search at d = 15, alpha = 50
// takes about a minute per point, so without a limit the demo would run for
// an hour; with it, such points report the best witness found, a partial
// search and the bound proved so far.
const demoTimeout = 400 * time.Millisecond

// demoGrid is the grid of Figure 1 of the paper: 750 points.
var demoGrid = gridFlags{d: "1,2,3,5,15", k: "1", c: "0.01,0.1,0.3", alpha: "50", eps: "0.1:5:0.1"}

// summary aggregates the rows of one (d, c) pair.
type summary struct {
	d                     int
	c                     float64
	points, certified     int
	maxGap, maxBoundsGap  float64 // largest post_upper - post, ub - lb
	proved, open, refuted int
}

// runDemo runs post on demoGrid, writes the CSV to --out and prints a
// summary per (d, c) to stdout.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const groups = solverOpts | demoOpts
	var o options
	fs := newFlagSet("demo", &o, groups)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOptions(&o, groups); err != nil {
		return err
	}
	timeoutSet := false
	fs.Visit(func(f *flag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	if !timeoutSet {
		o.timeout = demoTimeout
	}
	g, err := newGrid(demoGrid, false)
	if err != nil {
		panic(err) // demoGrid is a constant
	}
	path, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := newRowWriter("csv", f)
	if err != nil {
		f.Close()
		return err
	}

	var sums []*summary
	seen := func(r *record) {
		if len(sums) == 0 || sums[len(sums)-1].d != r.D || sums[len(sums)-1].c != r.C {
			sums = append(sums, &summary{d: r.D, c: r.C}) // (d, c) changes slowly in grid order
		}
		s := sums[len(sums)-1]
		s.points++
		if r.Status == bernamp.StatusCertified {
			s.certified++
		}
		s.maxGap = math.Max(s.maxGap, r.PostUpper-r.Post)
		s.maxBoundsGap = math.Max(s.maxBoundsGap, r.UB-r.LB)
		switch r.Conjecture {
		case bernamp.ConjectureProved:
			s.proved++
		case bernamp.ConjectureOpen:
			s.open++
		case bernamp.ConjectureRefuted:
			s.refuted++
		}
	}
	settings := solverSettings(&o, g.n)
	err = solveGrid(ctx, g, settings, &o, w, stderr, seen)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "d\tc\tpoints\tcertified\tmax post_upper-post\tmax ub-lb\tproved\topen\trefuted")
	for _, s := range sums {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%.3g\t%.3g\t%d\t%d\t%d\n", s.d, fmtFloat(s.c), s.points, s.certified,
			s.maxGap, s.maxBoundsGap, s.proved, s.open, s.refuted)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "CSV: %s\n", path)
	return err
}
