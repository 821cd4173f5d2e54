package verify

import (
	"context"
	"math/big"

	"github.com/bernamp/bernamp/certfile"
)

// The Set hooks set a test knob of the checker and return a function
// restoring it: for the external tests, which compare the checker with
// and without a bound or rule on the solver's own certificates.

// SetNoSplitPaired sets testNoSplitPaired: bound does not try splitPaired
// (split_e2e_test.go).
func SetNoSplitPaired(b bool) (restore func()) { return setKnob(&testNoSplitPaired, b) }

// SetNoCurve sets testNoCurve: bound does not try curve
// (curve_e2e_test.go).
func SetNoCurve(b bool) (restore func()) { return setKnob(&testNoCurve, b) }

// SetNoFloatSplit sets testNoFloatSplit: prove tries big.Float on a near
// tile without halving it in float64 first (floatsplit_test.go).
func SetNoFloatSplit(b bool) (restore func()) { return setKnob(&testNoFloatSplit, b) }

// SetNoPartialFirst sets testNoPartialFirst: bound tries the
// one-variable forms last on edge tiles too (partial_edge_test.go).
func SetNoPartialFirst(b bool) (restore func()) { return setKnob(&testNoPartialFirst, b) }

// SetNoProcessed sets testNoProcessed: bound does not try processed
// (processed_e2e_test.go).
func SetNoProcessed(b bool) (restore func()) { return setKnob(&testNoProcessed, b) }

func setKnob(k *bool, b bool) (restore func()) {
	old := *k
	*k = b
	return func() { *k = old }
}

// ProveTile proves psi <= L0 + Tau of f's inequality on the tile [s1, s2]
// x [t1, t2] alone, as Check proves each tile (depth 24, 10,000 extra
// boxes, 16 in big.Float), with or without the split rule beyond
// underLogit (noBeyond); it says whether it did and returns the boxes
// bounded.
func ProveTile(f *certfile.File, s1, s2, t1, t2 float64, noBeyond bool) (bool, int, error) {
	defer func(old bool) { testNoBeyond = old }(testNoBeyond)
	testNoBeyond = noBeyond
	c, err := parse(f)
	if err != nil {
		return false, 0, err
	}
	ch := newChecker(c)
	ch.ctx, ch.maxFallback, ch.floatLeft = context.Background(), 16, floatSplitBoxes
	e := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
	extra, boxes := 0, 0
	bad, _ := ch.prove(box{e(s1), e(s2), e(t1), e(t2)}, 24, &extra, 10_000, &boxes)
	return bad == nil, boxes, nil
}
