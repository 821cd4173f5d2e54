package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/combin"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/baseline"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/solver"
)

// point is one point (d, k, c, alpha, eps) of the program.
type point struct {
	d, k          int
	c, alpha, eps float64
}

func (p point) String() string {
	return fmt.Sprintf("%d, %d, %v, %v, %v", p.d, p.k, p.c, p.alpha, p.eps)
}

// The point of the solve and reach experiments: a Regime II point, where
// the closed-form bounds are far apart and nothing short-cuts the search
// (as in solver's BenchmarkMaximize).
const (
	solveC, solveAlpha, solveEps = 0.1, 5.0, 2.0
	// fitMin is the shortest median a solve must take to enter the growth
	// fits: below it fixed costs, not the search, dominate.
	fitMin = time.Millisecond
)

// config is one suite: what each experiment runs and for how long.
type config struct {
	name    string
	budget  time.Duration // the whole suite must finish within it on 2 cores
	runs    int           // repetitions of each case; medians are reported
	minTime time.Duration // per run of a fast case (it is called in batches)

	lower   [][2]int   // (d, k) of bounds.Lower
	kron    [][2]int   // (d, k) of the channel application
	grad    [][2]int   // (d, k) of the objective-and-gradient evaluation
	solveK1 []int      // d of the solves at k = 1
	solveDK [][2]int   // further (d, k) of the solves
	reach   []reachRun // reach searches (skipped when empty)

	baseline []point // grid of the baseline comparison
	starts   int     // baseline starts per point

	pool    []bernamp.Params // grid of the pool experiment
	workers []int            // worker counts of the pool

	composeN     []int // n = d k of the compose experiment (T = composeSteps)
	composeSteps int
	dpAccounting bool // run Google's dp_accounting (Python) beside compose when it is installed

	// The pieces certificate and its checker (engine.go).
	certLimit   time.Duration // time limit of one certificate (bernamp.Post's default: one minute)
	longRun     time.Duration // a case slower than this runs once
	pieceGrids  []string      // grids of testdata/grids of the pieces experiment
	pieceEvery  int           // keep every pieceEvery-th eps of each panel (1: all)
	scalingN    []int         // n of the scaling experiment
	scalingC    []float64     // c of the scaling experiment
	checkGrids  []string      // grids sampled by the check experiment
	checkEvery  int           // every checkEvery-th eps of each panel
	checkLarge  []int         // n of the checker at large n (c = checkLargeC)
	checkLargeC float64
	postGrid    string        // grid of the post experiment
	postEvery   int           // every postEvery-th eps of each panel
	postWorkers int           // pool of the post experiment
	postTimeout time.Duration // time limit per point, as bernamp demo
}

// reachRun steps d up from 1 at sample count k until a solve exceeds limit
// or d exceeds max.
type reachRun struct {
	k, max int
	limit  time.Duration
}

// Time budgets. One run of each experiment measured on a loaded 2-core
// machine took bounds, kron and grad 14 s together, solve 28 s, baseline
// 19 s, pool 56 s and reach (run once) 31 s; of the engine's experiments
// (quick suite, every 10th or 25th eps, 2026-11-26, load about 14 on the
// 2 cores) pieces 3.5 s for 165 points (so about 35 s a run on all 1,650),
// scaling 13 s (the full n = 10^6 rows about 7 s a run), check 4 s and
// post 2.5 s for 30 points (so about a minute a run of both passes on
// Figure 1's 750); compose 15 s. 3 runs come to about 12 minutes there
// and less on a quiet machine, inside fullBudget; bench/results.md states
// the measured time. The quick suite takes well under quickBudget. The
// report states the time of every experiment and warns when the suite is
// over its budget.
const (
	fullBudget  = 20 * time.Minute
	quickBudget = 2 * time.Minute
)

// reachLimit is the time limit per point of the reach experiment.
const reachLimit = 10 * time.Second

func fullConfig() *config {
	var k1 []int
	for d := 1; d <= 10; d++ {
		k1 = append(k1, d)
	}
	var dk [][2]int
	for _, k := range []int{2, 4, 8} {
		for d := 1; d <= 4; d++ {
			dk = append(dk, [2]int{d, k})
		}
	}
	return &config{
		name: "full", budget: fullBudget, runs: 3, minTime: 200 * time.Millisecond,
		lower: [][2]int{{1, 1}, {10, 10}, {100, 100}, {1000, 1000}},
		kron:  [][2]int{{2, 1}, {4, 1}, {6, 1}, {8, 1}, {10, 1}, {2, 4}, {3, 4}, {4, 4}, {6, 4}, {2, 8}, {4, 8}},
		grad:  [][2]int{{2, 1}, {4, 1}, {7, 1}, {10, 1}, {14, 1}, {2, 4}, {4, 4}, {6, 4}, {4, 8}},
		// solver.Maximize's measured reach (about 4 s at d = 12, k = 1 and
		// d = 6, k = 4) puts the first point over 10 s at d = 14 and 7;
		// the caps stop a much faster machine before the suite runs long.
		solveK1: k1, solveDK: dk,
		reach: []reachRun{{k: 1, max: 16, limit: reachLimit}, {k: 4, max: 9, limit: reachLimit}},
		baseline: []point{
			{1, 1, 0.1, 5, 1}, {1, 4, 0.1, 5, 1}, {1, 16, 0.1, 5, 1}, {1, 4, 0.01, 50, 3}, {1, 16, 0.3, 2, 0.5}, {1, 8, 0.1, 5, 0.1},
			{2, 1, 0.1, 5, 0.5}, {2, 1, 0.1, 5, 2}, {2, 1, 0.01, 50, 1}, {2, 2, 0.2, 3, 1.3}, {2, 2, 0.2, 4, 1.5},
			{3, 1, 0.2, 4, 1.5}, {3, 1, 0.1, 50, 2},
			{4, 1, 0.1, 5, 2}, {6, 1, 0.1, 5, 2}, {8, 1, 0.1, 5, 2},
		},
		starts:  baseline.DefaultStarts,
		pool:    poolGrid(5, []int{1, 2}),
		workers: []int{1, 2, 4},

		composeN: []int{1, 4, 100, 10_000, 1_000_000}, composeSteps: 1000, dpAccounting: true,

		certLimit: bernamp.DefaultCertTimeout, longRun: 20 * time.Second,
		pieceGrids: paperGrids, pieceEvery: 1,
		scalingN: []int{10, 100, 1000, 10_000, 100_000, 1_000_000}, scalingC: []float64{0.4999, 0.45},
		checkGrids: paperGrids, checkEvery: 10, checkLarge: []int{1000, 10_000, 1_000_000}, checkLargeC: 0.4999,
		postGrid: "fig1", postEvery: 1, postWorkers: 2, postTimeout: demoTimeout,
	}
}

// paperGrids are the paper's three grids, testdata/grids/<name>.json.
var paperGrids = []string{"fig1", "fig2", "fig3"}

// demoTimeout is bernamp demo's time limit per point (cmd/bernamp).
const demoTimeout = 3 * time.Second

func quickConfig() *config {
	return &config{
		name: "quick", budget: quickBudget, runs: 1, minTime: 20 * time.Millisecond,
		lower:    [][2]int{{1, 1}, {100, 100}},
		kron:     [][2]int{{2, 1}, {6, 1}, {2, 4}, {4, 4}},
		grad:     [][2]int{{4, 1}, {10, 1}, {4, 4}},
		solveK1:  []int{1, 2, 3, 4, 5, 6},
		solveDK:  [][2]int{{2, 2}, {3, 2}, {2, 4}, {3, 4}, {2, 8}},
		baseline: []point{{1, 1, 0.1, 5, 1}, {1, 4, 0.01, 50, 3}, {2, 1, 0.1, 5, 0.5}, {3, 1, 0.2, 4, 1.5}},
		starts:   baseline.DefaultStarts,
		pool:     poolGrid(3, []int{1}),
		workers:  []int{1, 2, 4},

		composeN: []int{1, 1_000_000}, composeSteps: 100, dpAccounting: true,

		certLimit: 10 * time.Second, longRun: 2 * time.Second,
		pieceGrids: paperGrids, pieceEvery: 10,
		scalingN: []int{10, 100, 100_000}, scalingC: []float64{0.4999, 0.45},
		checkGrids: paperGrids, checkEvery: 25, checkLarge: []int{1000},
		checkLargeC: 0.4999,
		postGrid:    "fig1", postEvery: 25, postWorkers: 2, postTimeout: demoTimeout,
	}
}

// smokeConfig is a seconds-long suite for the harness's own test.
func smokeConfig() *config {
	return &config{
		name: "smoke", budget: 10 * time.Second, runs: 1, minTime: time.Millisecond,
		lower:    [][2]int{{1, 1}},
		kron:     [][2]int{{2, 1}},
		grad:     [][2]int{{2, 1}},
		solveK1:  []int{1, 2, 3},
		solveDK:  [][2]int{{2, 2}},
		reach:    []reachRun{{k: 1, max: 3, limit: reachLimit}},
		baseline: []point{{1, 1, 0.1, 5, 1}},
		starts:   2,
		pool:     poolGrid(1, []int{1, 2}),
		workers:  []int{1, 2},

		composeN: []int{1}, composeSteps: 10,

		certLimit: 5 * time.Second, longRun: time.Second,
		pieceGrids: []string{"fig3"}, pieceEvery: 25,
		scalingN: []int{10}, scalingC: []float64{0.4999, 0.45},
		checkGrids: []string{"fig2", "fig3"}, checkEvery: 50, checkLarge: []int{10},
		checkLargeC: 0.4999,
		postGrid:    "fig3", postEvery: 25, postWorkers: 2, postTimeout: demoTimeout,
	}
}

// poolGrid is the grid of the pool experiment: d = 1..maxD, the given k,
// c in {0.1, 0.3}, alpha = 5, eps in {0.5, 1, 2}, in the CLI's order (d, k,
// c, alpha, eps, eps fastest).
func poolGrid(maxD int, ks []int) []bernamp.Params {
	var g []bernamp.Params
	for d := 1; d <= maxD; d++ {
		for _, k := range ks {
			for _, c := range []float64{0.1, 0.3} {
				for _, eps := range []float64{0.5, 1, 2} {
					g = append(g, bernamp.Params{D: d, K: k, C: c, Alpha: 5, Eps: eps})
				}
			}
		}
	}
	return g
}

// experiment is one section of the report.
type experiment struct {
	name  string // for -exp
	title string
	run   func(ctx context.Context, cfg *config, st *state, r *report) error
}

var experiments = []experiment{
	{"bounds", "Closed-form bounds", runBounds},
	{"pieces", "Pieces certificate on the paper's grids, against the closed forms", runPieces},
	{"scaling", "Pieces certificate in n, against bounds.Lower", runScaling},
	{"check", "Independent checker against the certificate it checks", runCheck},
	{"post", "bernamp.Post end to end through the pool: independent check on against off", runPost},
	{"kron", "Channel application: Kronecker against dense", runKron},
	{"grad", "One objective-and-gradient evaluation", runGrad},
	{"solve", "Configuration search (solver.Maximize) and its growth", runSolve},
	{"reach", "Reach: largest d within 10 s per point", runReach},
	{"baseline", "Baseline: a generic local optimizer on the corner program", runBaseline},
	{"pool", "Pool: bernamp.Post over a fixed grid on 1, 2 and 4 workers", runPool},
	{"compose", "Compose: (eps, delta) after T steps, exact amplified profile against its anchors", runCompose},
}

// state carries results from one experiment to a later one.
type state struct {
	solves map[[2]int]sample           // solve medians, reused by reach
	pieces map[bernamp.Params]pieceRun // certificates of the pieces experiment, reused by check
	warn   io.Writer                   // warnings (stderr)
}

// report accumulates the markdown of the run.
type report struct{ strings.Builder }

func (r *report) para(format string, args ...any) {
	fmt.Fprintf(r, format+"\n\n", args...)
}

func (r *report) table(header []string, rows [][]string) {
	r.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		r.WriteString("---|")
	}
	r.WriteString("\n")
	for _, row := range rows {
		r.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	r.WriteString("\n")
}

var sink float64

func runBounds(ctx context.Context, cfg *config, st *state, r *report) error {
	const c, alpha, eps = 0.1, 5.0, 1.0
	type bcase struct {
		name string
		d, k int
		f    func()
	}
	var cases []bcase
	for _, dk := range cfg.lower {
		d, k := dk[0], dk[1]
		cases = append(cases, bcase{"bounds.Lower", d, k, func() { sink += bounds.Lower(d, k, c, alpha, eps) }})
	}
	for _, dk := range [][2]int{{1, 1}, {1000, 1000}} {
		d, k := dk[0], dk[1]
		cases = append(cases, bcase{"bounds.UpperBound", d, k, func() { sink += bounds.UpperBound(d, k, c, alpha, eps).Value() }})
	}
	for _, d := range []int{1, 100, 10000} {
		cases = append(cases, bcase{"bounds.Theorem2", d, 1, func() { sink += bounds.Theorem2(d, c, alpha, eps) }})
	}
	cases = append(cases, bcase{"bounds.P (root of r_alpha(p) = eps)", 0, 0, func() { sink += bounds.P(alpha, eps) }})
	var rows [][]string
	for _, bc := range cases {
		s, err := measure(cfg.runs, cfg.minTime, func() error { bc.f(); return nil })
		if err != nil {
			return err
		}
		n := "-"
		if bc.k > 0 {
			n = fmt.Sprint(bc.d * bc.k)
		}
		rows = append(rows, []string{bc.name, n, dur(s.median), dur(s.lo) + " - " + dur(s.hi), fmt.Sprintf("%.0f", s.allocs)})
	}
	r.para("c = %v, alpha = %v, eps = %v. bounds.Lower sums only the terms of Theorem 4's sum over j = 0..n that matter and bounds the rest with a proof (bounds/window.go): O(1) where the binomial mass sits where the summand is flat, as here, otherwise a window of about 10 to 15 sqrt(n c (1-c)) indices, as near c = 1/2 (the scaling experiment times it at c = 0.4999 and 0.45); the others are O(1).", c, alpha, eps)
	r.table([]string{"function", "n = d k", "median per call", "range of runs", "allocs per call"}, rows)
	return nil
}

// denseChannel returns the (k+1)^d x 2^d matrix of corner.Full(d, k, c),
// built column by column from LogColumn.
func denseChannel(ch *corner.Channel) *mat.Dense {
	K := mat.NewDense(ch.Outputs(), ch.Inputs(), nil)
	col := make([]float64, ch.Outputs())
	for z := range ch.Inputs() {
		ch.LogColumn(col, z)
		for m, l := range col {
			K.Set(m, z, math.Exp(l))
		}
	}
	return K
}

func runKron(ctx context.Context, cfg *config, st *state, r *report) error {
	const c = 0.1
	rnd := rand.New(rand.NewPCG(1, 1))
	var rows [][]string
	for _, dk := range cfg.kron {
		d, k := dk[0], dk[1]
		ch := corner.Full(d, k, c)
		K := denseChannel(ch)
		x := make([]float64, ch.Inputs())
		for i := range x {
			x[i] = rnd.Float64()
		}
		u := make([]float64, ch.Outputs())
		work := make([]float64, 2*max(ch.Inputs(), ch.Outputs()))
		xv := mat.NewVecDense(len(x), x)
		uv := mat.NewVecDense(len(u), nil)
		kron, err := measure(cfg.runs, cfg.minTime, func() error { ch.Apply(u, x, work); return nil })
		if err != nil {
			return err
		}
		dense, err := measure(cfg.runs, cfg.minTime, func() error { uv.MulVec(K, xv); return nil })
		if err != nil {
			return err
		}
		// The two products agree (a check of the benchmark, not a test).
		var diff float64
		for m := range u {
			diff = math.Max(diff, math.Abs(u[m]-uv.AtVec(m))/uv.AtVec(m))
		}
		if diff > 1e-12 {
			return fmt.Errorf("kron: d %d, k %d: Kronecker and dense products differ by %g relative", d, k, diff)
		}
		if kron.allocs != 0 {
			return fmt.Errorf("kron: d %d, k %d: Apply allocates %v times per call, want 0", d, k, kron.allocs)
		}
		rows = append(rows, []string{fmt.Sprint(d), fmt.Sprint(k), fmt.Sprint(ch.Outputs()), fmt.Sprint(ch.Inputs()),
			dur(kron.median), dur(dense.median), ratio(float64(dense.median), float64(kron.median)), fmt.Sprintf("%.0f", kron.allocs), fmt.Sprintf("%.1e", diff)})
	}
	r.para("K x for K = corner.Full(d, k, %v), (k+1)^d outputs by 2^d corners: corner.Channel.Apply (factor by factor, about (k+1)^d 2 d multiply-adds) against gonum's dense mat.VecDense.MulVec ((k+1)^d 2^d). Both run without allocating; the last column is the largest relative difference between the two products.", c)
	r.table([]string{"d", "k", "outputs", "corners", "Kronecker", "dense", "dense / Kronecker", "allocs per Apply", "max rel diff"}, rows)
	return nil
}

// spread returns the configuration of dimension d with its coordinates
// spread as evenly as possible over the 7 patterns: the one with the most
// outputs, prod (k n_t + 1).
func spread(d int) corner.Config {
	var cf corner.Config
	for i := range d {
		cf[i%corner.Patterns]++
	}
	return cf
}

func runGrad(ctx context.Context, cfg *config, st *state, r *report) error {
	const c, alpha = 0.1, 5.0
	rnd := rand.New(rand.NewPCG(2, 2))
	var rows [][]string
	for _, dk := range cfg.grad {
		d, k := dk[0], dk[1]
		cf := spread(d)
		prog := solver.ConfigProgram(cf, k, c, alpha)
		x, y := randomMasses(rnd), randomMasses(rnd)
		gx, gy := make([]float64, corner.Points), make([]float64, corner.Points)
		s, err := measure(cfg.runs, cfg.minTime, func() error { sink += prog.LogFGrad(x, y, gx, gy); return nil })
		if err != nil {
			return err
		}
		if s.allocs != 0 {
			return fmt.Errorf("grad: d %d, k %d: LogFGrad allocates %v times per call, want 0", d, k, s.allocs)
		}
		full := "-"
		if solver.FullFits(d, k) && d <= 10 {
			fp := solver.NewFullProgram(cf, d, k, c, alpha)
			fs, err := measure(cfg.runs, cfg.minTime, func() error { sink += fp.LogF(x, y); return nil })
			if err != nil {
				return err
			}
			if fs.allocs != 0 {
				return fmt.Errorf("grad: d %d, k %d: FullProgram.LogF allocates %v times per call, want 0", d, k, fs.allocs)
			}
			full = dur(fs.median)
		}
		rows = append(rows, []string{fmt.Sprint(d), fmt.Sprint(k), fmt.Sprint(cf), fmt.Sprint(cf.Outputs(k)),
			dur(s.median), fmt.Sprintf("%.0f", s.allocs), fmt.Sprintf("%.0f", math.Pow(float64(k+1), float64(d))), full})
	}
	r.para("solver.Program.LogFGrad: log F and its gradient in the masses of the 4 support points of one configuration (the search's hot loop), on the configuration with the most outputs (d spread evenly over the 7 patterns), c = %v, alpha = %v. The harness fails if it allocates. For comparison, the same objective without gradient on the full corner program (solver.FullProgram, (k+1)^d outputs through the Kronecker apply; d <= 10).", c, alpha)
	r.table([]string{"d", "k", "configuration", "outputs", "LogFGrad", "allocs per call", "(k+1)^d", "full program LogF"}, rows)
	return nil
}

// randomMasses returns a random probability vector on the support points.
func randomMasses(rnd *rand.Rand) []float64 {
	x := make([]float64, corner.Points)
	var s float64
	for i := range x {
		x[i] = rnd.ExpFloat64()
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
	return x
}

// solveOnce runs solver.Maximize at (d, k) on the solve point and returns
// an error unless the search completed (d = 1: unless certified).
func solveOnce(ctx context.Context, d, k int) error {
	res, rec, err := solver.Maximize(ctx, d, k, solveC, solveAlpha, solveEps, 0, nil)
	switch {
	case err != nil:
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	case d == 1 && res.Status != solver.Certified:
		return fmt.Errorf("d = 1, k = %d: not certified", k)
	case rec != nil && !rec.Complete:
		return fmt.Errorf("d = %d, k = %d: search not complete", d, k)
	}
	sink += res.Lower
	return nil
}

// reducedOutputs returns the outputs of every configuration the search
// visits, sum over corner.Orbits(d) of prod (k n_t + 1): its work measure.
func reducedOutputs(d, k int) (configs int, outs float64) {
	orbits := corner.Orbits(d)
	for _, cf := range orbits {
		outs += float64(cf.Outputs(k))
	}
	return len(orbits), outs
}

func runSolve(ctx context.Context, cfg *config, st *state, r *report) error {
	var dks [][2]int
	for _, d := range cfg.solveK1 {
		dks = append(dks, [2]int{d, 1})
	}
	dks = append(dks, cfg.solveDK...)
	type row struct {
		d, k          int
		outs, configs float64
		work          float64
		s             sample
	}
	var res []row
	var rows [][]string
	for _, dk := range dks {
		d, k := dk[0], dk[1]
		s, err := measure(cfg.runs, cfg.minTime, func() error { return solveOnce(ctx, d, k) })
		if err != nil {
			return fmt.Errorf("solve: %w", err)
		}
		st.solves[dk] = s
		configs, work := reducedOutputs(d, k)
		outs := math.Pow(float64(k+1), float64(d))
		res = append(res, row{d, k, outs, float64(configs), work, s})
		rows = append(rows, []string{fmt.Sprint(d), fmt.Sprint(k), fmt.Sprintf("%.0f", outs), fmt.Sprint(combin.Binomial(d+6, 6)), fmt.Sprint(configs), fmt.Sprintf("%.0f", work),
			dur(s.median), dur(s.lo) + " - " + dur(s.hi), size(s.bytes), fmt.Sprintf("%.0f", s.allocs)})
	}
	r.para("solver.Maximize(d, k, c = %v, alpha = %v, eps = %v) on GOMAXPROCS = %d workers, every search complete (d = 1: solver.One, certified). configurations: C(d+6, 6) support configurations, searched as orbits under relabelling of the 4 points; reduced outputs: the sum over the orbits of prod (k n_t + 1), the work of one pass. Memory is the heap allocated per solve (runtime.MemStats.TotalAlloc).",
		solveC, solveAlpha, solveEps, runtime.GOMAXPROCS(0))
	r.table([]string{"d", "k", "(k+1)^d", "configurations", "orbits searched", "reduced outputs", "median", "range of runs", "allocated", "allocs"}, rows)

	// Growth: least-squares fits of log time and log memory against log size.
	type fitCase struct {
		name string
		keep func(row) bool
		x    func(row) float64
	}
	all := func(row) bool { return true }
	k1 := func(w row) bool { return w.k == 1 }
	d4 := func(w row) bool { return w.d == 4 }
	fits := []fitCase{
		{"all points: time vs (k+1)^d", all, func(w row) float64 { return w.outs }},
		{"all points: time vs reduced outputs", all, func(w row) float64 { return w.work }},
		{"k = 1, d sweep: time vs 2^d", k1, func(w row) float64 { return w.outs }},
		{"k = 1, d sweep: time vs orbits searched", k1, func(w row) float64 { return w.configs }},
		{"d = 4, k sweep: time vs (k+1)^4", d4, func(w row) float64 { return w.outs }},
	}
	var frows [][]string
	for _, fc := range fits {
		var xs, ts, ms []float64
		var used []string
		for _, w := range res {
			if fc.keep(w) && w.s.median >= fitMin {
				xs = append(xs, fc.x(w))
				ts = append(ts, w.s.median.Seconds())
				ms = append(ms, w.s.bytes)
				used = append(used, fmt.Sprintf("(%d,%d)", w.d, w.k))
			}
		}
		tf, ok1 := fitPower(xs, ts)
		mf, ok2 := fitPower(xs, ms)
		if !ok1 || !ok2 {
			frows = append(frows, []string{fc.name, "-", "-", "-", "-", fmt.Sprintf("%d (too few)", len(xs))})
			continue
		}
		frows = append(frows, []string{fc.name, fmt.Sprintf("%.2f", tf.b), fmt.Sprintf("%.3f", tf.r2), fmt.Sprintf("%.2f", mf.b), fmt.Sprintf("%.3f", mf.r2), strings.Join(used, " ")})
	}
	r.para("Growth: exponent b of the least-squares line log y = log a + b log x over the points with median >= %s (below it fixed costs dominate); time is the median per solve, memory the heap allocated per solve.", dur(fitMin))
	r.table([]string{"fit", "time exponent", "R^2", "memory exponent", "R^2", "points (d,k)"}, frows)
	return nil
}

func runReach(ctx context.Context, cfg *config, st *state, r *report) error {
	if len(cfg.reach) == 0 {
		r.para("Skipped in the %s suite.", cfg.name)
		return nil
	}
	var rows [][]string
	for _, rr := range cfg.reach {
		reach, at := 0, time.Duration(0)
		var steps []string
		over := "none up to the cap"
		for d := 1; d <= rr.max; d++ {
			t, done, err := reachTime(ctx, st, d, rr.k, rr.limit)
			if err != nil {
				return fmt.Errorf("reach: %w", err)
			}
			if !done || t > rr.limit {
				over = fmt.Sprintf("d = %d: %s", d, dur(t))
				if !done {
					over = fmt.Sprintf("d = %d: not complete at %s (stopped)", d, dur(rr.limit))
				}
				break
			}
			reach, at = d, t
			steps = append(steps, fmt.Sprintf("%d: %s", d, dur(t)))
		}
		if len(steps) > 4 {
			steps = steps[len(steps)-4:] // the last steps; earlier ones are in the solve table
		}
		rows = append(rows, []string{fmt.Sprint(rr.k), fmt.Sprint(reach), dur(at), over, fmt.Sprint(rr.max), strings.Join(steps, ", ")})
	}
	r.para("d is stepped up from 1 at c = %v, alpha = %v, eps = %v (solver.Maximize on all cores) until a solve takes more than %s or the cap is reached; times up to the solve grid are its medians, beyond it single runs, each stopped at the limit. Earlier measurements: 13 for k = 1, 6 for k = 4.", solveC, solveAlpha, solveEps, dur(reachLimit))
	r.table([]string{"k", "largest d within the limit", "time at it", "first d over the limit", "cap on d", "last steps (d: time)"}, rows)
	return nil
}

// reachTime returns the time of one solve at (d, k): the solve grid's
// median when known, else a single run stopped at limit (done false then).
func reachTime(ctx context.Context, st *state, d, k int, limit time.Duration) (time.Duration, bool, error) {
	if s, ok := st.solves[[2]int{d, k}]; ok {
		return s.median, true, nil
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	err := solveOnce(cctx, d, k)
	t := time.Since(start)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return t, false, nil
	}
	return t, err == nil, err
}

func runBaseline(ctx context.Context, cfg *config, st *state, r *report) error {
	var rows [][]string
	var ratios []float64
	misses, above, certified := 0, 0, 0
	for _, p := range cfg.baseline {
		par := bernamp.Params{D: p.d, K: p.k, C: p.c, Alpha: p.alpha, Eps: p.eps}
		var ours bernamp.Result
		// The engine as users run it: the pieces certificate (it closes at
		// every point here), the independent check, the witness search
		// only where the certificate does not close.
		set := &bernamp.Settings{Workers: 1}
		ot, err := measure(cfg.runs, 0, func() error {
			var err error
			ours, err = bernamp.Post(ctx, par, set)
			return err
		})
		if err != nil {
			return fmt.Errorf("baseline: ours at %v: %w", p, err)
		}
		kind := "witness"
		if ours.Status == bernamp.StatusCertified {
			kind = "certified"
			certified++
		}
		ref := ours.Post
		var b *baseline.Result
		bs, err := measure(cfg.runs, 0, func() error {
			var err error
			b, err = baseline.Solve(ctx, p.d, p.k, p.c, p.alpha, p.eps, &baseline.Settings{Starts: cfg.starts})
			return err
		})
		if err != nil {
			return fmt.Errorf("baseline: at %v: %w", p, err)
		}
		feasible, reaching := 0, 0
		for _, v := range b.Values {
			if !math.IsNaN(v) {
				feasible++
				if math.Abs(v-ref) <= baseline.ReachTol {
					reaching++
				}
			}
		}
		reached := yesNo(b.Reached(ref))
		switch {
		case b.Feasible && b.Value > ref+baseline.ReachTol:
			// Possible only above a witness: our search missed a better pair.
			reached = "**above ours**"
			above++
		case !b.Reached(ref):
			misses++
		}
		// Above a proved upper bound would be a bug in one of the two.
		if b.Feasible && b.Value > ours.PostUpper+baseline.ReachTol {
			return fmt.Errorf("baseline: at %v the baseline's feasible value %v exceeds the proved upper bound %v", p, b.Value, ours.PostUpper)
		}
		value, gap := "infeasible", "-"
		if b.Feasible {
			value = fmt.Sprintf("%.10f", b.Value)
			gap = fmt.Sprintf("%.1e", b.Value-ref)
		}
		ratios = append(ratios, ot.median.Seconds()/bs.median.Seconds())
		rows = append(rows, []string{p.String(), fmt.Sprintf("%.10f", ref), kind, dur(ot.median), value, gap,
			fmt.Sprintf("%d/%d", feasible, len(b.Values)), fmt.Sprintf("%d/%d", reaching, len(b.Values)), reached, dur(bs.median),
			ratio(ot.median.Seconds(), bs.median.Seconds())})
	}
	slices.Sort(ratios)
	r.para("The baseline (package baseline) is the paper's program over all 2^d corners handed to a generic local optimizer: masses softmax-parametrized, the two Rényi constraints in an augmented Lagrangian (at most 30 rounds) around gonum's L-BFGS (at most 300 iterations per round) with the analytic gradient (through the Kronecker structure, so each evaluation costs about (k+1)^d 4 d), %d random starts per point drawn uniformly on the simplex (seeded), each ended by the least pull toward (P+Q)/2 that makes it exactly feasible. It counts as reaching the reference when its best start is feasible (divergences <= eps (1 + 1e-9), recomputed from the masses) and within %g nats of it. Reference and ours: bernamp.Post on one worker with its defaults, the engine users run: the pieces certificate and the independent check of its file, the witness search only where the certificate does not close; certified where it says so, otherwise our best verified witness. Both run on one goroutine.", cfg.starts, baseline.ReachTol)
	r.table([]string{"point (d, k, c, alpha, eps)", "reference", "kind", "ours: time", "baseline: value", "baseline - reference", "feasible starts", "starts reaching", "reached", "baseline: time", "ours / baseline time"}, rows)
	med := "-"
	if len(ratios) > 0 {
		med = sig3(ratios[(len(ratios)-1)/2])
	}
	r.para("Baseline misses: %d of %d points (%d with a certified reference); above our witness: %d. Median time ratio ours / baseline: %s.", misses, len(cfg.baseline), certified, above, med)
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func runPool(ctx context.Context, cfg *config, st *state, r *report) error {
	n := len(cfg.pool)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmp.Compare(cfg.pool[a].Cost(), cfg.pool[b].Cost()) })
	var want []float64
	// solve times the grid on w workers, tasks started in schedule order
	// (nil: index order), and checks that the values do not change.
	solve := func(w int, schedule []int) (sample, error) {
		got := make([]float64, n)
		// As the CLI: each point gets the workers left over by the pool,
		// 1 when the grid is larger than the pool.
		set := &bernamp.Settings{Workers: max(1, w/min(n, w)), NoCertify: true}
		do := func(ctx context.Context, i int) (float64, error) {
			res, err := bernamp.Post(ctx, cfg.pool[i], set)
			return res.Post, err
		}
		emit := func(i int, v float64) error { got[i] = v; return nil }
		s, err := measure(cfg.runs, 0, func() error {
			if schedule == nil {
				return parallel.Map(ctx, n, w, do, emit)
			}
			return parallel.MapSchedule(ctx, schedule, w, do, emit)
		})
		if err != nil {
			return s, err
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			return s, fmt.Errorf("%d workers changed the results", w)
		}
		return s, nil
	}
	var base time.Duration
	var rows [][]string
	for _, w := range cfg.workers {
		plain, err := solve(w, nil)
		if err != nil {
			return fmt.Errorf("pool: %w", err)
		}
		sched, err := solve(w, order)
		if err != nil {
			return fmt.Errorf("pool: %w", err)
		}
		if base == 0 {
			base = sched.median
		}
		speed := base.Seconds() / sched.median.Seconds()
		rows = append(rows, []string{fmt.Sprint(w), dur(plain.median), sig3(base.Seconds() / plain.median.Seconds()),
			dur(sched.median), dur(sched.lo) + " - " + dur(sched.hi), sig3(speed), sig3(speed / float64(min(w, runtime.NumCPU())))})
	}
	r.para("The grid of %d points d = 1..%d, k in %v, c in {0.1, 0.3}, alpha = 5, eps in {0.5, 1, 2}, solved as `bernamp post --certify=false --workers N` does: bernamp.Post with one solver goroutine per point on a pool of N, the points started longest first by the CLI's cost estimate (parallel.MapSchedule); for comparison, started in index order (parallel.Map). Speedups are against 1 worker, longest first. Every worker count and order gives identical values. Efficiency is the speedup over min(workers, %d cores).",
		n, cfg.pool[n-1].D, poolKs(cfg.pool), runtime.NumCPU())
	r.table([]string{"workers", "index order: median", "speedup", "longest first: median", "range of runs", "speedup", "efficiency"}, rows)
	return nil
}

func poolKs(g []bernamp.Params) []int {
	var ks []int
	for _, p := range g {
		if !slices.Contains(ks, p.K) {
			ks = append(ks, p.K)
		}
	}
	return ks
}

// runCompose times accountant.ComposeClaim as bernamp compose runs it
// (automatic discretization, both workers) for the Gaussian (sigma 2, c
// 0.1, delta 1e-5) at T = cfg.composeSteps: the claim alone, the claim with
// its lower side, and side by side in the same run the anchors, the
// Gaussian's own PLD composed (no amplification) and the single-pair route
// (the pair (1, delta_G(1)) amplified and composed).
func runCompose(ctx context.Context, cfg *config, st *state, r *report) error {
	g, err := pld.Gaussian(1, 2)
	if err != nil {
		return err
	}
	opt := pld.DefaultOptions()
	opt.H, opt.Workers = 0, runtime.GOMAXPROCS(0)
	t := cfg.composeSteps
	// dp_accounting: the exact amplified profile composed (values from
	// testdata/ref/compose_ref.csv) and, live, the Gaussian's own PLD.
	ref, refH := composeRef(2, 0.1, 1e-5)
	var dpa *dpAccounting
	why := fmt.Sprintf("not run in the %s suite", cfg.name)
	if cfg.dpAccounting {
		dpa, why = findDPAccounting(ctx)
	}
	type dpaRun struct {
		eps float64
		t   time.Duration
	}
	dpaRuns := map[float64]dpaRun{} // by discretization
	var rows [][]string
	for _, n := range cfg.composeN {
		q := accountant.Composition{Mechanism: g, Kernel: accountant.Kernel{D: n, K: 1, C: 0.1}, Steps: t, Delta: 1e-5}
		var claim, full, noAmp, single accountant.Claim
		timed := func(out *accountant.Claim, rt accountant.Routes, fresh func() accountant.Composition) (sample, error) {
			return measure(cfg.runs, 0, func() error {
				c, err := accountant.ComposeClaim(ctx, fresh(), opt, rt, nil)
				*out = c
				return err
			})
		}
		same := func() accountant.Composition { return q }
		sc, err := timed(&claim, accountant.Routes{NoLower: true}, same)
		if err != nil {
			return err
		}
		sf, err := timed(&full, accountant.Routes{}, same)
		if err != nil {
			return err
		}
		// The anchors, each timed alone: the unamplified PLD is the claim
		// of the mechanism released as is.
		sn, err := measure(cfg.runs, 0, func() error {
			acc, err := pld.NewAccount(ctx, []pld.Step{{Mechanism: g, Steps: t}}, opt)
			if err == nil {
				noAmp.Upper = acc.EpsUpper(1e-5)
			}
			return err
		})
		if err != nil {
			return err
		}
		pair, err := pld.Pair(1, g.Forward(1))
		if err != nil {
			return err
		}
		ss, err := timed(&single, accountant.Routes{NoLower: true}, func() accountant.Composition {
			p := q
			p.Mechanism = pair
			return p
		})
		sv, st := sig3(single.Upper), dur(ss.median)
		switch {
		case errors.Is(err, pld.ErrTooLarge): // the flat pair's PLD does not fit at large n and T
			sv, st = "too large", "-"
		case err != nil:
			return err
		}
		refV := "-"
		if v, ok := ref[[2]int{n, t}]; ok {
			refV = sig3(v)
		}
		dv, dt := "-", "-"
		if dpa != nil {
			run, ok := dpaRuns[claim.H]
			if !ok {
				eps, tm, err := dpa.gaussian(ctx, 2, t, 1e-5, claim.H, cfg.runs)
				if err != nil {
					return err
				}
				run = dpaRun{eps, tm}
				dpaRuns[claim.H] = run
			}
			dv, dt = sig3(run.eps), dur(run.t)
		}
		rows = append(rows, []string{fmt.Sprint(n), fmt.Sprint(t), sci(claim.H), sig3(claim.Upper), dur(sc.median), sig3(full.Lower), dur(sf.median),
			refV, sig3(noAmp.Upper), dur(sn.median), dv, dt, sv, st, size(sf.bytes)})
	}
	r.para("Gaussian sigma 2, c = 0.1, delta 1e-5, automatic discretization, %d workers. eps_upper (the claim: the exact amplified profile's pessimistic PLD composed) alone, then with eps_lower (one real mechanism composed, the level searched); beside them in the same run the anchors: the Gaussian's own PLD composed (no amplification) and the single-pair route (the pair (1, delta_G(1)) amplified, then composed). Times are medians of whole ComposeClaim calls; h is the discretization chosen.", opt.Workers)
	dpaNote := "dp_accounting live: " + why + "."
	if dpa != nil {
		dpaNote = fmt.Sprintf("dp_accounting live (%s): the Gaussian's pessimistic PLD (from_gaussian_mechanism, connect the dots) built, self-composed T times and read at delta 1e-5, at the same h as bernamp, timed inside Python (median of %d runs; no interpreter start-up), one process.", dpa, cfg.runs)
	}
	r.para("The dp_accounting anchors (Google's dp_accounting, Python): dp_accounting amplified is its composition of the exact amplified profile from testdata/ref/compose_ref.csv (computed offline with mpmath at h = %v, so not timed here; - where the file has no row), to set beside eps_upper. %s", refH, dpaNote)
	r.table([]string{"n = d k", "T", "h", "eps_upper", "time", "eps_lower", "time (both sides)", "dp_accounting amplified (ref)", "no amplification", "time", "dp_accounting no amplification", "time", "single pair", "time", "heap per call (both sides)"}, rows)
	return nil
}
