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
	"github.com/bernamp/bernamp/figure"
)

// demoTimeout is the demo's time limit per point (certificate and search)
// unless --timeout is given. The pieces certificate closes every point of
// the paper's grids, the slowest (alpha = 50, eps = 0.1) in about a second;
// the limit keeps a loaded machine within the demo's budget, and a point
// cut short reports the best witness found and the bound proved so far.
const demoTimeout = 3 * time.Second

// presets are the grids of the paper's figures (Imola and Chaudhuri 2021,
// Section 5 and Appendix C): Figure 1 (alpha = 50) and Figure 2 (alpha = 5)
// for k = 1, d in {1, 2, 3, 5, 15}, c in {0.01, 0.1, 0.3}; Figure 3 for
// d = 1, alpha = 5, k in {1, 2, 4}, with c = 0.1 as in the text of Section
// 5. testdata/grids holds them as grid files.
var presets = map[string]gridFlags{
	"fig1": {d: "1,2,3,5,15", k: "1", c: "0.01,0.1,0.3", alpha: "50", eps: "0.1:5:0.1"},
	"fig2": {d: "1,2,3,5,15", k: "1", c: "0.01,0.1,0.3", alpha: "5", eps: "0.1:5:0.1"},
	"fig3": {d: "1", k: "1,2,4", c: "0.1", alpha: "5", eps: "0.1:5:0.1"},
}

// summary aggregates the rows of one (d, k, c).
type summary struct {
	d, k                  int
	c                     float64
	points, certified     int
	maxGap, maxBoundsGap  float64 // largest post_upper - post, ub - lb
	proved, open, refuted int
}

// demoDir is the folder of the demo's files unless --dir is given.
const demoDir = "bernamp-demo"

// runDemo runs post on a preset grid, writes the CSV and the figure into
// --dir and prints a summary per (d, k, c) to stdout.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer, term tty) error {
	const groups = solverOpts | runOpts | demoOpts
	var o options
	fs := newFlagSet("demo", &o, groups)
	var recheck bool
	var dir string
	fs.StringVar(&dir, "dir", demoDir, "folder of the demo's files, created if missing: --out and --figure name files in it unless absolute")
	fs.BoolVar(&recheck, "verify", false, "export the certificate of every point proved by the pieces certificate to DIR/certificates/<preset>/ and re-check it with bernamp verify's checker")
	// The demo's own defaults, which -h states.
	fs.Lookup("out").Usage = "CSV file of the rows, in grid order; each finished point also goes to FILE.journal at once (default <preset>.csv in --dir)"
	fs.Lookup("timeout").Usage = "time limit per point (certificate and search), and again for its check, 0 means none"
	fs.Lookup("timeout").Value.Set(demoTimeout.String())
	fs.Lookup("timeout").DefValue = demoTimeout.String()
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	gf, ok := presets[o.preset]
	if !ok {
		return usagef("--preset: preset is %q, must be fig1, fig2 or fig3", o.preset)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if dir == "" {
		return usagef("--dir: empty folder name")
	}
	if !set["out"] {
		o.out = o.preset + ".csv"
	}
	if o.out == "" {
		return usagef("--out: empty file name")
	}
	if !set["figure"] {
		o.figure = o.preset + ".png"
	}
	if o.figure != "" {
		if _, err := figure.FormatOf(o.figure); err != nil {
			return usagef("--figure: %q: extension must be .png, .svg or .pdf", o.figure)
		}
	}
	o.format = "csv"
	g, err := newGrid(gf, false)
	if err != nil {
		panic(err) // the presets are constants
	}
	// Relative names are in dir, which is made only when a file goes there.
	inDir := false
	for _, name := range []*string{&o.out, &o.figure} {
		if *name != "" && !filepath.IsAbs(*name) {
			*name, inDir = filepath.Join(dir, *name), true
		}
	}
	if recheck {
		o.certOut, inDir = filepath.Join(dir, "certificates", o.preset), true
	}
	if o.out, err = filepath.Abs(o.out); err != nil {
		return err
	}
	j, err := newJob("post", g, &o, groups, term)
	if err != nil {
		return err
	}
	if inDir {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return err
		}
	}
	if recheck {
		if err := os.MkdirAll(o.certOut, 0o777); err != nil {
			return err
		}
		if !o.resume {
			// The certificates of an earlier run would be counted with
			// this run's; --resume keeps those of the rows it keeps.
			old, err := filepath.Glob(filepath.Join(o.certOut, "d*-k*-c*-alpha*-eps*.json"))
			if err != nil {
				return err
			}
			for _, f := range old {
				if err := os.Remove(f); err != nil {
					return err
				}
			}
		}
	}

	var sums []*summary
	seen := func(r *record) {
		if n := len(sums); n == 0 || sums[n-1].d != r.D || sums[n-1].k != r.K || sums[n-1].c != r.C {
			sums = append(sums, &summary{d: r.D, k: r.K, c: r.C}) // (d, k, c) changes slowly in grid order
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
	err = j.run(ctx, stdout, stderr, seen)

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "d\tk\tc\tpoints\tcertified\tmax post_upper-post\tmax ub-lb\tproved\topen\trefuted")
	for _, s := range sums {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%d\t%.3g\t%.3g\t%d\t%d\t%d\n", s.d, s.k, fmtFloat(s.c), s.points, s.certified,
			s.maxGap, s.maxBoundsGap, s.proved, s.open, s.refuted)
	}
	tw.Flush()
	if j.kept > 0 {
		fmt.Fprintf(stdout, "%d rows kept from the earlier run are not in the summary\n", j.kept)
	}
	fmt.Fprintf(stdout, "CSV: %s\n", o.out)
	if recheck && err == nil {
		err = verifyDir(ctx, o.certOut, o.workers, stdout)
	}
	if err != nil || o.figure == "" {
		return err
	}
	// The figure is drawn from the file, so it shows rows kept by --resume too.
	rows, err := figure.ReadFile(o.out)
	if err != nil {
		return err
	}
	if err := figure.WriteFile(o.figure, rows, nil); err != nil {
		return err
	}
	path, err := filepath.Abs(o.figure)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Figure: %s\n", path)
	return nil
}
