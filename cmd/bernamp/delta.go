package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/hockey"
	"github.com/bernamp/bernamp/mixing"
	"github.com/bernamp/bernamp/rdp"
)

// deltaHeader is the CSV header of delta, in column order.
var deltaHeader = []string{"d", "k", "c", "eps", "delta", "eps_out", "delta_out", "delta_out_upper", "method", "check",
	"dobrushin", "dobrushin_hs", "doeblin", "ultra_mixing", "rdp_route", "seconds"}

// deltaRow is one eps' of delta. eps values in nats.
type deltaRow struct {
	D      int     `json:"d"`
	K      int     `json:"k"`
	C      float64 `json:"c"`
	Eps    float64 `json:"eps"`     // the mechanism is (eps, delta)-DP
	Delta  float64 `json:"delta"`   // with --gaussian: the Gaussian's delta at eps, rounded up
	EpsOut float64 `json:"eps_out"` // eps' of the amplified guarantee
	// DeltaOut is a verified lower bound on the exact delta'(eps'): a
	// mechanism attains it. DeltaOutUpper bounds delta' from above (k = 1)
	// or the corner program (k >= 2, see Method).
	DeltaOut      float64 `json:"delta_out"`
	DeltaOutUpper float64 `json:"delta_out_upper"`
	Method        string  `json:"method"` // hockey.MethodExact, MethodLifted or MethodCorners
	// Check is what the independent checker said of delta_out_upper's
	// certificate: verified, rejected, off (--no-check) or none (no file).
	Check string `json:"check"`
	// Theorem 1 of Balle et al. (mixing.Bounds.Theorem1): each item's
	// delta' when its eps' is <= eps_out, null when its eps' exceeds
	// eps_out (the item proves nothing at eps_out). Upper bounds on delta'.
	Dobrushin   *float64 `json:"dobrushin"`
	DobrushinHS *float64 `json:"dobrushin_hs"`
	Doeblin     *float64 `json:"doeblin"`
	UltraMixing *float64 `json:"ultra_mixing"`
	// RDPRoute (--gaussian only): the delta at eps_out from the amplified
	// RDP curve of the Gaussian (bernamp.Post's proved upper bound per
	// order) by the conversion; null without --gaussian.
	RDPRoute *float64 `json:"rdp_route"`
	RDPOrder *float64 `json:"rdp_order,omitempty"` // order attaining rdp_route
	Seconds  float64  `json:"seconds"`             // wall time of delta_out; 0 with --no-timing

	Corners []string `json:"corners"` // corners of the canonical points of the witness
}

func (r *deltaRow) csvFields() []string {
	return []string{strconv.Itoa(r.D), strconv.Itoa(r.K), fmtFloat(r.C), fmtFloat(r.Eps), fmtFloat(r.Delta), fmtFloat(r.EpsOut),
		fmtFloat(r.DeltaOut), fmtFloat(r.DeltaOutUpper), r.Method, r.Check,
		optFloat(r.Dobrushin), optFloat(r.DobrushinHS), optFloat(r.Doeblin), optFloat(r.UltraMixing), optFloat(r.RDPRoute),
		strconv.FormatFloat(r.Seconds, 'f', 4, 64)}
}

// deltaOptions holds the flags of delta.
type deltaOptions struct {
	d, k       int
	c          float64
	eps, delta float64
	sigma      float64 // --gaussian
	epsOut     string
	conversion string
	format     string
	rdpTimeout time.Duration
	// --profile: the file, the grid step and the largest |eps'|.
	profile     string
	profileStep float64
	profileMax  float64
	noCheck     bool   // --no-check
	certOut     string // --certificate-out
}

// runDelta computes the exact amplified delta' of an (eps, delta)-DP
// mechanism at each eps', with the comparators of Balle et al. and, for
// the Gaussian mechanism, the delta of the RDP route.
func runDelta(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	var do deltaOptions
	fs := newFlagSet("delta", &o, withoutMaxMemory)
	fs.IntVar(&do.d, "d", 1, "dimension of theta, >= 1")
	fs.IntVar(&do.k, "k", 1, "Bernoulli samples released, >= 1")
	fs.Float64Var(&do.c, "c", 0.1, "range constant: theta in [c, 1-c]^d, in (0, 0.5)")
	fs.Float64Var(&do.eps, "eps", 0, "DP level of the mechanism in nats, >= 0 (required)")
	fs.Float64Var(&do.delta, "delta", 0, "delta of the mechanism, in [0, 1) (or use --gaussian)")
	fs.Float64Var(&do.sigma, "gaussian", 0, "Gaussian mechanism with L2 sensitivity 1 and this noise sigma > 0: delta is its delta at --eps, and the RDP route is computed")
	fs.StringVar(&do.epsOut, "eps-out", "", "eps' values: list or range, >= 0 (default 0, eps/4, eps/2, 3eps/4, eps)")
	fs.StringVar(&do.conversion, "conversion", rdp.Balle2020.String(), "RDP to (eps, delta) for the RDP route: balle2020 or mironov2017")
	fs.StringVar(&do.format, "format", "csv", "csv or json")
	fs.DurationVar(&do.rdpTimeout, "rdp-timeout", 5*time.Second, "time limit per order of the amplified RDP curve (--gaussian, d >= 2); the proved bound at the limit is used")
	fs.StringVar(&do.profile, "profile", "", "write the privacy profile eps' -> delta' (rounded up) on the grid i*STEP, |eps'| <= MAX, and its connect-the-dots privacy loss distribution to FILE (JSON, docs/hockey.md)")
	fs.Float64Var(&do.profileStep, "profile-step", 1e-4, "grid step of --profile in nats (dp_accounting's value_discretization_interval), > 0")
	fs.BoolVar(&do.noCheck, "no-check", false, "skip the independent checker of delta_out_upper's certificate (checked by default; a bound it does not accept is replaced by the least of Theorem 1's bounds and 1)")
	fs.StringVar(&do.certOut, "certificate-out", "", "directory to write the certificate of each row's delta_out_upper to (docs/certificates.md)")
	fs.Float64Var(&do.profileMax, "profile-max", 0, "largest |eps'| of --profile, > 0 (default d k log((1-c)/c), where delta' reaches 0)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOptions(&o, withoutMaxMemory); err != nil {
		return err
	}
	epsOuts, conv, err := do.check(fs)
	if err != nil {
		return err
	}
	if do.profile != "" {
		if err := writeProfile(ctx, do, o.workers, stderr, o.noTiming); err != nil {
			return err
		}
	}
	var rdpCurve *rdp.Curve
	if do.sigma > 0 {
		if rdpCurve, err = amplifiedGaussian(ctx, do, o.workers); err != nil {
			return err
		}
	}
	cmp, err := hockey.Compare(ctx, hockey.Params{D: do.d, K: do.k, C: do.c, Eps: do.eps, Delta: do.delta}, epsOuts)
	if err != nil {
		return err
	}
	rows := make([]*deltaRow, 0, len(cmp))
	failed := 0
	for _, res := range cmp {
		eo := res.EpsOut
		row := &deltaRow{D: do.d, K: do.k, C: do.c, Eps: do.eps, Delta: do.delta, EpsOut: eo,
			DeltaOut: res.Lower, DeltaOutUpper: res.Upper, Method: res.Method, Corners: res.Corners[:],
			Dobrushin: res.Theorem1[0], DobrushinHS: res.Theorem1[1], Doeblin: res.Theorem1[2], UltraMixing: res.Theorem1[3]}
		row.Check = checkDelta(ctx, res, row, do.noCheck, stderr)
		if do.certOut != "" && res.Certificate != nil && row.Check != bernamp.CheckRejected {
			if err := os.MkdirAll(do.certOut, 0o777); err != nil {
				return err
			}
			if _, err := res.Certificate.WriteDir(do.certOut); err != nil {
				return err
			}
		}
		if !o.noTiming {
			row.Seconds = math.Round(res.Seconds*1e4) / 1e4
		}
		if rdpCurve != nil {
			dl, order, err := rdp.DeltaAt(*rdpCurve, eo, conv)
			if err != nil {
				return err
			}
			row.RDPRoute, row.RDPOrder = &dl, &order
		}
		if msg := res.CrossCheck(); msg != "" {
			failed++
			fmt.Fprintf(stderr, "bernamp: cross-check failed at eps_out=%s: %s\n", fmtFloat(eo), msg)
		}
		rows = append(rows, row)
	}
	switch do.format {
	case "csv":
		if err := writeCSV(stdout, deltaHeader, rows); err != nil {
			return err
		}
	case "json":
		if err := writeJSON(stdout, rows); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d rows failed the cross-check", failed, len(rows))
	}
	return nil
}

// check validates the flags of delta and returns the eps' values and the
// conversion. Every error is a usage error naming the flag.
func (do *deltaOptions) check(fs *flag.FlagSet) ([]float64, rdp.Conversion, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := check.D(do.d); err != nil {
		return nil, 0, flagError("d", err)
	}
	if err := check.K(do.k); err != nil {
		return nil, 0, flagError("k", err)
	}
	if err := check.C(do.c); err != nil {
		return nil, 0, flagError("c", err)
	}
	if !set["eps"] {
		return nil, 0, usagef("--eps: needed (the DP level of the mechanism)")
	}
	if err := check.Eps(do.eps); err != nil {
		return nil, 0, flagError("eps", err)
	}
	switch {
	case set["gaussian"] && set["delta"]:
		return nil, 0, usagef("--delta: give either --delta or --gaussian, not both")
	case set["gaussian"]:
		if !(do.sigma > 0) || math.IsInf(do.sigma, 1) {
			return nil, 0, usagef("--gaussian: sigma is %v, must be > 0 and finite", do.sigma)
		}
		do.delta = hockey.Gaussian(do.sigma, do.eps)
		if math.IsNaN(do.delta) {
			return nil, 0, usagef("--gaussian: the Gaussian's delta at sigma %v and eps %v cannot be computed in float64", do.sigma, do.eps)
		}
		if do.delta >= 1 {
			return nil, 0, usagef("--eps: the Gaussian's delta at eps %v is %v, must be < 1", do.eps, do.delta)
		}
	case set["delta"]:
		if err := hockey.CheckDelta(do.delta); err != nil {
			return nil, 0, flagError("delta", err)
		}
	default:
		return nil, 0, usagef("--delta: give --delta DELTA or --gaussian SIGMA")
	}
	conv, err := rdp.ParseConversion(do.conversion)
	if err != nil {
		return nil, 0, flagError("conversion", err)
	}
	if set["conversion"] && !set["gaussian"] {
		return nil, 0, usagef("--conversion: only with --gaussian (the RDP route)")
	}
	switch do.format {
	case "csv", "json":
	default:
		return nil, 0, usagef("--format: format is %q, must be csv or json", do.format)
	}
	if do.rdpTimeout < 0 {
		return nil, 0, usagef("--rdp-timeout: rdp-timeout is %v, must be >= 0", do.rdpTimeout)
	}
	epsOuts := []float64{0, do.eps / 4, do.eps / 2, do.eps / 4 * 3, do.eps} // 3 eps would overflow near the largest float
	if do.eps == 0 {
		epsOuts = []float64{0}
	}
	if set["eps-out"] {
		if epsOuts, err = parseFloats(do.epsOut); err != nil {
			return nil, 0, flagError("eps-out", err)
		}
		for _, e := range epsOuts {
			if !(e >= 0) || math.IsInf(e, 1) {
				return nil, 0, usagef("--eps-out: eps_out is %v, must be >= 0 and finite", e)
			}
		}
	}
	// Work enumerates the configurations of d, C(d+6, 6) of them, and sums
	// prod_t (k n_t + 1) over them: at least sum prod_t (n_t + 1), which is
	// C(d+13, 13) (the coefficient of x^d in (1-x)^-14). A d with
	// C(d+13, 13) > MaxWork (d >= 14), or a k past MaxWork, is refused
	// before the configurations are enumerated.
	least := 1.0
	for i := 1; i < 2*corner.Patterns; i++ {
		least = least * (float64(do.d) + float64(i)) / float64(i) // C(d+i, i), rounded
	}
	if least > hockey.MaxWork || do.k > hockey.MaxWork || hockey.Work(do.d, do.k) > hockey.MaxWork {
		return nil, 0, usagef("--d, --k: d=%d k=%d needs more than %d outputs (hockey.MaxWork)", do.d, do.k, hockey.MaxWork)
	}
	if err := (mixing.Kernel{D: do.d, K: do.k, C: do.c}).Validate(); err != nil {
		return nil, 0, usagef("--d, --k: %s", bare(err))
	}
	if err := do.checkProfile(set); err != nil {
		return nil, 0, err
	}
	return epsOuts, conv, nil
}

// amplifiedGaussian returns the amplified RDP curve of the Gaussian
// mechanism with noise do.sigma on rdp.DefaultOrders (accountant.Amplify:
// bernamp.Post's proved upper bound at each order, certified at d = 1; at
// d >= 2 the bound proved within do.rdpTimeout per order, the closed form
// at worst).
func amplifiedGaussian(ctx context.Context, do deltaOptions, workers int) (*rdp.Curve, error) {
	in, err := rdp.Gaussian(do.sigma, nil)
	if err != nil {
		return nil, usagef("--gaussian: %s", bare(err))
	}
	s := &bernamp.Settings{Timeout: do.rdpTimeout, Workers: 1, Check: !do.noCheck}
	c, _, err := accountant.Amplify(ctx, accountant.FromRDP(in), accountant.Kernel{D: do.d, K: do.k, C: do.c}, s, workers)
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, fmt.Errorf("interrupted while amplifying the RDP curve")
	case err != nil:
		return nil, fmt.Errorf("rdp route: %w", err)
	}
	return &c, nil
}

// maxProfilePoints is the largest grid of --profile.
const maxProfilePoints = 10_000_001

// checkProfile validates --profile, --profile-step and --profile-max and
// sets the default of --profile-max: d k log((1-c)/c), the largest privacy
// loss of the release (every output's probabilities under two inputs are
// within the factor ((1-c)/c)^(d k)), so delta' = 0 from there on.
func (do *deltaOptions) checkProfile(set map[string]bool) error {
	if do.profile == "" {
		for _, f := range []string{"profile-step", "profile-max"} {
			if set[f] {
				return usagef("--%s: only with --profile", f)
			}
		}
		return nil
	}
	if !(do.profileStep > 0) || math.IsInf(do.profileStep, 1) {
		return usagef("--profile-step: step is %v, must be > 0 and finite", do.profileStep)
	}
	if !set["profile-max"] {
		do.profileMax = math.Min(float64(do.d)*float64(do.k)*math.Log((1-do.c)/do.c), hockey.MaxProfileEps)
	}
	if !(do.profileMax > 0 && do.profileMax <= hockey.MaxProfileEps) {
		return usagef("--profile-max: max is %v, must be in (0, %v]", do.profileMax, hockey.MaxProfileEps)
	}
	half := math.Ceil(do.profileMax / do.profileStep)
	if n := 2*half + 1; n > maxProfilePoints {
		return usagef("--profile-step, --profile-max: %.0f eps' values, at most %d", n, maxProfilePoints)
	}
	if half*do.profileStep > hockey.MaxProfileEps {
		return usagef("--profile-max: the grid passes %v", hockey.MaxProfileEps)
	}
	if w, _ := hockey.ProfileWork(do.d, do.k, int(2*half+1)); w > hockey.MaxProfileWork {
		return usagef("--profile-step, --profile-max: d=%d k=%d at %.0f eps' values needs more than %d terms (hockey.MaxProfileWork)",
			do.d, do.k, 2*half+1, hockey.MaxProfileWork)
	}
	return nil
}

// profileFile is the JSON written by --profile. The eps' grid is
// epsilons[i] = (rounded_epsilon_lower + i) * discretization (float64
// products, as numpy forms them); deltas is the valid profile
// (hockey.Envelope of the upper bounds: rounded up, non-increasing, convex
// in e^eps'); probs and infinity_mass are its connect-the-dots privacy loss
// distribution (hockey.ConnectDots), probs[i] on the loss epsilons[i].
type profileFile struct {
	D            int       `json:"d"`
	K            int       `json:"k"`
	C            float64   `json:"c"`
	Eps          float64   `json:"eps"`
	Delta        float64   `json:"delta"`
	Sigma        float64   `json:"gaussian_sigma,omitempty"`
	Method       string    `json:"method"`
	Proved       bool      `json:"proved"`    // false with MethodCorners: rests on the corner conjecture
	Symmetric    bool      `json:"symmetric"` // the profile bounds both orders (always true)
	Disc         float64   `json:"discretization"`
	Lo           int       `json:"rounded_epsilon_lower"`
	Hi           int       `json:"rounded_epsilon_upper"`
	Epsilons     []float64 `json:"epsilons"`
	Deltas       []float64 `json:"deltas"`
	Probs        []float64 `json:"probs"`
	InfinityMass float64   `json:"infinity_mass"`
	// Excess is sum(probs) + infinity_mass - 1: the negative rounding
	// residues clipped to 0, as dp_accounting clips them (extra mass at
	// finite losses only raises delta at every eps: the pessimistic side).
	Excess  float64 `json:"clipped_mass"`
	Seconds float64 `json:"seconds"` // 0 with --no-timing
}

// writeProfile computes the amplified privacy profile on the grid of
// --profile (hockey.ProfileGrid, on workers goroutines) and writes it
// (profileFile) to do.profile, with one line on stderr.
func writeProfile(ctx context.Context, do deltaOptions, workers int, stderr io.Writer, noTiming bool) error {
	p := hockey.Params{D: do.d, K: do.k, C: do.c, Eps: do.eps, Delta: do.delta}
	g, err := hockey.ProfileGrid(ctx, p, do.profileStep, do.profileMax, workers)
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted while computing the profile")
	case err != nil:
		return err
	}
	f := profileFile{D: do.d, K: do.k, C: do.c, Eps: do.eps, Delta: do.delta, Sigma: do.sigma,
		Method: g.Method, Proved: g.Method != hockey.MethodCorners, Symmetric: true,
		Disc: g.Step, Lo: g.Lo, Hi: g.Hi, Epsilons: g.Epsilons, Deltas: g.Deltas, Probs: g.Probs,
		InfinityMass: g.InfinityMass, Excess: g.Excess}
	if !noTiming {
		f.Seconds = math.Round(g.Seconds*1e4) / 1e4
	}
	if err := writeFileAtomic(do.profile, func(w io.Writer) error { return writeJSON(w, f) }); err != nil {
		return err
	}
	eps := g.Epsilons
	fmt.Fprintf(stderr, "bernamp: profile: %d eps' values in [%s, %s] step %s, delta'(0) <= %s, infinity mass %s, %s: %s\n",
		len(eps), fmtFloat(eps[0]), fmtFloat(eps[len(eps)-1]), fmtFloat(g.Step), fmtFloat(g.Deltas[g.Hi]), fmtFloat(g.InfinityMass), g.Method, do.profile)
	return nil
}

// checkDelta has the independent checker re-prove the certificate of
// res.Upper (unless noCheck) and returns the check column; a verified
// claim above res.Upper (hockey.Result.Certificate) becomes delta_out_upper. A rejected
// bound is not used: row.DeltaOutUpper becomes the least of Theorem 1's
// bounds and 1, each proved, and stderr says why.
func checkDelta(ctx context.Context, res hockey.Comparison, row *deltaRow, noCheck bool, stderr io.Writer) string {
	switch {
	case noCheck:
		return bernamp.CheckOff
	case res.Certificate == nil:
		return bernamp.CheckNone
	}
	c := bernamp.CheckCertificate(ctx, res.Certificate)
	if claim, err := strconv.ParseFloat(res.Certificate.Claim, 64); c.Status == bernamp.CheckVerified && err == nil {
		// The number reported is the one the checker proved (past the
		// corner program's reach, the pieces bound above Upper).
		row.DeltaOutUpper = math.Max(row.DeltaOutUpper, claim)
	}
	if c.Status == bernamp.CheckRejected {
		up := 1.0
		for _, t := range res.Theorem1 {
			if t != nil {
				up = math.Min(up, *t)
			}
		}
		row.DeltaOutUpper = math.Max(up, row.DeltaOut)
		fmt.Fprintf(stderr, "bernamp: eps_out=%s: the checker did not accept delta_out_upper's certificate (%s); delta_out_upper is %s (Theorem 1, or 1)\n",
			fmtFloat(row.EpsOut), c.Failure, fmtFloat(row.DeltaOutUpper))
	}
	return c.Status
}
