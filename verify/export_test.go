package verify

// SetNoSplitPaired sets testNoSplitPaired (bound does not try
// splitPaired) and returns a function restoring it: for the external
// tests (split_e2e_test.go), which compare the checker with and without
// it on the solver's own certificates.
func SetNoSplitPaired(b bool) (restore func()) {
	old := testNoSplitPaired
	testNoSplitPaired = b
	return func() { testNoSplitPaired = old }
}

// SetNoCurve sets testNoCurve (bound does not try curve) and returns a
// function restoring it, as SetNoSplitPaired (curve_e2e_test.go).
func SetNoCurve(b bool) (restore func()) {
	old := testNoCurve
	testNoCurve = b
	return func() { testNoCurve = old }
}
