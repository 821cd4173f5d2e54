package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/pld"
	"github.com/bernamp/bernamp/rdp"
)

// composeRow is one (d, k, c, steps) of compose. With --delta the values
// are eps in nats; with --eps they are deltas.
type composeRow struct {
	// Plan is the --plan file of a heterogeneous composition; D, K and C
	// are then not set (each step has its own) and Steps is their total.
	Plan  string  `json:"plan,omitempty"`
	D     int     `json:"d,omitempty"`
	K     int     `json:"k,omitempty"`
	C     float64 `json:"c,omitempty"`
	Steps int     `json:"steps"`
	// Delta (with --delta) or Eps (with --eps) is the question.
	Delta *float64 `json:"delta,omitempty"`
	Eps   *float64 `json:"eps,omitempty"`
	// EpsUpper (DeltaUpper) is above the exact answer: claim it.
	// EpsLower (DeltaLower) is below it (null when the mechanism has no
	// known dominating pair). EpsRDP (DeltaRDP) is the RDP route, EpsNoAmp
	// (DeltaNoAmp) the mechanism's own PLD without amplification; null
	// when not computed, and for eps when no finite eps exists (+Inf, as
	// curve writes it; +Inf in CSV).
	EpsUpper    *infFloat `json:"eps_upper,omitempty"`
	EpsLower    *infFloat `json:"eps_lower,omitempty"`
	EpsRDP      *infFloat `json:"eps_rdp,omitempty"`
	EpsNoAmp    *infFloat `json:"eps_unamplified,omitempty"`
	EpsSingle   *infFloat `json:"eps_single_pair,omitempty"`
	DeltaUpper  *infFloat `json:"delta_upper,omitempty"`
	DeltaLower  *infFloat `json:"delta_lower,omitempty"`
	DeltaRDP    *infFloat `json:"delta_rdp,omitempty"`
	DeltaNoAmp  *infFloat `json:"delta_unamplified,omitempty"`
	DeltaSingle *infFloat `json:"delta_single_pair,omitempty"`
	// Check is what the independent checker said of eps_upper
	// (delta_upper): verified, rejected, none (no certificate: a
	// mechanism or plan it does not cover) or off (--no-check);
	// CheckFailure says why when not verified.
	Check        string `json:"check"`
	CheckFailure string `json:"check_failure,omitempty"`
	// CheckSeconds is the check's wall time (not in Seconds).
	CheckSeconds float64 `json:"check_seconds,omitempty"`
	// Discretization is the PLD grid step used, nats.
	Discretization float64 `json:"discretization"`
	Seconds        float64 `json:"seconds"`
	byDelta        bool
}

func (r *composeRow) header() []string {
	if r.byDelta {
		return []string{"d", "k", "c", "steps", "delta", "eps_lower", "eps_upper", "eps_rdp", "eps_unamplified", "eps_single_pair", "check", "seconds"}
	}
	return []string{"d", "k", "c", "steps", "eps", "delta_lower", "delta_upper", "delta_rdp", "delta_unamplified", "delta_single_pair", "check", "seconds"}
}

func (r *composeRow) csvFields() []string {
	q, lo, up, rd, na, sp := r.Eps, r.DeltaLower, r.DeltaUpper, r.DeltaRDP, r.DeltaNoAmp, r.DeltaSingle
	if r.byDelta {
		q, lo, up, rd, na, sp = r.Delta, r.EpsLower, r.EpsUpper, r.EpsRDP, r.EpsNoAmp, r.EpsSingle
	}
	optInf := func(v *infFloat) string {
		if v == nil {
			return ""
		}
		return fmtFloat(float64(*v))
	}
	d, k, c := strconv.Itoa(r.D), strconv.Itoa(r.K), fmtFloat(r.C)
	if r.Plan != "" {
		d, k, c = "", "", ""
	}
	return []string{d, k, c, strconv.Itoa(r.Steps), optFloat(q),
		optInf(lo), optInf(up), optInf(rd), optInf(na), optInf(sp), r.Check, strconv.FormatFloat(r.Seconds, 'f', 4, 64)}
}

// composeOptions holds the flags of compose.
type composeOptions struct {
	curveOptions              // --mechanism --sigma --b --p-true --noise-parameter --conversion
	sensitivity, q    float64 // --sensitivity, --q
	file              string  // --in
	plan              string  // --plan
	ds, ks, cs, steps string
	delta, eps        float64
	disc              float64
	emit              string
	certOut           string // --certificate-out
	rdpRoute, noAmp   bool
	lower             bool
	rdpTimeout        time.Duration
	rdpBudget         time.Duration
	quiet             bool // --quiet: no progress on stderr
	noCheck           bool // --no-check: the RDP route and the claim's profile certificate unchecked
	singlePair        float64
}

// runCompose answers (eps, delta) after T steps of a mechanism released
// through Bernoulli samples: the exact amplified profile composed
// (pessimistic, the claim) and the attaining mechanism composed
// (optimistic), beside the RDP route and the unamplified mechanism.
func runCompose(ctx context.Context, args []string, stdout, stderr io.Writer, term tty) error {
	var o options
	var co composeOptions
	fs := newFlagSet("compose", &o, 0)
	fs.StringVar(&co.mechanism, "mechanism", "", "gaussian (--sigma, --sensitivity), laplace (--b, --sensitivity), rr (--p-true or --noise-parameter), subsampled-gaussian (--q, --sigma, --sensitivity), rdp (--in an accountant curve) or profile (--in a profile or PLD file)")
	fs.Float64Var(&co.sigma, "sigma", 0, "gaussian, subsampled-gaussian: noise standard deviation, > 0")
	fs.Float64Var(&co.sensitivity, "sensitivity", 1, "gaussian, laplace, subsampled-gaussian: sensitivity (L2, L1), > 0")
	fs.Float64Var(&co.b, "b", 0, "laplace: scale, > 0")
	fs.Float64Var(&co.q, "q", 0, "subsampled-gaussian: Poisson sampling rate, in (0, 1]")
	co.rrFlags(fs)
	fs.StringVar(&co.file, "in", "", "rdp: accountant curve (CSV alpha,eps or JSON); profile: CSV eps,delta[,delta_reverse], delta --profile's JSON, or a PLD JSON (compose --emit-pld)")
	fs.StringVar(&co.plan, "plan", "", "heterogeneous composition: a JSON plan {\"steps\": [{\"mechanism\", its parameters, \"d\", \"k\", \"c\", \"count\"}, ...]} (docs/compose.md) instead of --mechanism, --d, --k, --c and --steps")
	fs.StringVar(&co.conversion, "conversion", rdp.Balle2020.String(), "RDP to (eps, delta) for rdp and the RDP route: balle2020, mironov2017 or dp_accounting")
	fs.StringVar(&co.ds, "d", "1", "dimension of theta: list or range of integers >= 1")
	fs.StringVar(&co.ks, "k", "1", "Bernoulli samples released: list or range of integers >= 1")
	fs.StringVar(&co.cs, "c", "0.1", "range constant: list or range in (0, 0.5)")
	fs.StringVar(&co.steps, "steps", "1", "adaptive steps composed: list or range of integers >= 1")
	fs.Float64Var(&co.delta, "delta", 0, "report eps at this delta, in (0, 1) (default 1e-5 unless --eps)")
	fs.Float64Var(&co.eps, "eps", -1, "report delta at this eps >= 0 instead of eps at --delta")
	fs.Float64Var(&co.disc, "discretization", 0, "PLD grid step in nats (dp_accounting's value_discretization_interval), in (0, 1]; 0: 1e-4, or coarser where the composed PLD would pass 2^19 points (docs/compose.md)")
	fs.StringVar(&co.format, "format", "table", "table, csv or json")
	fs.StringVar(&co.emit, "emit-pld", "", "write the composed pessimistic PLD (JSON) of the one row to FILE")
	fs.StringVar(&co.certOut, "certificate-out", "", "directory to write each row's profile certificate (eps_upper's, checked by bernamp verify) to; not with --no-check")
	fs.BoolVar(&co.rdpRoute, "rdp-route", true, "compute the RDP route (gaussian, laplace, rr, rdp): the RDP curve amplified per order (Post's proved upper bound; only at the orders that could lower eps_rdp, the others keep the closed-form UB at no loss), composed, converted: an upper bound")
	fs.BoolVar(&co.lower, "lower", true, "compute the lower side (one real mechanism composed, a search over its level); --lower=false gives the claim alone, faster")
	fs.BoolVar(&co.noAmp, "unamplified", true, "compute the mechanism's own PLD composed, without amplification")
	fs.Float64Var(&co.singlePair, "single-pair", 0, "also the single-pair route: amplify only the pair (E, delta_M(E)) at this E > 0 and compose it (a comparator that can lose to no amplification)")
	fs.DurationVar(&co.rdpTimeout, "rdp-timeout", 5*time.Second, "time limit per order of the RDP route's amplified curve (its solve, and separately its check)")
	fs.DurationVar(&co.rdpBudget, "rdp-budget", defaultRDPBudget, "total time of the RDP route's solves and checks, measured and summed over its orders (the wall time at most about this over --workers): the orders that could lower eps_rdp are solved most to gain first, "+strconv.Itoa(accountant.RouteBatch)+" at a time, each at most --rdp-timeout and its batch's share of what is left; once that share would be under "+accountant.MinOrderTime.String()+" the budget is spent and the orders left keep the closed-form upper bound UB (a warning on stderr says how many). eps_rdp is an upper bound either way (the safe side), only maybe looser; 0: no cap")
	fs.BoolVar(&co.quiet, "quiet", false, "no progress on stderr (each row done, on a terminal; a line every "+plainProgressEvery.String()+" of a longer run, terminal or not, with the RDP route's orders solved)")
	fs.BoolVar(&co.noCheck, "no-check", false, "skip the independent checker: on eps_upper's profile certificate (check column) and on the RDP route's orders (checked by default: an order whose certificate it does not accept uses the closed form)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOptions(&o, 0); err != nil {
		return err
	}
	co.maxMem = o.maxMem
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if co.plan != "" {
		return runComposePlan(ctx, co, set, o, stdout)
	}
	job, err := co.check(set)
	if err != nil {
		return err
	}
	opt := pld.DefaultOptions()
	opt.H, opt.Workers = co.disc, o.workers
	if co.singlePair < 0 || co.singlePair > pld.MaxEps || math.IsNaN(co.singlePair) {
		return usagef("--single-pair: single-pair is %v, must be in (0, %v]", co.singlePair, pld.MaxEps)
	}
	if co.rdpTimeout < 0 || co.rdpBudget < 0 {
		return usagef("--rdp-timeout, --rdp-budget: %v, %v: must be >= 0 (0: no limit)", co.rdpTimeout, co.rdpBudget)
	}
	routes := accountant.Routes{NoAmp: co.noAmp, NoLower: !co.lower, SinglePair: co.singlePair, Check: !co.noCheck}
	if co.certOut != "" && co.noCheck {
		return usagef("--certificate-out: not with --no-check (the certificate is written where it is checked)")
	}
	if co.emit != "" && len(job.kernels)*len(job.steps) != 1 {
		return usagef("--emit-pld: needs one row (one d, k, c and steps), not %d", len(job.kernels)*len(job.steps))
	}
	var qs []accountant.Composition
	for _, kern := range job.kernels {
		for _, t := range job.steps {
			qs = append(qs, accountant.Composition{Mechanism: job.profile, Kernel: kern, Steps: t, Delta: co.delta, Eps: co.eps, Source: job.source})
		}
	}
	stderr = &lockedWriter{w: stderr}
	var done, useful atomic.Int64 // orders of the RDP route
	if co.rdpRoute && job.curve != nil {
		if routes.RDP, err = planRDPRoute(co, job, qs, o.workers, &done); err != nil {
			return err
		}
		useful.Store(int64(routes.RDP.Stats().Useful))
	}
	var prog *progress
	if !co.quiet {
		prog = startPlainProgress(stderr, "compose", len(qs), "rows", func() string {
			if u := useful.Load(); u > 0 {
				return fmt.Sprintf(" (RDP route: %d/%d orders)", done.Load(), u)
			}
			return ""
		}, plainProgressEvery)
	}
	defer func() { prog.finish() }() // an error's return; nil once finished
	var rows []*composeRow
	total := len(qs)
	for _, q := range qs {
		kern, t := q.Kernel, q.Steps
		c, err := accountant.ComposeClaim(ctx, q, opt, routes, nil)
		switch {
		case err != nil && ctx.Err() != nil:
			prog.finish()
			prog = nil
			warnRDPBudget(stderr, routes.RDP, co.rdpBudget)
			writeComposeRows(stdout, co.format, rows)
			return fmt.Errorf("interrupted after %d of %d rows", len(rows), total)
		case errors.Is(err, pld.ErrProfile):
			return usagef("--in: %s", bare(err))
		case err != nil:
			return err
		}
		r := &composeRow{D: kern.D, K: kern.K, C: kern.C, Steps: t, byDelta: co.delta > 0}
		r.fill(co, c, o.noTiming)
		rows = append(rows, r)
		prog.add()
		if total > 1 && term.stderr && !co.quiet { // rows on a terminal only, as the other commands' progress line
			fmt.Fprintf(stderr, "bernamp: compose: %d/%d rows\n", len(rows), total)
		}
		if co.certOut != "" && c.Certificate != nil {
			if _, err := c.Certificate.WriteDir(co.certOut); err != nil {
				return err
			}
		}
		if co.emit != "" {
			f := pld.NewFile(c.Fwd, c.Rev, fmt.Sprintf("%s; d=%d k=%d c=%s; %d steps", job.profile.Name, kern.D, kern.K, fmtFloat(kern.C), t))
			if err := writeFileAtomic(co.emit, func(w io.Writer) error { return writeJSON(w, f) }); err != nil {
				return err
			}
		}
	}
	prog.finish()
	prog = nil
	warnRDPBudget(stderr, routes.RDP, co.rdpBudget)
	return writeComposeRows(stdout, co.format, rows)
}

// defaultRDPBudget is --rdp-budget's default: at the CLI's two workers
// the RDP route takes at most about 15 s of wall time.
const defaultRDPBudget = 30 * time.Second

// plainProgressEvery is the interval between compose's progress lines
// (the first after one interval: a shorter run writes none).
const plainProgressEvery = 10 * time.Second

// planRDPRoute plans the RDP route of the questions qs (accountant.
// NewRDPRoute with --rdp-timeout and --rdp-budget), counting the orders
// done (solved, or left to the closed form) in done.
func planRDPRoute(co composeOptions, job composeJob, qs []accountant.Composition, workers int, done *atomic.Int64) (*accountant.RDPRoute, error) {
	ro := accountant.RouteOptions{Settings: &bernamp.Settings{Timeout: co.rdpTimeout, Workers: 1, Check: !co.noCheck}, Workers: workers, Budget: co.rdpBudget,
		Progress: func(n, useful int) { done.Store(int64(n)) }}
	return accountant.NewRDPRoute(accountant.FromRDP(*job.curve), job.conv, qs, ro)
}

// warnRDPBudget says on stderr how many orders that could lower eps_rdp
// the budget left at the closed form, if any.
func warnRDPBudget(stderr io.Writer, route *accountant.RDPRoute, budget time.Duration) {
	if route == nil {
		return
	}
	if st := route.Stats(); st.Unsolved > 0 {
		fmt.Fprintf(stderr, "bernamp: warning: RDP route: --rdp-budget %v was spent after %d of the %d orders that could lower eps_rdp; the other %d keep the closed-form upper bound UB: eps_rdp is still an upper bound, maybe looser (raise --rdp-budget, 0: no cap)\n",
			budget, st.Solved, st.Useful, st.Unsolved)
	}
}

// fill sets the row from the claim: its values (set), times (0 with
// noTiming) and discretization.
func (r *composeRow) fill(co composeOptions, c accountant.Claim, noTiming bool) {
	r.set(co, c)
	r.Seconds, r.Discretization = c.Seconds, c.H
	if noTiming {
		r.Seconds, r.CheckSeconds = 0, 0
	}
}

// set fills the row's values from the claim (NaN: not computed, null).
func (r *composeRow) set(co composeOptions, c accountant.Claim) {
	opt := func(v float64) *infFloat {
		if math.IsNaN(v) {
			return nil
		}
		f := infFloat(v)
		return &f
	}
	if r.byDelta {
		r.Delta, r.EpsUpper, r.EpsLower, r.EpsRDP, r.EpsNoAmp, r.EpsSingle = &co.delta, opt(c.Upper), opt(c.Lower), opt(c.RDP), opt(c.NoAmp), opt(c.Single)
	} else {
		r.Eps, r.DeltaUpper, r.DeltaLower, r.DeltaRDP, r.DeltaNoAmp, r.DeltaSingle = &co.eps, opt(c.Upper), opt(c.Lower), opt(c.RDP), opt(c.NoAmp), opt(c.Single)
	}
	r.Check, r.CheckSeconds = c.Check.Status, c.Check.Seconds
	if c.Check.Status != bernamp.CheckVerified {
		r.CheckFailure = c.Check.Failure
	}
}

// writeComposeRows prints the rows: a table (with the sides named), CSV or
// JSON.
func writeComposeRows(w io.Writer, format string, rows []*composeRow) error {
	if len(rows) == 0 {
		return nil
	}
	switch format {
	case "json":
		return writeJSON(w, rows)
	case "csv":
		return writeCSV(w, rows[0].header(), rows)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	h := rows[0].header()
	fmt.Fprintln(tw, strings.Join(h[:len(h)-1], "\t"))
	for _, r := range rows {
		f := r.csvFields()
		for i, v := range f[:len(f)-1] {
			if v == "" {
				f[i] = "-"
			} else if x, err := strconv.ParseFloat(v, 64); err == nil && i >= 5 {
				f[i] = strconv.FormatFloat(x, 'g', 6, 64)
			}
		}
		fmt.Fprintln(tw, strings.Join(f[:len(f)-1], "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	what := "eps"
	if !rows[0].byDelta {
		what = "delta"
	}
	_, err := fmt.Fprintf(w, "\n%s_upper: the exact amplified profile composed (pessimistic PLD): claim it. %s_lower: one real mechanism composed (optimistic).\n%s_rdp: the RDP route; %s_unamplified: the mechanism's own PLD, no amplification; -: not computed.\ncheck: the independent checker on %s_upper's certificate (verified; rejected; none: not covered; off: --no-check).\n", what, what, what, what, what)
	return err
}

// composeJob is what compose's flags describe.
type composeJob struct {
	profile pld.Profile
	curve   *rdp.Curve // the mechanism's RDP curve, nil when none is known
	source  accountant.Source
	conv    rdp.Conversion
	kernels []accountant.Kernel
	steps   []int
}

// check validates compose's flags; every error is a usage error naming
// the flag.
func (co *composeOptions) check(set map[string]bool) (composeJob, error) {
	if err := co.checkQuestion(set); err != nil {
		return composeJob{}, err
	}
	var job composeJob
	var err error
	if job.conv, err = rdp.ParseConversion(co.conversion); err != nil {
		return job, flagError("conversion", err)
	}
	ds, err := parseInts(co.ds)
	if err != nil {
		return job, flagError("d", err)
	}
	ks, err := parseInts(co.ks)
	if err != nil {
		return job, flagError("k", err)
	}
	cs, err := parseFloats(co.cs)
	if err != nil {
		return job, flagError("c", err)
	}
	if job.steps, err = parseInts(co.steps); err != nil {
		return job, flagError("steps", err)
	}
	for _, t := range job.steps {
		if t < 1 {
			return job, usagef("--steps: steps is %d, must be >= 1", t)
		}
	}
	for _, d := range ds {
		if err := check.D(d); err != nil {
			return job, flagError("d", err)
		}
	}
	for _, k := range ks {
		if err := check.K(k); err != nil {
			return job, flagError("k", err)
		}
	}
	for _, d := range ds {
		for _, k := range ks {
			if err := check.N(d, k); err != nil {
				return job, flagError("d", err)
			}
			if d > pld.MaxN/k {
				return job, usagef("--d, --k: d k = %d x %d exceeds %d", d, k, pld.MaxN)
			}
			for _, c := range cs {
				kern := accountant.Kernel{D: d, K: k, C: c}
				if err := kern.Validate(); err != nil {
					return job, usagef("--d, --k, --c: %s", bare(err))
				}
				job.kernels = append(job.kernels, kern)
			}
		}
	}
	if len(job.kernels)*len(job.steps) > maxGrid {
		return job, usagef("--d, --k, --c, --steps: %d rows, at most %d", len(job.kernels)*len(job.steps), maxGrid)
	}
	mechanisms := []string{"gaussian", "laplace", "rr", "subsampled-gaussian", "rdp", "profile"}
	if co.mechanism != "" && !slices.Contains(mechanisms, co.mechanism) { // the name first: a parameter is judged against a known mechanism
		return job, usagef("--mechanism: mechanism is %q, must be gaussian, laplace, rr, subsampled-gaussian, rdp or profile", co.mechanism)
	}
	owner := map[string][]string{"sigma": {"gaussian", "subsampled-gaussian"}, "b": {"laplace"}, "q": {"subsampled-gaussian"},
		"sensitivity": {"gaussian", "laplace", "subsampled-gaussian"}, "p-true": {"rr"}, "noise-parameter": {"rr"}, "in": {"rdp", "profile"}}
	for name, ms := range owner {
		if set[name] && !slices.Contains(ms, co.mechanism) {
			return job, usagef("--%s: only with --mechanism %s", name, joinOr(ms))
		}
	}
	need := func(name string, v float64) error {
		if !set[name] {
			return usagef("--%s: needed with --mechanism %s", name, co.mechanism)
		}
		if !(v > 0) || math.IsInf(v, 1) {
			return usagef("--%s: %s is %v, must be > 0 and finite", name, name, v)
		}
		return nil
	}
	if !(co.sensitivity > 0) || math.IsInf(co.sensitivity, 1) {
		return job, usagef("--sensitivity: sensitivity is %v, must be > 0 and finite", co.sensitivity)
	}
	var curve rdp.Curve
	switch co.mechanism {
	case "gaussian":
		if err := need("sigma", co.sigma); err != nil {
			return job, err
		}
		job.profile, err = pld.Gaussian(co.sensitivity, co.sigma)
		job.source = accountant.Source{Kind: "gaussian", Sensitivity: co.sensitivity, Sigma: co.sigma}
		if err == nil {
			curve, err = rdp.Gaussian(co.sigma/co.sensitivity, nil)
			job.curve = &curve
		}
	case "laplace":
		if err := need("b", co.b); err != nil {
			return job, err
		}
		job.profile, err = pld.Laplace(co.sensitivity, co.b)
		job.source = accountant.Source{Kind: "laplace", Sensitivity: co.sensitivity, B: co.b}
		if err == nil {
			curve, err = rdp.Laplace(co.b/co.sensitivity, nil)
			job.curve = &curve
		}
	case "rr":
		c, _, err := mechanismCurve(set, "rr", "", 0, 0, co.p, co.noise)
		if err != nil {
			return job, err
		}
		p := co.p
		if set["noise-parameter"] {
			p = rdp.RRTruthProb(co.noise)
		}
		job.curve = &c
		if job.profile, err = pld.RandomizedResponse(p); err != nil {
			return job, usagef("--p-true: %s", bare(err))
		}
		job.source = accountant.Source{Kind: "rr", PT: p}
	case "subsampled-gaussian":
		if err := need("sigma", co.sigma); err != nil {
			return job, err
		}
		if !set["q"] || !(co.q > 0 && co.q <= 1) {
			return job, usagef("--q: q is %v, must be in (0, 1] (needed with --mechanism subsampled-gaussian)", co.q)
		}
		job.profile, err = pld.SubsampledGaussian(co.sensitivity, co.sigma, co.q)
		job.source = accountant.Source{Kind: "subsampled-gaussian", Sensitivity: co.sensitivity, Sigma: co.sigma, Q: co.q}
	case "rdp":
		if co.file == "" {
			return job, usagef("--in: needed with --mechanism rdp (an accountant curve)")
		}
		c, _, err := readCurves([]string{co.file}, co.maxMem)
		if err != nil {
			return job, err
		}
		f, ok := c.Finite()
		if !ok {
			return job, usagef("--in: %s: no order with a finite eps", co.file)
		}
		job.curve = &f
		if job.profile, err = pld.FromRDP(f, job.conv, "rdp curve from "+co.file); err != nil {
			return job, usagef("--in: %s: %s", co.file, bare(err))
		}
		job.source = accountant.RDPSource(f, job.conv)
	case "profile":
		if co.file == "" {
			return job, usagef("--in: needed with --mechanism profile (a profile or PLD file)")
		}
		if err := checkInputSize("--in", co.file, co.maxMem); err != nil {
			return job, err
		}
		f, err := os.Open(co.file)
		if err != nil {
			return job, usagef("--in: %v", err)
		}
		defer f.Close()
		var in pld.Input
		if job.profile, in, err = pld.ReadProfileInput(f, "profile from "+co.file); err != nil {
			return job, usagef("--in: %s: %s", co.file, bare(err))
		}
		job.source = accountant.ProfileSource(in)
	case "":
		return job, usagef("--mechanism: give --mechanism gaussian|laplace|rr|subsampled-gaussian|rdp|profile")
	default:
		return job, usagef("--mechanism: mechanism is %q, must be gaussian, laplace, rr, subsampled-gaussian, rdp or profile", co.mechanism)
	}
	if err != nil {
		return job, usagef("--mechanism %s: %s", co.mechanism, bare(err))
	}
	return job, nil
}

func joinOr(list []string) string {
	s := ""
	for i, v := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			s += " or "
		default:
			s += ", "
		}
		s += v
	}
	return s
}

// runComposePlan answers the heterogeneous composition of --plan: one row.
func runComposePlan(ctx context.Context, co composeOptions, set map[string]bool, o options, stdout io.Writer) error {
	for _, name := range []string{"mechanism", "sigma", "sensitivity", "b", "q", "p-true", "noise-parameter", "in", "d", "k", "c", "steps", "single-pair", "emit-pld"} {
		if set[name] {
			return usagef("--%s: not with --plan (the plan gives each step's mechanism, d, k, c and count)", name)
		}
	}
	if err := co.checkQuestion(set); err != nil {
		return err
	}
	if co.certOut != "" && co.noCheck {
		return usagef("--certificate-out: not with --no-check (the certificate is written where it is checked)")
	}
	if err := checkInputSize("--plan", co.plan, co.maxMem); err != nil {
		return err
	}
	f, err := os.Open(co.plan)
	if err != nil {
		return usagef("--plan: %v", err)
	}
	defer f.Close()
	plan, steps, err := pld.ReadPlanSteps(f, filepath.Dir(co.plan))
	if err != nil {
		return usagef("--plan: %s: %s", co.plan, bare(err))
	}
	opt := pld.DefaultOptions()
	opt.H, opt.Workers = co.disc, o.workers
	c, err := accountant.ComposePlan(ctx, plan, accountant.PlanKinds(steps), co.delta, co.eps, opt, co.noAmp, !co.noCheck)
	if err != nil {
		return err
	}
	total := 0
	for _, s := range plan {
		total += s.Steps
	}
	r := &composeRow{Plan: co.plan, Steps: total, byDelta: co.delta > 0}
	r.fill(co, c, o.noTiming)
	if co.certOut != "" && c.Certificate != nil {
		if _, err := c.Certificate.WriteDir(co.certOut); err != nil {
			return err
		}
	}
	return writeComposeRows(stdout, co.format, []*composeRow{r})
}

// checkQuestion validates --delta or --eps (setting --delta's default),
// --discretization and --format.
func (co *composeOptions) checkQuestion(set map[string]bool) error {
	switch {
	case set["delta"] && set["eps"]:
		return usagef("--eps: give --delta or --eps, not both")
	case set["eps"]:
		if err := check.Eps(co.eps); err != nil || co.eps > pld.MaxEps {
			return usagef("--eps: eps is %v, must be in [0, %v]", co.eps, pld.MaxEps)
		}
	default:
		if !set["delta"] {
			co.delta = 1e-5
		}
		if !(co.delta > 0 && co.delta < 1) {
			return usagef("--delta: delta is %v, must be in (0, 1)", co.delta)
		}
	}
	if !(co.disc >= 0 && co.disc <= 1) {
		return usagef("--discretization: discretization is %v, must be in (0, 1] (or 0: automatic)", co.disc)
	}
	switch co.format {
	case "table", "csv", "json":
	default:
		return usagef("--format: format is %q, must be table, csv or json", co.format)
	}
	return nil
}
