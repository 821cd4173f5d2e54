// Package bernamp computes how much Rényi differential privacy is gained
// when, instead of a private parameter theta in [c, 1-c]^d, one releases k
// samples of d independent Bernoulli coins with biases theta (Imola and
// Chaudhuri, "Privacy Amplification via Bernoulli Sampling", ICML 2021).
//
// For a mechanism that is (alpha, eps)-RDP, the released samples are
// (alpha, Post)-RDP with Post = Post_{alpha,k}(eps) <= eps. Post solves a
// non-convex program over the 2^d corner distributions; bernamp reports
// every answer as a proved interval:
//
//	LB <= Post <= PostUpper <= UB,
//
// where LB is the paper's closed-form lower bound (Theorem 4), UB = min(eps,
// d k r_alpha(c)), Post is the verified value of an explicit witness pair
// and PostUpper a proved upper bound. A privacy claim must use PostUpper.
package bernamp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/solver"
	"github.com/bernamp/bernamp/verify"
)

// Params is one grid point.
type Params struct {
	D     int     // dimension of theta, >= 1
	K     int     // Bernoulli samples released, >= 1
	C     float64 // range constant: theta in [C, 1-C]^D, 0 < C < 1/2
	Alpha float64 // Rényi order, > 1 and finite
	Eps   float64 // RDP level of the mechanism at order Alpha, in nats, >= 0 and finite
}

// Validate returns an error naming the first parameter outside its domain.
func (p Params) Validate() error {
	_, err := p.point()
	return err
}

// point validates p once, where it enters (Post): the check.ValidPoint it
// returns is passed down, and no layer below checks it again.
func (p Params) point() (check.ValidPoint, error) {
	return check.NewValidPoint(p.D, p.K, p.C, p.Alpha, p.Eps)
}

// Cost is a rough estimate of the relative time Post takes at p, for
// scheduling and balancing only: the d = 1 certificate grows about as
// (k+1)^2 and the search for d >= 2 as the number of outputs (k+1)^d
// (docs/engine.md). It says nothing about any one point's time.
func (p Params) Cost() float64 {
	if p.D == 1 {
		return float64((p.K + 1) * (p.K + 1))
	}
	return 100 * math.Pow(float64(p.K+1), float64(p.D))
}

// Status values of a Result, as printed.
const (
	StatusCertified = "certified" // PostUpper - Post <= Tol is proved
	StatusWitness   = "witness"   // Post is a verified witness above LB, PostUpper a looser proved bound
	StatusBounds    = "bounds"    // only the closed-form bounds: Post = LB, PostUpper = UB
)

// Conjecture values of a Result: how the point bears on the paper's
// conjecture Post = LB.
const (
	ConjectureProved  = "proved"  // PostUpper - LB <= Tol: Post = LB within Tol
	ConjectureOpen    = "open"    // neither proved nor refuted at this point
	ConjectureRefuted = "refuted" // a verified witness exceeds LB by more than Tol
)

// Result is the answer at one point. All values are in nats.
type Result struct {
	Params
	Ranges           []bounds.Range // per-coordinate ranges (PostRanges, BoundsRanges); nil for [C, 1-C]^D
	LB               float64        // Theorem 4 lower bound (a lower bound on Post)
	UB               float64        // min(UBPostProcessing, UBAsymptote) (an upper bound on Post)
	UBPostProcessing float64        // eps
	UBAsymptote      float64        // d k r_alpha(c), rounded up
	Theorem2         float64        // Theorem 2 lower bound for K = 1 (<= LB); 0 when K > 1 or vacuous
	Post             float64        // best verified value: a lower bound on Post, >= LB
	PostUpper        float64        // best proved upper bound on Post, <= UB
	Status           string         // StatusCertified, StatusWitness or StatusBounds
	Excess           float64        // Post - LB: above Tol it refutes the paper's conjecture
	Conjecture       string         // ConjectureProved, ConjectureOpen or ConjectureRefuted
	Method           string         // how PostUpper was proved
	Witness          *Witness
	Search           *Search
	Pieces           *Pieces // the whole-box two-point-pieces proof at n = D K, nil when none was run
	// Certificate is the proof behind PostUpper as the file the
	// independent checker reads (package verify; bernamp post
	// --certificate-out writes it): the pieces inequality's tiling, or the
	// closed form (certfile.KindClosedForm) where PostUpper is UB. It is
	// nil for per-coordinate ranges whose PostUpper is not a pieces bound.
	Certificate *certfile.File
	Check       Check   // the independent check of Certificate
	Note        string  // why an exact engine did not run (alpha near 1, past its reach or the memory cap); "" otherwise
	Seconds     float64 // wall time of the solve (the check included)
}

// Check is what the independent checker (package verify: exact rationals
// and outward-rounded interval arithmetic, no code shared with the solver)
// said of the certificate behind PostUpper.
type Check struct {
	// Status is CheckVerified, CheckRejected, CheckOff or CheckNone.
	Status  string
	Failure string  // why the checker rejected the certificate (CheckRejected)
	Tiles   int     // tiles of the certificate
	Boxes   int     // boxes the checker bounded (tiles and their pieces)
	Seconds float64 // wall time of the check
}

// CheckFallback is the checker's budget of boxes re-tried in big.Float
// (verify.Options.MaxFallback) when Post checks a certificate. The float64
// bounds (which carry log p and log(1-p), so logits far beyond 700 are
// fine) close every tile of the paper's grids but a few boxes; where they
// do not (a Taylor form centred at p = e^-3870, at c = 1e-6, alpha 1.01,
// eps 50), a big.Float box costs up to seconds, so the budget keeps the
// check's time near the solver's. Past it the certificate is rejected and PostUpper is UB: the
// answer stays deterministic and on the safe side (bernamp verify, without
// a budget, can still accept the file).
const CheckFallback = 16

// CheckExtraPerBox and CheckExtraBase cap the boxes the checker may bound
// beyond a pieces certificate's tiles when Post checks it
// (verify.Options.MaxExtra): CheckExtraPerBox per box the solver bounded,
// plus CheckExtraBase. Honest files of the paper's grids close tile by
// tile (no extra box); where the checker's enclosures are much wider than
// the solver's (at n = 400, c = 0.499, alpha = 1000, eps = 1 it split 277
// tiles into 12,484 boxes for 130 s and still rejected the file, against
// the solver's 552 boxes in 0.1 s), the cap ends the check in about five
// times the solver's boxes. Past it the file is rejected, as for
// CheckFallback, and bernamp verify (uncapped) may still accept it.
const (
	CheckExtraPerBox = 4
	CheckExtraBase   = 64
)

// Method values of a Result where PostUpper is the pieces certificate's
// bound (elsewhere Method is the closed form's name, solver.MethodClosedForm).
const (
	MethodPieces       = "two-point pieces (n = d k)"
	MethodPiecesRanges = "two-point pieces (symmetric ranges, n = d k)"
)

// Check statuses: which check stands behind PostUpper.
const (
	// CheckVerified: the checker re-proved the pieces certificate; PostUpper
	// is its claim.
	CheckVerified = "verified"
	// CheckRejected: the checker did not accept the certificate (or could not
	// finish); PostUpper fell back to UB, and Note says why.
	CheckRejected = "rejected"
	// CheckOff: the check was not asked for (Settings.Check); PostUpper rests on the solver's rounding
	// model alone (docs/certificates.md, "Rounding").
	CheckOff = "off"
	// CheckNone: no certificate is behind PostUpper: it is the closed form
	// UB (computed in float64 and rounded up, package bounds).
	CheckNone = "none"
)

// Pieces records the two-point-pieces certificate at n = D K
// (certify.Certify, docs/engine.md): a proved upper bound on Post over the
// whole box [C, 1-C]^D for every (D, K) with the same product.
type Pieces struct {
	N         int     // D K
	Upper     float64 // proved upper bound on Post, in nats (above Post)
	Proved    bool    // Upper - LB <= Tol: Post = LB within Tol over the whole box
	Boxes     int     // boxes of the branch and bound
	Violation bool    // a point where the inequality with the first-order multipliers fails
	Seconds   float64 // wall time
}

// Witness is an explicit feasible pair (P, Q) of corner distributions.
type Witness struct {
	Corners []string  // support, as bit strings: bit l = 0 means theta_l = c (Lo_l with ranges)
	P, Q    []float64 // masses on Corners
	Value   float64   // R_alpha(B_k(P) || B_k(Q)), recomputed from P and Q
	DivPQ   float64   // R_alpha(P || Q) <= eps
	DivQP   float64   // R_alpha(Q || P) <= eps
}

// Search records the work behind Post and PostUpper: the branch and bound
// for D = 1, the configuration search for D >= 2.
type Search struct {
	Complete  bool    // false when the search was cut short (timeout, box limit)
	Boxes     int     // branch-and-bound nodes bounded
	Open      int     // nodes still above the target when the search stopped
	Cuts      int     // tangent cuts generated
	Evals     int     // objective evaluations
	OpenBound float64 // largest bound among open nodes
	Configs   int     // support configurations, C(D+6, 6)
	Searched  int     // configurations screened
	Deep      int     // configurations searched deeply
	Pruned    int     // configurations pruned by a proved bound
}

// Settings tunes Post. A nil *Settings means every default.
type Settings struct {
	// Tol is the certified gap in nats; 0 means 1e-9.
	Tol float64
	// Timeout bounds the solve of one point and, separately, the
	// independent check of its pieces certificate (Check), so that a point
	// takes at most about twice Timeout; 0 means no limit. A solve cut
	// short keeps the best proved bound and says so in Search.Complete; a
	// check cut short does not accept the certificate (CheckRejected,
	// PostUpper falls back to UB).
	Timeout time.Duration
	// BoundsOnly skips the solver: Post = LB and PostUpper = UB.
	BoundsOnly bool
	// Method is the evaluator of the configuration search for D >= 2:
	// "reduced" (the default, "" means it) or "full".
	Method string
	// Workers is the number of goroutines one point may use; 0 means
	// runtime.GOMAXPROCS(0). The answer does not depend on it.
	Workers int
	// NoCertify skips the certificate: PostUpper is then the closed form.
	// Otherwise the two-point-pieces certificate runs first, at n = D K <=
	// certify.MaxN, with up to PiecesBoxes(MaxMemory) boxes and, when
	// Timeout is 0, for at most DefaultCertTimeout; only where it does not
	// close does the witness search run.
	NoCertify bool
	// MaxMemory caps, in bytes, what one point may hold by the engines'
	// estimates (solver.SearchSize, solver.OneBoxBytes); 0 means
	// DefaultMaxMemory. An engine that would need more does not run, and
	// Result.Note says so. It also sizes the pieces certificate's budget
	// (PiecesBoxes).
	MaxMemory int64
	// Check has the independent checker (package verify) re-prove every
	// pieces bound that lowers PostUpper from its certificate file; a bound
	// it does not accept (or that has no certificate) is then not used:
	// PostUpper falls back to UB. Off by default in the Go API (the CLI,
	// the page and the Python client turn it on): the checker's time is
	// about half the solver's on the paper's grids but reaches seconds at
	// extreme points, where its budget (CheckFallback, CheckExtraPerBox)
	// may reject the file (docs/certificates.md).
	Check bool
	// fault moves the pieces proof off its usual path (certify.Fault), for
	// tests of the fallbacks' certificates in this package only.
	fault certify.Fault
}

// DefaultMaxMemory is the memory cap of one point when Settings.MaxMemory
// is 0: 1 GiB.
const DefaultMaxMemory = solver.DefaultMaxMemory

// DefaultCertTimeout bounds the certificate of one point when
// Settings.Timeout is 0; a point cut short keeps the bound proved so far.
const DefaultCertTimeout = time.Minute

func (s *Settings) tol() float64 {
	if s == nil || s.Tol == 0 {
		return solver.DefaultTol
	}
	return s.Tol
}

// Bounds returns the closed-form bounds at p: Post = LB, PostUpper = UB and
// Status "bounds" ("certified" when UB - LB <= tol already).
func Bounds(p Params) (Result, error) {
	return Post(context.Background(), p, &Settings{BoundsOnly: true})
}

// Post computes the amplified level at p over the whole box [C, 1-C]^D.
// Unless s.NoCertify, the two-point-pieces certificate at n = D K
// (certify.Certify) runs first; where it proves Post = LB within Tol the
// Theorem 4 pair is the witness and Status is "certified". Elsewhere the
// witness search (solver.One for D = 1, solver.Maximize for D >= 2) looks
// for a better pair; Status is then "certified" when PostUpper - Post <=
// Tol, otherwise "witness" with the best bound proved (the closed form at
// worst). PostUpper comes from the pieces certificate or the closed form
// only: one certificate path (docs/certificates.md).
//
// Errors are returned only for invalid p or s; a cancelled ctx ends the
// search early and the Result keeps the bound proved so far.
func Post(ctx context.Context, p Params, s *Settings) (Result, error) {
	pt, err := p.point()
	if err != nil {
		return Result{}, fmt.Errorf("bernamp.Post: %w", err)
	}
	tol := s.tol()
	if !(tol > 0) || math.IsInf(tol, 1) {
		return Result{}, fmt.Errorf("bernamp.Post: tol is %v, must be > 0 and finite", tol)
	}
	start := time.Now()
	u := bounds.UpperAt(pt)
	r := Result{
		Params:           p,
		LB:               bounds.LowerAt(pt),
		UB:               u.Value(),
		UBPostProcessing: u.PostProcessing,
		UBAsymptote:      u.Asymptote,
		Method:           solver.MethodClosedForm,
	}
	if p.K == 1 {
		r.Theorem2 = bounds.Theorem2At(pt)
	}
	r.Post, r.PostUpper, r.Status = r.LB, r.UB, StatusBounds
	if r.UB-r.LB <= tol {
		r.Status = StatusCertified
	}
	if s == nil {
		s = &Settings{}
	}
	r.Check.Status = CheckNone
	if !s.BoundsOnly {
		checkCtx := ctx // the check has its own time limit (checkPieces), not the solve's
		if s.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.Timeout)
			defer cancel()
		}
		runPieces, runSearch, note := reach(p, s, tol)
		if r.Status != StatusCertified {
			r.Note = note
		}
		if runPieces && !s.NoCertify && r.Status != StatusCertified {
			if err := pieces(ctx, checkCtx, p, pt, s, tol, &r); err != nil {
				return Result{}, fmt.Errorf("bernamp.Post: %w", err)
			}
		}
		if runSearch && r.Status != StatusCertified {
			if err := search(ctx, pt, s, tol, &r); err != nil {
				return Result{}, fmt.Errorf("bernamp.Post: %w", err)
			}
		}
		if r.Witness == nil {
			r.Witness = theorem4(pt, r.LB)
		}
	}
	if r.Certificate == nil && r.PostUpper == r.UB {
		// The closed form's check costs microseconds: the solve's time
		// limit does not cut it.
		closedForm(context.WithoutCancel(ctx), s, certfile.NewClosedForm(r.D, r.K, r.C, r.Alpha, r.Eps, r.UB, r.LB), &r)
	}
	r.Excess = r.Post - r.LB
	switch {
	case r.Excess > tol:
		r.Conjecture = ConjectureRefuted
	case r.PostUpper-r.LB <= tol:
		r.Conjecture = ConjectureProved
	default:
		r.Conjecture = ConjectureOpen
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// reach is the size guard of Post: it says, before any work, which engines
// run at p and, when one does not, why. Near alpha = 1 (solver.NearOne)
// none does: float64 cannot resolve tol in (alpha-1) R_alpha there, and the
// answer is the closed forms, which package bounds computes with relative
// accuracy at every alpha > 1. The witness search runs when within its
// reach and the memory cap: K <= solver.OneMaxK for D = 1,
// solver.SearchFits for D >= 2. The pieces certificate limits itself to n
// = D K <= certify.MaxN.
func reach(p Params, s *Settings, tol float64) (runPieces, runSearch bool, note string) {
	if solver.NearOne(p.Alpha, tol) {
		return false, false, fmt.Sprintf("closed forms only: alpha - 1 = %.3g is below 1e-13/max(tol, 1e-9) = %.3g, where float64 cannot resolve tol in (alpha-1) R_alpha", p.Alpha-1, 1e-13/max(tol, solver.DefaultTol))
	}
	var err error
	switch {
	case p.D == 1 && p.K > solver.OneMaxK:
		err = fmt.Errorf("k = %d is more than %d", p.K, solver.OneMaxK)
	case p.D >= 2:
		mem := s.MaxMemory
		if mem <= 0 {
			mem = DefaultMaxMemory
		}
		workers := s.Workers
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		err = solver.SearchFits(p.D, p.K, workers, mem)
	}
	if err == nil {
		return true, true, ""
	}
	note = "witness search skipped: " + err.Error()
	if n := float64(p.D) * float64(p.K); n > certify.MaxN {
		note += fmt.Sprintf("; two-point pieces skipped: n = d k = %.0f is more than %d", n, certify.MaxN)
	}
	return true, false, note
}

// PiecesBoxes returns the boxes the pieces certificate of one point may
// bound under a memory cap of mem bytes (0 means DefaultMaxMemory): the
// most whose certify.MemoryBytes fits, at most 1,000,000 and at least
// 100,000. Every point of the paper's grids closes within 10,000 boxes, and
// every point of the survey that the earlier corner certificates closed
// within 700,000 (docs/certificates.md).
func PiecesBoxes(mem int64) int {
	if mem <= 0 {
		mem = DefaultMaxMemory
	}
	lo, hi := 100_000, 1_000_000
	if certify.MemoryBytes(hi) <= mem {
		return hi
	}
	for lo < hi { // the largest b with MemoryBytes(b) <= mem, or 100,000
		m := lo + (hi-lo+1)/2
		if certify.MemoryBytes(m) <= mem {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// pieces runs the two-point-pieces certificate at n = D K and keeps what it
// proves: it holds over the whole box for every K.
// The check runs under checkCtx, which the solve's time limit does not cut
// (checkPieces gives it its own).
func pieces(ctx, checkCtx context.Context, p Params, pt check.ValidPoint, s *Settings, tol float64, r *Result) error {
	n := p.D * p.K
	if n > certify.MaxN || n/p.K != p.D {
		return nil
	}
	if s.Timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCertTimeout)
		defer cancel()
	}
	c, err := certify.CertifyAt(ctx, pt, pieceSettings(s, tol))
	if err != nil {
		return err
	}
	if keepPieces(c, MethodPieces, tol, r) {
		// Every pieces bound (the first-order multipliers, pieces-max or
		// pieces-lp) keeps its tiling: a bound without its file is a bug.
		if r.Certificate = c.File(p.D, p.K); r.Certificate == nil {
			return fmt.Errorf("bernamp: the pieces bound %v (%s, %d tiles) has no certificate file (a bug)", c.Upper, c.Method, len(c.Tiling))
		}
		checkPieces(checkCtx, s, tol, r)
	}
	return nil
}

// pieceSettings is the pieces certificate's budget in Post and PostRanges;
// the tiling is kept, so that the certificate checked and exported is the
// proof this run found.
func pieceSettings(s *Settings, tol float64) *certify.Settings {
	return &certify.Settings{Tol: tol, MaxBoxes: PiecesBoxes(s.MaxMemory), Tiling: true, Fault: s.fault}
}

// keepPieces records the certificate c in r and lowers r.PostUpper to its
// bound, named method; it says whether it did.
func keepPieces(c certify.Result, method string, tol float64, r *Result) bool {
	r.Pieces = &Pieces{N: c.N, Upper: c.Upper, Proved: c.Status == certify.Proved, Boxes: c.Boxes,
		Violation: c.Violation, Seconds: c.Seconds}
	if !(c.Upper < r.PostUpper) {
		return false
	}
	r.PostUpper, r.Method = c.Upper, method
	if r.PostUpper-r.Post <= tol {
		r.Status = StatusCertified
	}
	return true
}

// checkPieces has the independent checker re-prove r.Certificate, the
// proof behind r.PostUpper: the pieces inequality with the first-order
// multipliers, or where it fails the pieces-max or pieces-lp proof (the
// file records which). Unless it accepts, the pieces bound is not used:
// PostUpper falls back to UB and Note says why, so that no number rests on
// a proof the checker has not seen (the ranges' bound has its ranges
// certificate, or with every c_l equal the pieces one).
func checkPieces(ctx context.Context, s *Settings, tol float64, r *Result) {
	if !s.Check {
		r.Check = Check{Status: CheckOff}
		return
	}
	if r.Certificate == nil {
		dropPieces(r, fmt.Sprintf("the pieces bound %.9g has no certificate for the checker (without the check it is kept)", r.PostUpper), tol)
		r.Check = Check{Status: CheckNone}
		return
	}
	o := &verify.Options{MaxFallback: CheckFallback}
	if r.Pieces != nil {
		o.MaxExtra = CheckExtraPerBox*r.Pieces.Boxes + CheckExtraBase
	}
	parent := ctx
	if s.Timeout > 0 {
		// The check has a time limit of its own, the solve's: without it a
		// certificate found just before the solve's limit could cost many
		// times that limit to check (seconds per thousand tiles), and a
		// point's time would be unbounded (docs/grids.md, "Shards").
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	r.Check = checkWith(ctx, r.Certificate, o)
	if r.Check.Status == CheckRejected && parent.Err() == nil && ctx.Err() != nil {
		r.Check.Failure = fmt.Sprintf("the check was cut by its time limit (%v) after %d boxes", s.Timeout, r.Check.Boxes)
	}
	if r.Check.Status == CheckRejected {
		dropPieces(r, "the checker did not accept the pieces certificate: "+r.Check.Failure, tol)
	}
}

// CheckCertificate has the independent checker (package verify) re-prove
// f, of any kind, with the budget CheckFallback: Status is CheckVerified
// when it accepts, CheckRejected (with the reason) when it does not or
// cannot finish (ctx cancelled). A number whose certificate is rejected
// must not be claimed.
func CheckCertificate(ctx context.Context, f *certfile.File) Check {
	return checkWith(ctx, f, &verify.Options{MaxFallback: CheckFallback})
}

// checkWith is CheckCertificate with the checker's options o.
func checkWith(ctx context.Context, f *certfile.File, o *verify.Options) Check {
	start := time.Now()
	rep, err := verify.Check(ctx, f, o)
	c := Check{Status: CheckVerified, Tiles: rep.Tiles, Boxes: rep.Boxes, Seconds: time.Since(start).Seconds()}
	switch {
	case errors.Is(err, verify.ErrUnsupported):
		c.Status, c.Failure = CheckNone, err.Error()
	case err != nil:
		c.Status, c.Failure = CheckRejected, err.Error()
	case !rep.Accepted:
		c.Status, c.Failure = CheckRejected, rep.Failure
	}
	return c
}

// closedForm records f, the closed-form certificate of r.PostUpper = r.UB
// (certfile.KindClosedForm: Post <= min(eps, d k r_alpha(c)), or for
// ranges its sum over groups, closedFormRanges), and, with s.Check, has
// the checker recompute it. Should the checker not accept it, Status is
// StatusBounds, never certified, and Note says why.
func closedForm(ctx context.Context, s *Settings, f *certfile.File, r *Result) {
	r.Certificate = f
	if !s.Check {
		r.Check = Check{Status: CheckOff}
		return
	}
	if r.Check = CheckCertificate(ctx, r.Certificate); r.Check.Status == CheckRejected {
		r.Status = StatusBounds
		r.Note = strings.TrimPrefix(r.Note+"; ", "; ") + "the checker did not accept the closed form: " + r.Check.Failure
	}
}

// closedFormRanges returns the closed-form certificate of the ranges'
// UB (certfile.KindClosedForm with groups: Post <= min(eps, sum_g n_g
// max(R(lo_g || hi_g), R(hi_g || lo_g))), bounds.RangeUpperBound's sum
// with the coordinates of equal ranges grouped, n_g = k times their
// number, in increasing (Lo, Hi)), or nil and why where the ranges have
// more than certfile.MaxClosedFormGroups distinct ranges.
func closedFormRanges(r *Result) (*certfile.File, string) {
	rs := slices.Clone(r.Ranges)
	slices.SortFunc(rs, func(a, b bounds.Range) int {
		if c := cmp.Compare(a.Lo, b.Lo); c != 0 {
			return c
		}
		return cmp.Compare(a.Hi, b.Hi)
	})
	var n []int
	var lo, hi []float64
	for i, x := range rs {
		if i > 0 && x == rs[i-1] {
			n[len(n)-1] += r.K
			continue
		}
		n, lo, hi = append(n, r.K), append(lo, x.Lo), append(hi, x.Hi)
	}
	if len(n) > certfile.MaxClosedFormGroups {
		return nil, fmt.Sprintf("the closed form UB has no certificate: %d distinct ranges, more than the %d groups of a certificate", len(n), certfile.MaxClosedFormGroups)
	}
	return certfile.NewClosedFormRanges(r.D, r.K, n, lo, hi, r.Alpha, r.Eps, r.UB, r.LB), ""
}

// dropPieces puts r.PostUpper back to the closed form UB, saying why.
func dropPieces(r *Result, why string, tol float64) {
	r.PostUpper, r.Method, r.Certificate = r.UB, solver.MethodClosedForm, nil
	r.Status = StatusBounds
	if r.PostUpper-r.Post <= tol {
		r.Status = StatusCertified
	}
	r.Note = strings.TrimPrefix(r.Note+"; ", "; ") + why
}

// searchRanges runs the witness search of solver.MaximizeRanges and keeps
// what it finds; a search too large for the solver leaves a note.
func searchRanges(ctx context.Context, rp bounds.RangePoint, s *Settings, tol float64, r *Result) error {
	sr, rec, err := solver.MaximizeRangesAt(ctx, rp, s.Workers, &solver.Settings{Tol: tol})
	switch {
	case errors.Is(err, solver.ErrInput):
		// The input is valid (checked by PostRanges): the search is too large.
		r.Note = strings.TrimPrefix(r.Note+"; ", "; ") + "witness search skipped: " + err.Error()
		return nil
	case err != nil:
		return err
	}
	r.Post = math.Max(sr.Lower, r.LB)
	if sr.Upper < r.PostUpper {
		r.PostUpper, r.Method = sr.Upper, sr.Method
	}
	r.Status = sr.Status.String()
	r.Witness = &Witness{Corners: sr.Corners, P: sr.P, Q: sr.Q, Value: sr.Lower, DivPQ: sr.DivPQ, DivQP: sr.DivQP}
	r.Search = &Search{Complete: rec.Complete, Evals: sr.Stats.Evals, Configs: rec.Configs, Searched: rec.Searched, Deep: rec.Deep, Pruned: rec.Pruned}
	return nil
}

// piecesRanges runs the two-point-pieces certificate for per-coordinate
// ranges (certify.CertifyRanges: through the symmetric ranges containing
// them, a proved bound over the whole box for every K) and keeps what it
// proves. Past certify.MaxRangeTerms it says so in r.Note.
func piecesRanges(ctx, checkCtx context.Context, ranges []bounds.Range, k int, s *Settings, tol float64, r *Result) error {
	if s.Timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCertTimeout)
		defer cancel()
	}
	c, err := certify.CertifyRanges(ctx, ranges, k, r.Alpha, r.Eps, pieceSettings(s, tol))
	if errors.Is(err, certify.ErrInput) {
		r.Note = "two-point pieces skipped: " + strings.TrimPrefix(err.Error(), certify.ErrInput.Error()+": ")
		return nil
	}
	if err != nil {
		return err
	}
	if keepPieces(c, MethodPiecesRanges, tol, r) {
		// Where every range has the same c_l the proof is Certify's for the
		// box [c_l, 1-c_l]^D, which contains the ranges: its file states
		// that box's bound. With several c_l it is the ranges certificate
		// (certfile.KindRanges) of the box prod_l [c_l, 1-c_l]: the groups,
		// multipliers and tiles of this run, re-checked unless Check is off.
		r.Certificate = c.File(len(ranges), k)
		checkPieces(checkCtx, s, tol, r)
	}
	return nil
}

// theorem4 returns the Theorem 4 pair as a witness: p* on 0^D and 1-p* on
// 1^D for P, mirrored for Q; both divergences are r_alpha(p*) <= eps.
// Where p* = 1/(1 + e^D) underflows (eps above about 745 + log(2)/(alpha-1))
// the float64 masses read 0 and 1; the pair meant is the exact one, with
// logit D = bounds.Logit, whose divergences r_alpha(p*) <= eps are reported
// as eps (an upper bound on them).
func theorem4(p check.ValidPoint, lb float64) *Witness {
	ps, div := bounds.PairAt(p)
	return &Witness{Corners: []string{solver.ConstCorner(0, p.D()), solver.ConstCorner(1, p.D())},
		P: []float64{ps, 1 - ps}, Q: []float64{1 - ps, ps}, Value: lb, DivPQ: div, DivQP: div}
}

// search runs the witness search (solver.Maximize) for a better Post. Its
// upper bounds hold for the corner program (for K >= 2 not over the box:
// the paper's Lemma 2 fails) and are not used: PostUpper comes from the
// pieces certificate or the closed form.
func search(ctx context.Context, p check.ValidPoint, s *Settings, tol float64, r *Result) error {
	ss := solver.Settings{Tol: tol, Method: s.Method, MaxMemory: s.MaxMemory}
	sr, rec, err := solver.MaximizeAt(ctx, p, s.Workers, &ss)
	if err != nil {
		return err
	}
	r.Post = math.Max(sr.Lower, r.LB)
	r.Witness = &Witness{Corners: sr.Corners, P: sr.P, Q: sr.Q, Value: sr.Lower, DivPQ: sr.DivPQ, DivQP: sr.DivQP}
	st := sr.Stats
	r.Search = &Search{Complete: st.Complete, Boxes: st.Boxes, Open: st.Open, Cuts: st.Cuts, Evals: st.Evals, OpenBound: st.OpenBound}
	if rec != nil {
		r.Search.Configs, r.Search.Searched, r.Search.Deep, r.Search.Pruned = rec.Configs, rec.Searched, rec.Deep, rec.Pruned
		r.Search.Complete = rec.Complete
	}
	r.Status = StatusWitness
	if r.PostUpper-r.Post <= tol {
		r.Status = StatusCertified
	}
	return nil
}

// BoundsRanges returns the closed-form bounds for theta_l in [ranges[l].Lo,
// ranges[l].Hi]: Post = LB, PostUpper = UB and Status "bounds".
func BoundsRanges(ranges []bounds.Range, k int, alpha, eps float64) (Result, error) {
	return PostRanges(context.Background(), ranges, k, alpha, eps, &Settings{BoundsOnly: true})
}

// PostRanges is Post for per-coordinate ranges, theta_l in [ranges[l].Lo,
// ranges[l].Hi], which the paper's Lemma 1 allows (corners become {Lo_l,
// Hi_l}). LB is the Theorem 4 pair on the best antipodal corners
// (bounds.RangeLower), UB = min(eps, k sum_l max R_alpha between the coins
// of Lo_l and Hi_l) (bounds.RangeUpperBound). PostUpper is the least of
// UB and the two-point-pieces certificate (certify.CertifyRanges, run first
// unless NoCertify): it bounds Post for the symmetric ranges [c_l, 1-c_l],
// c_l = min(Lo_l, 1-Hi_l), which contain the given ones, over the whole box
// for every K; for symmetric ranges it usually proves Post = LB within Tol.
// Where it does not, Post is the best verified witness of
// solver.MaximizeRanges. Status is "certified" where PostUpper is within
// Tol of Post. Where the search is too large (solver.MaxRangeDim,
// solver.MaxRangeWork) or F has more than certify.MaxRangeTerms terms, Note
// says so. Result.Params has D = len(ranges) and C = 0. Result.Certificate
// is the pieces bound's file: with several distinct c_l the ranges
// certificate (certfile.KindRanges) of prod_l [c_l, 1-c_l], else the
// pieces certificate of [c_l, 1-c_l]^D; with Check the independent
// checker re-proves it, and a bound it rejects is not used (PostUpper
// falls back to UB).
//
// The paper's conjecture Post = LB concerns [c, 1-c]^d; for asymmetric
// ranges the Theorem 4 pair is not always optimal, so Conjecture is empty
// and Excess = Post - LB says by how much the witness beats it.
func PostRanges(ctx context.Context, ranges []bounds.Range, k int, alpha, eps float64, s *Settings) (Result, error) {
	rp, err := bounds.NewRangePoint(ranges, k, alpha, eps)
	if err != nil {
		return Result{}, fmt.Errorf("bernamp.PostRanges: %w", err)
	}
	tol := s.tol()
	if !(tol > 0) || math.IsInf(tol, 1) {
		return Result{}, fmt.Errorf("bernamp.PostRanges: tol is %v, must be > 0 and finite", tol)
	}
	start := time.Now()
	u := rp.Upper()
	lb, _, err := rp.Lower()
	if err != nil {
		return Result{}, fmt.Errorf("bernamp.PostRanges: %w", err)
	}
	r := Result{
		Params:           Params{D: len(ranges), K: k, Alpha: alpha, Eps: eps},
		Ranges:           slices.Clone(ranges),
		LB:               lb,
		UB:               u.Value(),
		UBPostProcessing: u.PostProcessing,
		UBAsymptote:      u.Asymptote,
		Method:           solver.MethodClosedForm,
	}
	r.Post, r.PostUpper, r.Status = r.LB, r.UB, StatusBounds
	r.Check.Status = CheckNone
	if s == nil {
		s = &Settings{}
	}
	if !s.BoundsOnly {
		checkCtx := ctx
		if s.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.Timeout)
			defer cancel()
		}
		if !s.NoCertify && !solver.NearOne(alpha, tol) && r.UB-r.Post > tol {
			if err := piecesRanges(ctx, checkCtx, ranges, k, s, tol, &r); err != nil {
				return Result{}, fmt.Errorf("bernamp.PostRanges: %w", err)
			}
		}
		if r.Status != StatusCertified {
			if err := searchRanges(ctx, rp, s, tol, &r); err != nil {
				return Result{}, fmt.Errorf("bernamp.PostRanges: %w", err)
			}
		}
	}
	if r.PostUpper-r.Post <= tol {
		r.Status = StatusCertified
	}
	if r.Certificate == nil && r.PostUpper == r.UB {
		// The ranges' closed form, checked as Post's (microseconds).
		if f, why := closedFormRanges(&r); f != nil {
			closedForm(context.WithoutCancel(ctx), s, f, &r)
		} else {
			r.Note = strings.TrimPrefix(r.Note+"; ", "; ") + why
		}
	}
	r.Excess = r.Post - r.LB
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}
