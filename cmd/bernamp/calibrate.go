package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/rdp"
)

// calibrateOutput is the answer of calibrate (JSON, and the lines of text).
type calibrateOutput struct {
	Solve      string   `json:"solve"`      // c, k, sigma or b
	Value      float64  `json:"value"`      // meets the target by proved bounds
	Eps        float64  `json:"eps"`        // proved eps at value, <= target
	Order      float64  `json:"order"`      // order attaining eps
	Fail       *float64 `json:"fail"`       // nearest value tried that missed the target; null when none
	FailEps    *float64 `json:"fail_eps"`   // its eps
	Any        bool     `json:"any"`        // every value meets the target
	TargetEps  float64  `json:"target_eps"` //
	Delta      float64  `json:"delta"`      //
	Steps      int      `json:"steps"`      // releases composed
	Conversion string   `json:"conversion"` //
	Evals      int      `json:"evals"`      // amplified curves computed
	SafeSide   string   `json:"safe_side"`  // which way the answer errs
}

// The work guard of calibrate (doc.go, docs/calibrate.md): before the
// search starts calibrate estimates its work (accountant.Problem.Work) and
// refuses past --max-work.
const (
	calibrateTimeout = 10 * time.Second // per Post when --timeout is not given
	calibrateMaxWork = 2 * time.Minute  // default --max-work
)

// runCalibrate finds the smallest c, the largest k or the smallest noise
// whose proved amplified guarantee after --steps releases meets (--eps,
// --delta).
func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	var co curveOptions
	var (
		solve      string
		target     float64
		steps      int
		resolution float64
	)
	fs := newFlagSet("calibrate", &o, solverOpts|withoutNoTiming)
	fs.StringVar(&solve, "solve", "", "the unknown: c (smallest), k (largest), sigma (smallest, gaussian) or b (smallest, laplace)")
	fs.Float64Var(&target, "eps", 0, "target eps of the (eps, delta) guarantee after --steps releases, > 0")
	fs.Float64Var(&co.delta, "delta", 1e-5, "target delta, in (0, 1)")
	fs.IntVar(&steps, "steps", 1, "releases composed (RDP adds per order), >= 1")
	fs.Float64Var(&resolution, "resolution", 1e-3, "relative width of the final bracket for c, sigma and b, in (0, 1)")
	co.sourceFlags(fs)
	fs.IntVar(&co.d, "d", 1, "dimension of theta, >= 1")
	fs.IntVar(&co.k, "k", 1, "Bernoulli samples released, >= 1 (not with --solve k)")
	fs.Float64Var(&co.c, "c", 0.1, "range constant, in (0, 0.5) (not with --solve c)")
	fs.StringVar(&co.format, "format", "table", "table or json")
	maxWork := calibrateMaxWork
	fs.DurationVar(&maxWork, "max-work", maxWork, "the most Post time, summed over workers, by estimate before the search starts (orders x candidates x time per Post); past it calibrate refuses")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOptions(&o, solverOpts|withoutNoTiming); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["timeout"] {
		o.timeout = calibrateTimeout
	}
	if !(maxWork > 0) {
		return usagef("--max-work: max-work is %v, must be > 0", maxWork)
	}
	if !set["eps"] || !(target > 0) || math.IsInf(target, 1) {
		return usagef("--eps: the target eps is needed, > 0 and finite (got %v)", target)
	}
	if err := rdp.CheckDelta(co.delta); err != nil {
		return flagError("delta", err)
	}
	if steps < 1 {
		return usagef("--steps: steps is %d, must be >= 1", steps)
	}
	if !(resolution > 0 && resolution < 1) {
		return usagef("--resolution: resolution is %v, must be in (0, 1)", resolution)
	}
	conv, err := rdp.ParseConversion(co.conversion)
	if err != nil {
		return flagError("conversion", err)
	}
	if co.format != "table" && co.format != "json" {
		return usagef("--format: format is %q, must be table or json", co.format)
	}
	p := accountant.Problem{
		Target:     accountant.Target{Eps: target, Delta: co.delta, Steps: steps, Conversion: conv},
		Kernel:     accountant.Kernel{D: co.d, K: co.k, C: co.c},
		Resolution: resolution,
		Settings:   solverSettings(&o, 156),
		Workers:    o.workers,
	}
	if err := check.D(co.d); err != nil {
		return flagError("d", err)
	}
	safe := ""
	switch solve {
	case "c":
		p.Solve = accountant.SolveC
		if set["c"] {
			return usagef("--c: not with --solve c")
		}
		safe = "c meets the target (proved); any larger c does too, a smaller one may (privacy grows with c)"
	case "k":
		p.Solve = accountant.SolveK
		if set["k"] {
			return usagef("--k: not with --solve k")
		}
		if err := check.C(co.c); err != nil {
			return flagError("c", err)
		}
		safe = "k meets the target (proved); any smaller k does too (privacy falls as k grows)"
	case "sigma", "b":
		p.Solve = accountant.SolveNoise
		want := map[string]string{"sigma": "gaussian", "b": "laplace"}[solve]
		if co.mechanism != want || set[solve] {
			return usagef("--solve %s: needs --mechanism %s and no --%s", solve, want, solve)
		}
		safe = solve + " meets the target (proved); any larger " + solve + " does too (the curve falls as the noise grows)"
	case "":
		return usagef("--solve: give c, k, sigma or b")
	default:
		return usagef("--solve: solve is %q, must be c, k, sigma or b", solve)
	}
	if p.Solve != accountant.SolveK {
		if err := check.K(co.k); err != nil {
			return flagError("k", err)
		}
	}
	if p.Solve != accountant.SolveC {
		if err := check.C(co.c); err != nil {
			return flagError("c", err)
		}
	}
	if p.Solve == accountant.SolveNoise {
		// the noise is the unknown: build the curve at each value
		var orders []float64
		if set["orders"] {
			c, _, err := mechanismCurve(map[string]bool{"orders": true, solve: true}, co.mechanism, co.orders, 1, 1, 0, 0)
			if err != nil {
				return err
			}
			orders = c.Orders
		}
		if p.Noise, err = accountant.NoiseCurve(co.mechanism, orders); err != nil {
			return usagef("--mechanism: %s", bare(err))
		}
	} else {
		co.maxMem = o.maxMem
		c, _, warnings, err := co.source(set)
		if err != nil {
			return err
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "bernamp: warning: %s\n", w)
		}
		p.Curve = c
	}
	n := len(p.Curve.Orders)
	if p.Solve == accountant.SolveNoise {
		n = len(p.Noise(1).Orders)
	}
	if work, evals, perPost, kk := p.Work(n, o.timeout); work > maxWork.Seconds() {
		return usagef("calibrate: about %s of Post by estimate (%d orders x at least %d candidates x %.2gs per Post at d=%d k=%d), more than --max-work %s; use fewer --orders, a coarser --resolution, a shorter --timeout per Post, or raise --max-work",
			time.Duration(work*float64(time.Second)).Round(time.Second), n, evals, perPost, p.Kernel.D, kk, maxWork)
	}
	a, err := accountant.Calibrate(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return usagef("calibrate: %s", bare(err))
	}
	out := calibrateOutput{Solve: solve, Value: a.Value, Eps: a.Eps, Order: a.Order, Any: a.Any, TargetEps: target,
		Delta: co.delta, Steps: steps, Conversion: conv.String(), Evals: a.Evals, SafeSide: safe}
	if !math.IsNaN(a.Fail) {
		out.Fail, out.FailEps = &a.Fail, &a.FailEps
	}
	if co.format == "json" {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "target (%s, %s)-DP after %d release(s), conversion %s; kernel d=%d", fmtFloat(target), fmtFloat(co.delta), steps, conv, co.d)
	if solve != "k" {
		fmt.Fprintf(stdout, " k=%d", co.k)
	}
	if solve != "c" {
		fmt.Fprintf(stdout, " c=%s", fmtFloat(co.c))
	}
	fmt.Fprintln(stdout)
	switch {
	case a.Any && solve == "k":
		fmt.Fprintf(stdout, "any k: the mechanism alone meets the target\n")
		return nil
	case a.Any && (solve == "sigma" || solve == "b"):
		fmt.Fprintf(stdout, "any %s: the sampling alone (eps = inf) gives eps %.6g\n", solve, a.Eps)
		return nil
	case a.Any:
		fmt.Fprintf(stdout, "any c: the mechanism alone meets the target\n")
		return nil
	}
	fmt.Fprintf(stdout, "%s = %s  proved eps %.6g at order %s\n", solve, fmtFloat(a.Value), a.Eps, fmtFloat(a.Order))
	if out.Fail != nil {
		fmt.Fprintf(stdout, "%s = %s  misses it: eps %.6g\n", solve, fmtFloat(a.Fail), a.FailEps)
	}
	fmt.Fprintf(stdout, "safe side: %s; %d amplified curves computed\n", safe, a.Evals)
	return nil
}
