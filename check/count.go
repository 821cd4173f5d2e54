package check

import "sync/atomic"

// Counts counts the validations of a point, so that tests can prove the
// house rule "a point is validated once where it enters": Points counts
// the points built by NewValidPoint, Checks every other check of a
// parameter (the functions of this package and the float-argument entry
// points of package bounds). Production code only increments them; the
// counts are read by tests that run alone (not t.Parallel).
var Counts struct{ Points, Checks atomic.Int64 }

// ResetCounts sets both counts to 0.
func ResetCounts() {
	Counts.Points.Store(0)
	Counts.Checks.Store(0)
}
