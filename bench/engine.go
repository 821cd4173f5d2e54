package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/verify"
)

// The engine users run: bernamp.Post proves PostUpper by the two-point
// pieces certificate (package certify) and has the independent checker
// (package verify) re-prove it from the certificate file. The experiments
// of this file time it on the paper's grids and in n, each beside its
// anchor: the closed forms (package bounds) for the certificate, the
// certificate for the checker, and Post without the check for Post.

// pieceRun is one certificate of the pieces experiment, kept for the check
// experiment: the result of the first run and the median time over runs.
type pieceRun struct {
	res certify.Result
	t   time.Duration
}

// certifyPoint runs the pieces certificate at n = d k as bernamp.Post runs
// it (its box budget under the default memory cap, the tiling kept for the
// certificate file, at most limit) and returns it with its wall time.
func certifyPoint(ctx context.Context, n int, c, alpha, eps float64, limit time.Duration) (certify.Result, time.Duration, error) {
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	r, err := certify.Certify(cctx, n, c, alpha, eps, &certify.Settings{MaxBoxes: bernamp.PiecesBoxes(0), Tiling: true})
	el := time.Since(start)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return r, el, err
}

// medianDur returns the lower median of ts (a time that was measured), 0
// for none. It sorts a copy.
func medianDur(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// medianFloat returns the lower median of xs, NaN for none.
func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// durRange formats the fastest and slowest of ts.
func durRange(ts []time.Duration) string {
	return dur(slices.Min(ts)) + " - " + dur(slices.Max(ts))
}

func pstr(p bernamp.Params) string {
	return fmt.Sprintf("%d, %d, %v, %v, %v", p.D, p.K, p.C, p.Alpha, p.Eps)
}

func sci(x float64) string { return fmt.Sprintf("%.2g", x) }

func runPieces(ctx context.Context, cfg *config, st *state, r *report) error {
	type agg struct {
		points, proved, closed int
		times                  []time.Duration // per point, median over runs
		total                  time.Duration   // median over runs of the pass
		worst                  int             // index of the slowest point
		maxBoxes               int
		cfTotal                time.Duration // closed forms over the grid
		cfGaps, certGaps       []float64
	}
	var rows [][]string
	// Over all grids: every point's time, the slowest point, the totals.
	var allTimes []time.Duration
	var allCF, allGaps []float64
	var allWorst, allTotal, allCFTotal time.Duration
	allPoints, allProved, allClosed, allWorstBoxes, allMaxBoxes := 0, 0, 0, 0, 0
	var allWorstAt bernamp.Params
	for _, name := range cfg.pieceGrids {
		g, err := loadGrid(name, cfg.pieceEvery)
		if err != nil {
			return err
		}
		n := len(g.pts)
		times := make([][]time.Duration, n)
		res := make([]certify.Result, n)
		passes := make([]time.Duration, cfg.runs)
		for run := range cfg.runs {
			for i, p := range g.pts {
				cr, el, err := certifyPoint(ctx, p.D*p.K, p.C, p.Alpha, p.Eps, cfg.certLimit)
				if err != nil {
					return fmt.Errorf("pieces: %s at %s: %w", name, pstr(p), err)
				}
				if run == 0 {
					res[i] = cr
				} else if cr.Status == certify.Proved && res[i].Status == certify.Proved && (cr.Boxes != res[i].Boxes || cr.Upper != res[i].Upper) {
					return fmt.Errorf("pieces: %s at %s: runs differ (%d boxes, %v; then %d boxes, %v)", name, pstr(p), res[i].Boxes, res[i].Upper, cr.Boxes, cr.Upper)
				}
				times[i] = append(times[i], el)
				passes[run] += el
			}
		}
		var a agg
		a.points, a.total = n, medianDur(passes)
		for i, p := range g.pts {
			t := medianDur(times[i])
			st.pieces[p] = pieceRun{res[i], t}
			a.times = append(a.times, t)
			if t > a.times[a.worst] {
				a.worst = i
			}
			if res[i].Status == certify.Proved {
				a.proved++
			}
			if res[i].Method == certify.MethodClosed {
				a.closed++
			}
			a.maxBoxes = max(a.maxBoxes, res[i].Boxes)
			a.certGaps = append(a.certGaps, res[i].Upper-res[i].LB)
		}
		// The anchor: the closed forms at every point of the grid, as
		// bernamp bounds computes them, timed over the whole grid.
		cf, err := measure(cfg.runs, cfg.minTime, func() error {
			for _, p := range g.pts {
				sink += bounds.Lower(p.D, p.K, p.C, p.Alpha, p.Eps) + bounds.UpperBound(p.D, p.K, p.C, p.Alpha, p.Eps).Value()
			}
			return nil
		})
		if err != nil {
			return err
		}
		a.cfTotal = cf.median
		for _, p := range g.pts {
			a.cfGaps = append(a.cfGaps, bounds.UpperBound(p.D, p.K, p.C, p.Alpha, p.Eps).Value()-bounds.Lower(p.D, p.K, p.C, p.Alpha, p.Eps))
		}
		w := g.pts[a.worst]
		rows = append(rows, []string{name, fmt.Sprint(n), fmt.Sprint(a.proved), fmt.Sprint(a.closed),
			dur(medianDur(a.times)), dur(a.times[a.worst]), pstr(w), fmt.Sprint(res[a.worst].Boxes), fmt.Sprint(a.maxBoxes), dur(a.total),
			dur(a.cfTotal), dur(a.cfTotal / time.Duration(n)), sci(medianFloat(a.cfGaps)), sci(slices.Max(a.cfGaps)), sci(slices.Max(a.certGaps))})
		allPoints += n
		allProved += a.proved
		allClosed += a.closed
		allTimes = append(allTimes, a.times...)
		if a.times[a.worst] > allWorst {
			allWorst, allWorstAt, allWorstBoxes = a.times[a.worst], w, res[a.worst].Boxes
		}
		allMaxBoxes = max(allMaxBoxes, a.maxBoxes)
		allTotal += a.total
		allCFTotal += a.cfTotal
		allCF = append(allCF, a.cfGaps...)
		allGaps = append(allGaps, a.certGaps...)
	}
	if len(cfg.pieceGrids) > 1 {
		rows = append(rows, []string{"all", fmt.Sprint(allPoints), fmt.Sprint(allProved), fmt.Sprint(allClosed),
			dur(medianDur(allTimes)), dur(allWorst), pstr(allWorstAt), fmt.Sprint(allWorstBoxes), fmt.Sprint(allMaxBoxes), dur(allTotal),
			dur(allCFTotal), dur(allCFTotal / time.Duration(allPoints)), sci(medianFloat(allCF)), sci(slices.Max(allCF)), sci(slices.Max(allGaps))})
	}
	every := ""
	if cfg.pieceEvery > 1 {
		every = fmt.Sprintf(" (every %dth eps of each panel in the %s suite)", cfg.pieceEvery, cfg.name)
	}
	r.para("certify.Certify at n = d k on every point of the paper's grids%s, read from testdata/grids/*.json (Figure 1: alpha 50, Figure 2: alpha 5, k = 1, d in {1, 2, 3, 5, 15}, c in {0.01, 0.1, 0.3}; Figure 3: d = 1, k in {1, 2, 4}, c 0.1, alpha 5; eps 0.1:5:0.1), with bernamp.Post's settings (tol 1e-9, up to bernamp.PiecesBoxes boxes, the tiling kept for the certificate file), at most %s a point, one goroutine. Per point the median over %d runs; total: the median over runs of the pass over the grid. proved: Upper - LB <= 1e-9; by the closed form: the closed forms alone already settle it (Certify returns without a search). Beside it in the same run the anchor, the closed forms bounds.Lower (Theorem 4, O(n)) and bounds.UpperBound (min(eps, n r_alpha(c))) at every point of the grid, and the gap each leaves: UB - LB of the closed forms against Upper - LB of the certificate.",
		every, dur(cfg.certLimit), cfg.runs)
	r.table([]string{"grid", "points", "proved", "by the closed form", "median per point", "worst", "worst point (d, k, c, alpha, eps)", "its boxes", "most boxes", "total",
		"closed forms: total", "closed forms: per point", "UB - LB: median", "UB - LB: largest", "certificate Upper - LB: largest"}, rows)
	return nil
}

func runScaling(ctx context.Context, cfg *config, st *state, r *report) error {
	const alpha, eps = 5.0, 1.0
	var rows [][]string
	for _, c := range cfg.scalingC {
		for _, n := range cfg.scalingN {
			var ts []time.Duration
			var res certify.Result
			cut := false
			for run := range cfg.runs {
				cr, el, err := certifyPoint(ctx, n, c, alpha, eps, cfg.certLimit)
				if err != nil {
					return fmt.Errorf("scaling: n %d, c %v: %w", n, c, err)
				}
				ts = append(ts, el)
				if run == 0 {
					res = cr
				}
				if cr.Status != certify.Proved && el >= cfg.certLimit {
					cut = true
				}
				// A point cut at the limit or slower than longRun runs once.
				if cut || el > cfg.longRun {
					break
				}
			}
			lb, err := measure(cfg.runs, cfg.minTime, func() error { sink += bounds.Lower(n, 1, c, alpha, eps); return nil })
			if err != nil {
				return err
			}
			ub := bounds.UpperBound(n, 1, c, alpha, eps).Value()
			cfGap := ub - bounds.Lower(n, 1, c, alpha, eps)
			status := res.Status.String()
			if cut {
				status = fmt.Sprintf("**open: cut at %s**", dur(cfg.certLimit))
			}
			verdict := "the certificate"
			if res.Method == certify.MethodClosed {
				verdict = "the closed form settles it"
			} else if res.Status != certify.Proved {
				verdict = "neither (the closed form is within " + sci(cfGap) + ")"
			}
			rows = append(rows, []string{fmt.Sprint(c), fmt.Sprint(n), res.Method, status, fmt.Sprint(res.Boxes), dur(medianDur(ts)), fmt.Sprint(len(ts)),
				sci(res.Upper - res.LB), dur(lb.median), sci(cfGap), ratio(medianDur(ts).Seconds(), lb.median.Seconds()), verdict})
		}
	}
	r.para("certify.Certify(n, c, alpha = %v, eps = %v) with bernamp.Post's settings, at most %s, one goroutine; the median over up to %d runs (a point slower than %s, or cut at the limit, runs once). c near 1/2 is where the certificate has work at every n (the closed forms stay apart: n r_alpha(c) is small); at c = 0.45 the closed forms meet (UB - LB <= 1e-9) from some n on and Certify returns at once. Beside it in the same run the anchor bounds.Lower at the same n (Theorem 4, the sum of n + 1 binomial terms; median per call) and the gap the closed forms leave.",
		alpha, eps, dur(cfg.certLimit), cfg.runs, dur(cfg.longRun))
	r.table([]string{"c", "n", "method", "status", "boxes", "certificate", "runs", "Upper - LB", "bounds.Lower", "UB - LB (closed forms)", "certificate / bounds.Lower", "what settles it"}, rows)
	return nil
}

// checkFile times verify.Check on the certificate of cr at (d, k) over up
// to runs runs (one when a run is slower than longRun) and returns the
// median and the report of the first run.
func checkFile(ctx context.Context, cfg *config, cr certify.Result, d, k int) (time.Duration, verify.Report, error) {
	f := cr.File(d, k)
	if f == nil {
		return 0, verify.Report{}, errNoFile
	}
	var ts []time.Duration
	var rep verify.Report
	for run := range cfg.runs {
		start := time.Now()
		rp, err := verify.Check(ctx, f, nil)
		el := time.Since(start)
		if err != nil {
			return 0, rep, err
		}
		if run == 0 {
			rep = rp
		}
		ts = append(ts, el)
		if el > cfg.longRun {
			break
		}
	}
	return medianDur(ts), rep, nil
}

var errNoFile = errors.New("no certificate file")

func runCheck(ctx context.Context, cfg *config, st *state, r *report) error {
	type pt struct {
		p             bernamp.Params
		solve, check  time.Duration
		tiles, boxes  int
		fallback      int
		accepted      bool
		failure, grid string
	}
	summarize := func(name string, ps []pt, noFile int) []string {
		var ratios []float64
		var ss, cs time.Duration
		acc, worst := 0, -1
		for i, q := range ps {
			ratios = append(ratios, q.check.Seconds()/q.solve.Seconds())
			ss += q.solve
			cs += q.check
			if q.accepted {
				acc++
			}
			if worst < 0 || ratios[i] > ratios[worst] {
				worst = i
			}
		}
		if len(ps) == 0 {
			return []string{name, fmt.Sprint(noFile), "0", "-", "-", "-", "-", "-", "-", "-", "-", "-"}
		}
		w := ps[worst]
		rej := fmt.Sprint(len(ps) - acc)
		if acc < len(ps) {
			rej = "**" + rej + "**"
		}
		return []string{name, fmt.Sprint(len(ps) + noFile), fmt.Sprint(len(ps)), fmt.Sprint(acc), rej, dur(ss), dur(cs),
			sig3(medianFloat(ratios)), sig3(ratios[worst]), fmt.Sprintf("%s (%s / %s, %d tiles)", pstr(w.p), dur(w.check), dur(w.solve), w.tiles), ratio(cs.Seconds(), ss.Seconds()),
			dur(medianDur(func() []time.Duration {
				var c []time.Duration
				for _, q := range ps {
					c = append(c, q.check)
				}
				return c
			}()))}
	}
	var rows [][]string
	var all []pt
	allNoFile := 0
	var failures []string
	for _, name := range cfg.checkGrids {
		g, err := loadGrid(name, cfg.checkEvery)
		if err != nil {
			return err
		}
		var ps []pt
		noFile := 0
		for _, p := range g.pts {
			pr, ok := st.pieces[p]
			if !ok {
				var ts []time.Duration
				for run := range cfg.runs {
					cr, el, err := certifyPoint(ctx, p.D*p.K, p.C, p.Alpha, p.Eps, cfg.certLimit)
					if err != nil {
						return fmt.Errorf("check: %s at %s: %w", name, pstr(p), err)
					}
					if run == 0 {
						pr.res = cr
					}
					ts = append(ts, el)
				}
				pr.t = medianDur(ts)
				st.pieces[p] = pr
			}
			ct, rep, err := checkFile(ctx, cfg, pr.res, p.D, p.K)
			if errors.Is(err, errNoFile) {
				noFile++
				continue
			}
			if err != nil {
				return fmt.Errorf("check: %s at %s: %w", name, pstr(p), err)
			}
			q := pt{p: p, solve: pr.t, check: ct, tiles: rep.Tiles, boxes: rep.Boxes, fallback: rep.Fallback, accepted: rep.Accepted, failure: rep.Failure, grid: name}
			if !rep.Accepted {
				failures = append(failures, fmt.Sprintf("%s at %s: %s", name, pstr(p), rep.Failure))
			}
			ps = append(ps, q)
		}
		rows = append(rows, summarize(name, ps, noFile))
		all = append(all, ps...)
		allNoFile += noFile
	}
	if len(cfg.checkGrids) > 1 {
		rows = append(rows, summarize("all", all, allNoFile))
	}
	r.para("The independent checker (package verify) on the certificates bernamp.Post exports: for every %dth eps of each panel of the paper's grids (eps = 1, 2, 3, 4, 5 of 0.1:5:0.1 at 10), the pieces certificate with Post's settings (the tiling kept) turned into its file by certify.Result.File(d, k), then verify.Check on it (exact rationals, outward-rounded interval arithmetic, big.Float where float64 does not close), one goroutine, side by side in the same run. Solver: the certificate's time (the pieces experiment's median when it ran, else the median of %d runs); checker: the median of up to %d runs. Points where the closed form settles have no file (counted under sampled, not checked). Ratio checker / solver per point: the median and the worst point (its checker and solver times and tiles), and the ratio of the sums.",
		cfg.checkEvery, cfg.runs, cfg.runs)
	r.table([]string{"grid", "sampled", "files checked", "accepted", "rejected", "solver: sum", "checker: sum", "checker / solver: median", "worst", "worst point (checker / solver, tiles)", "ratio of sums", "checker: median per point"}, rows)

	var lrows [][]string
	for _, n := range cfg.checkLarge {
		const alpha, eps = 5.0, 1.0
		c := cfg.checkLargeC
		var ts []time.Duration
		var cr certify.Result
		for run := range cfg.runs {
			res, el, err := certifyPoint(ctx, n, c, alpha, eps, cfg.certLimit)
			if err != nil {
				return fmt.Errorf("check: n %d: %w", n, err)
			}
			if run == 0 {
				cr = res
			}
			ts = append(ts, el)
			if el > cfg.longRun {
				break
			}
		}
		sol := medianDur(ts)
		ct, rep, err := checkFile(ctx, cfg, cr, n, 1)
		if errors.Is(err, errNoFile) {
			lrows = append(lrows, []string{fmt.Sprint(n), fmt.Sprint(c), cr.Method, "-", dur(sol), "no file", "-", "-", "-", "-"})
			continue
		}
		if err != nil {
			return fmt.Errorf("check: n %d: %w", n, err)
		}
		acc := yesNo(rep.Accepted)
		if !rep.Accepted {
			failures = append(failures, fmt.Sprintf("n %d, c %v: %s", n, c, rep.Failure))
		}
		lrows = append(lrows, []string{fmt.Sprint(n), fmt.Sprint(c), cr.Method, fmt.Sprint(rep.Tiles), dur(sol), dur(ct), ratio(ct.Seconds(), sol.Seconds()), acc, fmt.Sprint(rep.Boxes), fmt.Sprint(rep.Fallback)})
	}
	if len(lrows) > 0 {
		r.para("Large n: the certificate at (n, c = %v, alpha = 5, eps = 1), d = n, k = 1, and the checker on its file; medians over up to %d runs (one for a run slower than %s). fallback: checker boxes that the float64 bounds did not close, re-tried with every term or in big.Float.", cfg.checkLargeC, cfg.runs, dur(cfg.longRun))
		r.table([]string{"n", "c", "method", "tiles", "solver", "checker", "checker / solver", "accepted", "checker boxes", "fallback"}, lrows)
	}
	if len(failures) > 0 {
		fmt.Fprintf(st.warn, "bench: warning: check: the checker rejected %d certificates\n", len(failures))
		r.para("**The checker rejected %d certificate(s)**: %s.", len(failures), strings.Join(failures, "; "))
	}
	return nil
}

func runPost(ctx context.Context, cfg *config, st *state, r *report) error {
	g, err := loadGrid(cfg.postGrid, cfg.postEvery)
	if err != nil {
		return err
	}
	n, w := len(g.pts), cfg.postWorkers
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmp.Compare(g.pts[a].Cost(), g.pts[b].Cost()) })
	// As bernamp demo runs the grid (cmd/bernamp: the pool's settings):
	// each point gets the workers and memory left over by the pool.
	settings := func(noCheck bool) *bernamp.Settings {
		return &bernamp.Settings{MaxMemory: bernamp.DefaultMaxMemory / int64(min(n, w)), Timeout: cfg.postTimeout,
			Workers: max(1, w/min(n, w)), Check: !noCheck}
	}
	pass := func(noCheck bool) ([]bernamp.Result, time.Duration, error) {
		out := make([]bernamp.Result, n)
		set := settings(noCheck)
		start := time.Now()
		err := parallel.MapSchedule(ctx, order, w, func(ctx context.Context, i int) (bernamp.Result, error) {
			return bernamp.Post(ctx, g.pts[i], set)
		}, func(i int, v bernamp.Result) error { out[i] = v; return nil })
		return out, time.Since(start), err
	}
	var on, off []time.Duration
	var resOn, resOff []bernamp.Result
	for run := range cfg.runs { // interleaved, so that a change of load hits both
		ro, t, err := pass(false)
		if err != nil {
			return fmt.Errorf("post: check on: %w", err)
		}
		on = append(on, t)
		rf, t, err := pass(true)
		if err != nil {
			return fmt.Errorf("post: check off: %w", err)
		}
		off = append(off, t)
		if run == 0 {
			resOn, resOff = ro, rf
		}
	}
	status := map[string]int{}
	var checkSum, pieceSum float64
	certOn, certOff, differ, cut := 0, 0, 0, 0
	for i := range resOn {
		a, b := resOn[i], resOff[i]
		status[a.Check.Status]++
		checkSum += a.Check.Seconds
		if a.Pieces != nil {
			pieceSum += a.Pieces.Seconds
			if !a.Pieces.Proved {
				cut++
			}
		}
		if a.Status == bernamp.StatusCertified {
			certOn++
		}
		if b.Status == bernamp.StatusCertified {
			certOff++
		}
		if a.PostUpper != b.PostUpper || a.Post != b.Post {
			differ++
		}
	}
	mOn, mOff := medianDur(on), medianDur(off)
	rej := fmt.Sprint(status[bernamp.CheckRejected])
	if status[bernamp.CheckRejected] > 0 {
		rej = "**" + rej + "**"
		fmt.Fprintf(st.warn, "bench: warning: post: the checker rejected %d certificates\n", status[bernamp.CheckRejected])
	}
	every := ""
	if cfg.postEvery > 1 {
		every = fmt.Sprintf(", every %dth eps of each panel", cfg.postEvery)
	}
	r.para("bernamp.Post end to end on the %s grid (testdata/grids/%s.json%s, %d points) as `bernamp demo` runs it: a pool of %d workers (parallel.MapSchedule, longest first by Params.Cost), each point with the pool's share of workers and memory and a %s time limit. Check on (Settings.Check): the pieces certificate and then the independent checker on its file (verify.Check, not cut by the time limit); check off: the default, the same otherwise. The two passes alternate, %d of each; wall time of the whole grid, median and range. checker time: the sum over points of Result.Check.Seconds (time inside the pool's workers, so it adds about sum / %d to the wall time); certificate time likewise Result.Pieces.Seconds.",
		cfg.postGrid, cfg.postGrid, every, n, w, dur(cfg.postTimeout), cfg.runs, w)
	r.table([]string{"points", "workers", "check on", "range", "check off", "range", "on / off", "on - off", "checker time (sum)", "certificate time (sum)", "verified", "rejected", "no check (closed form)", "certified: on / off", "values differ", "certificate open"},
		[][]string{{fmt.Sprint(n), fmt.Sprint(w), dur(mOn), durRange(on), dur(mOff), durRange(off), ratio(mOn.Seconds(), mOff.Seconds()), dur(mOn - mOff),
			dur(time.Duration(checkSum * 1e9)), dur(time.Duration(pieceSum * 1e9)), fmt.Sprint(status[bernamp.CheckVerified]), rej, fmt.Sprint(status[bernamp.CheckNone]),
			fmt.Sprintf("%d / %d", certOn, certOff), fmt.Sprint(differ), fmt.Sprint(cut)}})
	return nil
}
