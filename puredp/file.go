package puredp

import (
	"math"

	"github.com/bernamp/bernamp/certfile"
)

// File returns the certificate of l at (d, k, c, eps) for the independent
// checker (certfile.KindPureDP, package verify): the claim is l.Upper, an
// upper bound on the exact eps'. At eps = +Inf it is nil: eps' is then
// the asymptote, which the file format, holding finite numbers, does not state.
func (l Level) File(d, k int, c, eps float64) *certfile.File {
	if math.IsInf(eps, 1) {
		return nil
	}
	return certfile.NewPureDP(d, k, c, eps, l.Upper, l.Lower)
}
