package certify

import "github.com/bernamp/bernamp/certfile"

// File returns the certificate of r for (d, k) with d k = r.N, the file
// the independent checker (package verify) reads: the multipliers, the
// normalization and every box of the tiling the search proved psi <= L0 +
// Slack on, so that the checker re-proves exactly the proof this run
// found, whichever method gave r.Upper (MethodPieces, MethodPiecesMax or
// MethodPiecesLP, recorded in a pieces file). It is nil when r holds no
// tiling: Settings.Tiling was off, or r.Upper is not a pieces bound
// (MethodClosed, MethodNone). With Groups (CertifyRanges with several
// c_l) it is the ranges certificate (certfile.KindRanges) of those groups.
func (r Result) File(d, k int) *certfile.File {
	switch r.Method {
	case MethodPieces, MethodPiecesMax, MethodPiecesLP:
	default:
		return nil
	}
	if len(r.Tiling) == 0 || d < 1 || k < 1 || d*k != r.N {
		return nil
	}
	tiles := make([][4]float64, len(r.Tiling))
	for i, t := range r.Tiling {
		tiles[i] = [4]float64{t.S1, t.S2, t.T1, t.T2}
	}
	pt := certfile.Point{D: d, K: k, N: r.N, C: r.C, Alpha: r.Alpha, Eps: r.Eps,
		Claim: r.Upper, LB: r.LB, L0: r.L0, L1: r.L1, L2: r.L2, Tau: r.Slack, LogU: r.LogU, Tiles: tiles}
	if b := r.Band; b != nil && len(r.Groups) == 0 {
		pt.BandBeta, pt.BandS1, pt.BandS2 = b.Beta, b.S1, b.S2
		for _, t := range b.Boxes {
			pt.BandBoxes = append(pt.BandBoxes, [4]float64{t.S1, t.S2, t.T1, t.T2})
		}
	}
	if len(r.Groups) == 0 {
		pt.Method = r.Method
		return certfile.New(pt)
	}
	rp := certfile.RangePoint{Point: pt}
	for _, g := range r.Groups {
		rp.GroupN, rp.GroupC = append(rp.GroupN, g.N), append(rp.GroupC, g.C)
	}
	return certfile.NewRanges(rp)
}
