package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certify"
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
	kept     int  // rows kept from --out and its journal by --resume (set by run)
	// planned is the cost in seconds of each grid point read by
	// --plan-from, -1 where the file has none; nil without --plan-from.
	planned []float64
	found   int // points of the grid with a cost in the --plan-from file
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
	if o.planFrom != "" {
		if j.planned, j.found, err = readPlan(o.planFrom, g); err != nil {
			return nil, err
		}
	}
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

// cost is the estimated time of point p in seconds, for the pool's order
// (longest first) and the split into shards: only ratios matter. For
// bounds it is the same everywhere. For post it follows what Post runs at
// most points, the pieces certificate at n = d k and its check: on the
// paper's grids its time grows about as n^0.8, as 1 + 3/eps and as
// sqrt(log(1/c)) (fitted to the per-point times of the three grids with
// checking on, docs/grids.md "Measured"; d and k count only through n),
// and it grows as c nears 1/2, where the closed forms meet slowly; it is
// cut at the time limit of a point (twice it with the check, which has a
// limit of its own). Near alpha = 1 (solver.NearOne), at
// eps = 0, past certify.MaxN and where the closed forms already meet
// within tol (checked for n <= 1000, where it is cheap) only the closed
// forms run. (Params.Cost, the
// configuration count of the witness search, ranks the paper's d = 15
// points a million times a d = 1 point's; they take about three times as
// long.)
func (j *job) cost(p bernamp.Params) float64 {
	const closedForms = 1e-4 // seconds
	if j.settings == nil {
		return 1
	}
	n := float64(p.D) * float64(p.K)
	if solver.NearOne(p.Alpha, j.o.tol) || p.Eps == 0 || n > certify.MaxN {
		return closedForms
	}
	s := 0.0035 * math.Pow(n, 0.8) * (1 + 3/max(p.Eps, 1e-6))
	if p.C > 0 && p.C < 0.5 { // C is 0 on --range rows: no c factor there
		if n <= 1000 && bounds.UpperBound(p.D, p.K, p.C, p.Alpha, p.Eps).Value()-bounds.Lower(p.D, p.K, p.C, p.Alpha, p.Eps) <= j.o.tol {
			return closedForms
		}
		s *= (1 + 0.01/(0.5-p.C)) * math.Sqrt(math.Log(1/p.C))
	}
	if t := j.o.timeout.Seconds(); t > 0 {
		if j.settings.Check {
			t *= 2 // the check has a time limit of its own (Settings.Timeout)
		}
		s = min(s, t)
	}
	return max(s, closedForms)
}

// costAt is the cost of grid point i: its seconds in the --plan-from
// file, or where it has none (or without --plan-from) the estimate cost.
func (j *job) costAt(i int) float64 {
	if j.planned != nil && j.planned[i] >= 0 {
		return j.planned[i]
	}
	return j.cost(j.g.at(i))
}

// byCost returns the positions 0, ..., len(idx)-1 ordered by decreasing
// cost (costAt) of the points idx[r], ties in order of position.
func (j *job) byCost(idx []int) []int { return j.byCostAt(idx, allPositions(len(idx))) }

// byCostAt is byCost of the points idx[todo[r]].
func (j *job) byCostAt(idx, todo []int) []int {
	costs := make([]float64, len(todo))
	order := make([]int, len(todo))
	for r, p := range todo {
		costs[r] = j.costAt(idx[p])
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

// selected returns the grid indices of the job's shard in grid order. The
// points, ranked by decreasing estimated cost (costAt: the --plan-from
// file's seconds, else the estimate; ties in grid order), go one by one to
// the shard with the least estimated cost so far (ties to the lowest shard): longest processing time first, so the shards' estimated
// costs differ by at most one point's, and every point is in exactly one
// shard.
func (j *job) selected() []int {
	all := allPositions(j.g.n) // grid index i at position i
	if j.shard.n <= 1 {
		return all
	}
	plan := j.plan(all)
	var idx []int
	for i, s := range plan.of {
		if int(s) == j.shard.i {
			idx = append(idx, i)
		}
	}
	return idx
}

// shardPlan is the split of a grid into shards by estimated cost.
type shardPlan struct {
	of     []int32   // shard of each grid point
	points []int     // points per shard
	cost   []float64 // estimated cost per shard
}

// plan deals the points all (every grid index) to j.shard.n shards,
// longest estimated cost first, each to the least loaded shard.
func (j *job) plan(all []int) shardPlan {
	n := j.shard.n
	p := shardPlan{of: make([]int32, len(all)), points: make([]int, n), cost: make([]float64, n)}
	h := make(loadHeap, n)
	for s := range h {
		h[s].shard = s
	}
	for _, r := range j.byCost(all) {
		s := h[0].shard // the least loaded
		c := j.costAt(all[r])
		p.of[r] = int32(s)
		p.points[s]++
		p.cost[s] += c
		h[0].load += c
		h.down(0)
	}
	return p
}

// loadHeap is a min-heap of shards by estimated load, ties by index.
type loadHeap []struct {
	load  float64
	shard int
}

func (h loadHeap) less(a, b int) bool {
	return h[a].load < h[b].load || h[a].load == h[b].load && h[a].shard < h[b].shard
}

// down restores the heap after h[i] grew.
func (h loadHeap) down(i int) {
	for {
		m := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h) && h.less(c, m) {
				m = c
			}
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// shardLine is the line a shard run prints on stderr: its share of the
// grid and its estimated cost against the mean shard, and with --plan-from
// how many points' costs came from the file.
func (j *job) shardLine() string {
	p := j.plan(allPositions(j.g.n))
	total, hi := 0.0, 0.0
	for _, c := range p.cost {
		total += c
		hi = max(hi, c)
	}
	mean := total / float64(j.shard.n)
	ratio := func(c float64) float64 {
		if mean == 0 {
			return 1
		}
		return c / mean
	}
	from := ""
	if j.planned != nil {
		from = fmt.Sprintf("; costs of %d of %d points from %s, the rest estimated", j.found, j.g.n, j.o.planFrom)
	}
	return fmt.Sprintf("bernamp: shard %d/%d: %d of %d points, estimated cost %.3f x the mean shard (largest %.3f x)%s\n",
		j.shard.i, j.shard.n, p.points[j.shard.i], j.g.n, ratio(p.cost[j.shard.i]), ratio(hi), from)
}

// journalID names what the rows of the job depend on: the grid, the shard
// and its split, the command and every setting that changes a value of a
// row. A journal left by a run of another ID is refused by --resume.
func (j *job) journalID() string {
	h := sha256.New()
	g := j.g
	floats := func(vs []float64) string {
		s := make([]string, len(vs))
		for i, v := range vs {
			s[i] = fmtFloat(v)
		}
		return strings.Join(s, ",")
	}
	fmt.Fprintf(h, "bernamp sweep 1\nd %v\nk %v\nc %s\nalpha %s\neps %s\nranges %s\nshard %d/%d lpt\nno-timing %v\n",
		g.d, g.k, floats(g.c), floats(g.alpha), floats(g.eps), formatRanges(g.ranges), j.shard.i, j.shard.n, j.o.noTiming)
	if j.planned != nil && j.shard.n > 1 { // the split depends on the costs
		fmt.Fprintf(h, "plan %s\n", floats(j.planned))
	}
	if j.settings != nil {
		o := j.o
		fmt.Fprintf(h, "post tol %s method %s certify %v check %v timeout %v max-memory %d\n",
			fmtFloat(o.tol), o.method, o.certify, o.check, o.timeout, o.maxMem)
	} else {
		fmt.Fprintf(h, "bounds\n")
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// run computes the job's points and writes their records in grid order to
// stdout or to --out. With --out, each point goes to the journal OUT.journal
// the moment it finishes, and --resume keeps the rows in --out and in the
// journal and computes only the others. Cross-check failures and
// refutations go to stderr. Each record computed is also passed to seen, if
// not nil, in grid order.
func (j *job) run(ctx context.Context, stdout, stderr io.Writer, seen func(*record)) (err error) {
	idx := j.selected()
	if j.shard.n > 1 {
		fmt.Fprint(stderr, j.shardLine())
	}
	todo := allPositions(len(idx)) // positions in idx to compute
	var (
		out *sweepOut
		w   rowWriter
	)
	if j.o.out != "" {
		hdr := header
		if j.g.ranges != nil {
			hdr = rangesHeader
		}
		if out, todo, err = openSweepOut(j.o.out, j.g, idx, j.journalID(), j.o.resume, hdr); err != nil {
			return err
		}
		j.kept = out.kept
	} else if w, err = newRowWriter(j.o.format, stdout, j.g.ranges != nil); err != nil {
		return err
	}
	if j.settings != nil {
		j.settings = solverSettings(j.o, len(todo))
	}

	var prog *progress
	if j.progress {
		stderr = &lockedWriter{w: stderr}
		prog = startProgress(stderr, len(todo), progressEvery)
	}
	var done atomic.Int64 // points computed
	do := func(ctx context.Context, r int) (*record, error) {
		i := idx[todo[r]]
		p := j.g.at(i)
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
			return nil, fmt.Errorf("row %d (%s): %w", i+1, pointString(p), err)
		}
		if err := ctx.Err(); err != nil {
			// Interrupted (SIGINT) while the point ran: its result is the
			// partial one of a cancelled search, not what an uninterrupted
			// run writes, so the row is left for --resume to compute.
			return nil, err
		}
		if j.o.certOut != "" {
			if err := writeCertificate(j.o.certOut, res); err != nil {
				return nil, fmt.Errorf("row %d (%s): certificate: %w", i+1, pointString(p), err)
			}
		}
		rec := newRecord(res, !j.o.noTiming)
		if err := rec.finite(); err != nil {
			return nil, fmt.Errorf("row %d (%s): %v (a bug: every value must be finite)", i+1, pointString(p), err)
		}
		if out != nil {
			if err := out.finished(i, csvLine(rec.csvFields())); err != nil {
				return nil, err
			}
		}
		done.Add(1)
		prog.add()
		return rec, nil
	}
	checker := rowChecker{w: stderr}
	written := 0
	emit := func(r int, rec *record) error {
		checker.check(rec)
		var err error
		if out != nil {
			err = out.write(todo[r], csvLine(rec.csvFields()))
		} else {
			err = w.write(rec)
		}
		if err != nil {
			return err
		}
		written++
		if seen != nil {
			seen(rec)
		}
		return nil
	}
	if j.settings == nil {
		err = parallel.Map(ctx, len(todo), j.o.workers, do, emit)
	} else {
		err = parallel.MapSchedule(ctx, j.byCostAt(idx, todo), j.o.workers, do, emit)
	}
	prog.finish()
	if out != nil {
		if err == nil {
			err = out.flushKept()
		}
		if cerr := out.close(err == nil); err == nil {
			err = cerr
		}
	} else if cerr := w.close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) && out != nil:
		return fmt.Errorf("interrupted: %d of %d points done, kept in %s: run the same command with --resume",
			out.kept+int(done.Load()), len(idx), out.jw.Path())
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted: %d of %d rows written", written, len(idx))
	case err != nil:
		return err
	case checker.failed > 0:
		return fmt.Errorf("%d of %d rows failed the cross-check lb <= post <= post_upper <= ub", checker.failed, len(todo))
	}
	return nil
}

// progressEvery is the interval between updates of the progress line.
const progressEvery = 500 * time.Millisecond

// writeCertificate writes the certificate of r to dir: the proof Post found
// (the pieces inequality with the first-order multipliers, its pieces-max
// or pieces-lp fallback, the file saying which, or the ranges certificate)
// and, with the check, the checker accepted. A row whose post_upper is a
// pieces bound without a certificate file (a bug) is an error, never a
// silent gap in dir.
func writeCertificate(dir string, r bernamp.Result) error {
	if r.Certificate == nil {
		if r.Method == bernamp.MethodPieces || r.Method == bernamp.MethodPiecesRanges {
			return fmt.Errorf("post_upper %v (%s) has no certificate file", r.PostUpper, r.Method)
		}
		return nil
	}
	_, err := r.Certificate.WriteDir(dir)
	return err
}
