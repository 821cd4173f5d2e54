// Package solver computes Post_{alpha,k}(eps), the worst-case Rényi level of
// order alpha after releasing k Bernoulli samples of a parameter theta in
// [c, 1-c]^d produced by an (alpha, eps)-RDP mechanism, by maximizing the
// corner program of Imola and Chaudhuri (Algorithms 1-3).
//
// The program maximizes a convex function over a convex set, so a local
// solver proves nothing. Every Result therefore carries two numbers: Lower,
// the verified value of an explicit feasible pair (P, Q) (a lower bound on
// Post), and Upper, a bound proved by the method named in the result (an
// upper bound on Post). Status says how close they are.
package solver

import (
	"errors"
	"time"
)

// DefaultTol is the certified gap, in nats, used when Settings.Tol is 0.
const DefaultTol = 1e-9

// Status says how a solve ended. Do not rely on the numeric values.
type Status int

const (
	// Bounds: only the closed-form bounds are known; Lower is the Theorem 4
	// pair's value and Upper is min(eps, d k r_alpha(c)).
	Bounds Status = iota
	// Witness: Lower is a verified feasible value above or equal to the
	// Theorem 4 bound, Upper a proved bound, but Upper - Lower > Tol.
	Witness
	// Certified: Upper - Lower <= Tol is proved.
	Certified
)

// String returns the name used in CSV and JSON output.
func (s Status) String() string {
	switch s {
	case Bounds:
		return "bounds"
	case Witness:
		return "witness"
	case Certified:
		return "certified"
	}
	return "unknown"
}

// Settings tunes a solve. A nil *Settings means every default.
type Settings struct {
	// Tol is the certified gap in nats: Status is Certified when the proved
	// Upper is within Tol of Lower. 0 means DefaultTol; it must be >= 0.
	Tol float64
	// MaxBoxes caps the branch-and-bound nodes; 0 means 1,000,000.
	MaxBoxes int
	// Method chooses the evaluator of the configuration search for d >= 2:
	// MethodReduced (the default, "" means it) or MethodFull.
	Method string
	// MaxMemory caps the bytes a solve may hold, by estimate (OneBoxBytes,
	// SearchSize); 0 means DefaultMaxMemory.
	MaxMemory int64
}

// DefaultMaxMemory is the memory cap of a solve when none is given: 1 GiB.
const DefaultMaxMemory = 1 << 30

func (s *Settings) maxMemory() int64 {
	if s == nil || s.MaxMemory <= 0 {
		return DefaultMaxMemory
	}
	return s.MaxMemory
}

// Evaluators of the configuration search.
const (
	MethodReduced = "reduced" // outputs grouped by bit pattern: prod (k n_t + 1) of them
	MethodFull    = "full"    // all 2^d corners, (k+1)^d outputs (the paper's program)
)

func (s *Settings) method() string {
	if s == nil || s.Method == "" {
		return MethodReduced
	}
	return s.Method
}

func (s *Settings) tol() float64 {
	if s == nil || s.Tol == 0 {
		return DefaultTol
	}
	return s.Tol
}

func (s *Settings) maxBoxes() int {
	if s == nil || s.MaxBoxes == 0 {
		return 1_000_000
	}
	return s.MaxBoxes
}

// Result is the outcome of a solve. Lower <= Post <= Upper always holds, up
// to the rounding model stated by the method (see docs/certificates.md).
type Result struct {
	// Lower is the verified value R_alpha(B_k(P) || B_k(Q)) of the witness,
	// in nats: a lower bound on Post.
	Lower float64
	// Upper is a proved upper bound on Post, in nats.
	Upper float64
	// Corners lists the witness's support as bit strings (bit l = 0 means
	// theta_l = c); P and Q are the masses on them.
	Corners []string
	P, Q    []float64
	// DivPQ and DivQP are R_alpha(P||Q) and R_alpha(Q||P) of the witness, in
	// nats; each is <= eps up to rounding.
	DivPQ, DivQP float64
	Status       Status
	// Method names how Upper was proved.
	Method string
	Stats  Stats
}

// Stats records the work of a solve.
type Stats struct {
	Boxes     int // branch-and-bound nodes bounded
	Open      int // nodes still open when the search stopped
	Cuts      int // tangent cuts generated
	Evals     int // objective evaluations
	Complete  bool
	OpenBound float64 // largest bound among open nodes, in nats (0 when none)
	Runtime   time.Duration
}

// ErrInput is wrapped by every error about a parameter outside its domain.
var ErrInput = errors.New("solver: invalid input")

// ErrTooLarge is wrapped by One's and Maximize's errors when the point is
// past their reach (OneMaxK, SearchFits).
var ErrTooLarge = errors.New("solver: program too large")

// LogFError is the absolute float64 error, in nats times (alpha-1), that
// the searches and certificates allow for one evaluation of log F =
// (alpha-1) R_alpha (a log-sum-exp of terms a log u + (1-a) log v of size
// about 1, a few ulps each). In nats it is LogFError/(alpha-1), which
// blows up as alpha -> 1: at alpha = 1 + 1e-7 it is 1e-7 nats, far above
// any useful Tol, and no branch and bound can close below it (solver.One
// used to fill its box limit, gigabytes, trying).
const LogFError = 1e-14

// NearOne reports whether alpha is too close to 1 for the searches and
// certificates at gap tol: LogFError/(alpha-1) > max(tol, DefaultTol)/10,
// that is alpha - 1 < 1e-13/tol, and alpha < 1.0001 for every tol <= 1e-9
// (a smaller tol keeps the engines running at ordinary orders, where they
// report what they prove). There only the
// closed forms are sound: they are computed with relative accuracy at every
// alpha > 1 (package bounds), and tend to their Kullback-Leibler limits as
// alpha -> 1 (README).
func NearOne(alpha, tol float64) bool {
	return LogFError/(alpha-1) > max(tol, DefaultTol)/10
}
