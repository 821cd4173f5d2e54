package certify

// The solver's rounding model, in one place (docs/certificates.md,
// "Rounding: what is assumed, what the checker removes").
//
// certify computes in float64 and pads every bound it proves by multiples
// of the unit roundoff eps64 of the magnitudes that formed it. The padding
// is sound under three assumptions, which no test can prove for every
// input and which the independent checker (package verify: exact rationals
// and outward-rounded intervals) does not make:
//
//  1. IEEE 754 binary64 +, -, *, / and conversions are correctly rounded:
//     each adds a relative error of at most eps64.
//  2. math.Exp, math.Log, math.Log1p, math.Expm1 and math.Pow are within
//     1 ulp (2 eps64 relative) of the exact value: Go documents this for
//     its ports of FreeBSD's msun; it is not proved.
//  3. Each padding below covers the error chain of the expression it pads:
//     the chains are short (a handful of operations) and each constant is
//     about twice the count of roundings in its chain.
//
// Where the slack of a proof is far larger than the padding (the usual
// case: tau = expm1((alpha-1) tol)/2 against errors of 1e-15 relative),
// the assumptions only matter in principle; the checker removes them.
const (
	// eps64 is the unit roundoff of float64, 2^-53.
	eps64 = 0x1p-53

	// termUlps pads the log of one term of F_n or G, formed from up to
	// four logs (log w_j, log u, log v, alpha times a difference) and two
	// products: each log within 2 ulps of its size (assumption 2), each
	// product and sum within 1 (assumption 1), so 8 ulps of the sum of the
	// magnitudes, plus 8 absolute ulps for the exp that leaves log space.
	termUlps = 8

	// combineUlps pads a value combined from a few already-padded ones
	// (a box bound from its pieces, a difference x - y of two sums, the
	// final (log U + log s)/(alpha-1)): at most two roundings per operand
	// and one per operation.
	combineUlps = 4

	// expUlps pads math.Exp of a difference of two logs when a sum leaves
	// log space (one rounding of the argument, one of the exp).
	expUlps = 2

	// sumUlps is the compensated (Neumaier) sum's own error, 2 ulps, plus
	// the second-order term that a few ulps more cover for the sums here
	// (at most a few thousand terms between rescalings).
	sumUlps = 6

	// sharedUlps pads a term of a derivative kind formed as a product of
	// exps (addTerm): twice the ulps of its chain's arithmetic.
	sharedUlps = 2

	// logMargin is a relative margin on quantities formed from a few logs
	// where the bound must hold strictly (the Chernoff exponents and the
	// tail masses of the windowed sums, the geometric ratio test of
	// edgeTail). It is far above the rounding (1e-9 against about 1e-15),
	// so the tails are pessimistic by at most one part in a billion.
	logMargin = 1e-9
)
