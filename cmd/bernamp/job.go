package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/solver"
)

// job is one run of bounds or post over the selected points of a grid.
type job struct {
	g        *grid
	settings *bernamp.Settings // nil: closed-form bounds only
	o        *options
	shard    shard
	progress bool // show the progress line on stderr
	kept     int  // rows kept from --out by --resume (set by run)
}

// newJob validates the options of a command of the flag groups given and
// returns its job: cmd is "bounds" or "post".
func newJob(cmd string, g *grid, o *options, groups int, term tty) (*job, error) {
	if o.format == "" {
		o.format = "csv"
		if term.stdout && o.out == "" {
			o.format = "table"
		}
	}
	if err := checkOptions(o, groups); err != nil {
		return nil, err
	}
	if b := float64(g.n) * gridBytesPerPoint; o.maxMem > 0 && b > float64(o.maxMem) {
		return nil, usagef("grid has %d points, about %.3g bytes to schedule, more than --max-memory %s", g.n, b, o.memFlag)
	}
	sh, err := parseShard(o.shard)
	if err != nil {
		return nil, err
	}
	j := &job{g: g, o: o, shard: sh, progress: term.stderr && !o.quiet}
	if cmd == "post" {
		if o.method == solver.MethodFull {
			for _, d := range g.d {
				for _, k := range g.k {
					if d > 1 && !solver.FullFits(d, k) {
						return nil, usagef("--method: full needs (k+1)^d <= 2^20 outputs, and d=%d k=%d has %.3g: use reduced", d, k, math.Pow(float64(k+1), float64(d)))
					}
				}
			}
		}
		// The settings depend on the number of points run, known in run.
		j.settings = &bernamp.Settings{}
	}
	return j, nil
}

// shard selects shard i of n of a grid, 0 <= i < n; n = 0 selects all.
type shard struct{ i, n int }

// parseShard parses "i/n"; "" is the whole grid.
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return shard{}, usagef("--shard: %q must be i/n with integers 0 <= i < n", s)
	}
	if n < 1 || i < 0 || i >= n {
		return shard{}, usagef("--shard: %q must have 0 <= i < n and n >= 1", s)
	}
	return shard{i, n}, nil
}

// cost is the estimated relative time of point p: Params.Cost for post,
// the same everywhere for the closed-form bounds.
func cost(p bernamp.Params, post bool) float64 {
	if !post {
		return 1
	}
	return p.Cost()
}

// byCost returns the positions 0, ..., len(idx)-1 ordered by decreasing
// estimated cost of the points idx[r], ties in order of position.
func (j *job) byCost(idx []int) []int {
	post := j.settings != nil
	costs := make([]float64, len(idx))
	order := make([]int, len(idx))
	for r, i := range idx {
		costs[r] = cost(j.g.at(i), post)
		order[r] = r
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpFloat(costs[a], costs[b]) })
	return order
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// selected returns the grid indices of the job's shard in grid order: the
// points ranked by decreasing estimated cost (ties in grid order) are dealt
// to the shards in turn, so shards are balanced and every point is in
// exactly one.
func (j *job) selected() []int {
	all := make([]int, j.g.n)
	for i := range all {
		all[i] = i
	}
	if j.shard.n <= 1 {
		return all
	}
	var idx []int
	for rank, r := range j.byCost(all) {
		if rank%j.shard.n == j.shard.i {
			idx = append(idx, all[r])
		}
	}
	slices.Sort(idx)
	return idx
}

// run computes the job's points and writes their records in grid order to
// stdout or to --out. Rows already in --out are kept with --resume.
// Cross-check failures and refutations go to stderr. Each record written is
// also passed to seen, if not nil.
func (j *job) run(ctx context.Context, stdout, stderr io.Writer, seen func(*record)) error {
	idx := j.selected()
	out := stdout
	var (
		resumed *outFile
		file    *os.File
		err     error
	)
	if j.o.out != "" {
		if j.o.resume {
			if resumed, err = readOutFile(j.o.out); err != nil {
				return err
			}
			if idx, err = resumed.missing(j.g, idx); err != nil {
				return err
			}
			j.kept = resumed.rows
			file, err = os.OpenFile(j.o.out, os.O_WRONLY|os.O_APPEND, 0)
		} else {
			file, err = os.Create(j.o.out)
		}
		if err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	if j.settings != nil {
		j.settings = solverSettings(j.o, len(idx))
	}
	var w rowWriter
	if resumed != nil && resumed.header {
		w = csvWriterNoHeader(out)
	} else if w, err = newRowWriter(j.o.format, out, j.g.ranges != nil); err != nil {
		return err
	}

	var prog *progress
	if j.progress {
		stderr = &lockedWriter{w: stderr}
		prog = startProgress(stderr, len(idx), progressEvery)
	}
	do := func(ctx context.Context, r int) (*record, error) {
		p := j.g.at(idx[r])
		var (
			res bernamp.Result
			err error
		)
		switch {
		case j.g.ranges != nil && j.settings == nil:
			res, err = bernamp.BoundsRanges(j.g.ranges, p.K, p.Alpha, p.Eps)
		case j.g.ranges != nil:
			res, err = bernamp.PostRanges(ctx, j.g.ranges, p.K, p.Alpha, p.Eps, j.settings)
		case j.settings == nil:
			res, err = bernamp.Bounds(p)
		default:
			res, err = bernamp.Post(ctx, p, j.settings)
		}
		if err != nil {
			return nil, fmt.Errorf("row %d (%s): %w", idx[r]+1, pointString(p), err)
		}
		if err := ctx.Err(); err != nil {
			// Interrupted (SIGINT) while the point ran: its result is the
			// partial one of a cancelled search, not what an uninterrupted
			// run writes, so the row is left for --resume to compute.
			return nil, err
		}
		if j.o.certOut != "" {
			if err := writeCertificate(j.o.certOut, res); err != nil {
				return nil, fmt.Errorf("row %d (%s): certificate: %w", idx[r]+1, pointString(p), err)
			}
		}
		rec := newRecord(res, !j.o.noTiming)
		if err := rec.finite(); err != nil {
			return nil, fmt.Errorf("row %d (%s): %v (a bug: every value must be finite)", idx[r]+1, pointString(p), err)
		}
		prog.add()
		return rec, nil
	}
	checker := rowChecker{w: stderr}
	written := 0
	emit := func(_ int, rec *record) error {
		checker.check(rec)
		if err := w.write(rec); err != nil {
			return err
		}
		written++
		if seen != nil {
			seen(rec)
		}
		return nil
	}
	if j.settings == nil {
		err = parallel.Map(ctx, len(idx), j.o.workers, do, emit)
	} else {
		err = parallel.MapSchedule(ctx, j.byCost(idx), j.o.workers, do, emit)
	}
	prog.finish()
	if cerr := w.close(); err == nil {
		err = cerr
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil && resumed != nil && !resumed.prefix {
		err = sortOutFile(j.o.out, j.g)
	}
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted: %d of %d rows written", written, len(idx))
	case err != nil:
		return err
	case checker.failed > 0:
		return fmt.Errorf("%d of %d rows failed the cross-check lb <= post <= post_upper <= ub", checker.failed, len(idx))
	}
	return nil
}

// progressEvery is the interval between updates of the progress line.
const progressEvery = 500 * time.Millisecond

// writeCertificate writes the certificate of r to dir: the proof Post found
// and (with --check) the checker accepted. A row whose post_upper is a
// pieces bound without a certificate file (pieces-max, pieces-lp or ranges,
// without --check) is an error, never a silent gap in dir.
func writeCertificate(dir string, r bernamp.Result) error {
	if r.Certificate == nil {
		if r.Method == bernamp.MethodPieces || r.Method == bernamp.MethodPiecesRanges {
			return fmt.Errorf("post_upper %v (%s) has no certificate file: only the pieces inequality with the first-order multipliers at d k = n is exported", r.PostUpper, r.Method)
		}
		return nil
	}
	_, err := r.Certificate.WriteDir(dir)
	return err
}
