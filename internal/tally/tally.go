// Package tally counts the validations of a point, so that tests can prove
// the house rule "a point is validated once where it enters": Points counts
// the points built by check.NewValidPoint, Checks every other check of a
// parameter (the functions of package check and the float-argument entry
// points of package bounds). Production code only increments them; the
// counts are read by tests that run alone (not t.Parallel).
package tally

import "sync/atomic"

// Points and Checks are the counts; Reset sets both to 0.
var Points, Checks atomic.Int64

// Reset sets both counts to 0.
func Reset() {
	Points.Store(0)
	Checks.Store(0)
}
