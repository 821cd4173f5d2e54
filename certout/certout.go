// Package certout exports the whole-box two-point-pieces proof of
// certify.Certify as a certificate file (package certfile), for the
// independent checker of package verify.
package certout

import (
	"context"
	"fmt"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
)

// Pieces re-runs the pieces certificate at n = d k with the tiling kept
// and returns its file; nil (and no error) when the proof does not close
// with the pieces inequality (closed form, a violation, the box limit or
// ctx), so there is nothing to export. The run is deterministic: the same
// point and tol give the same file.
func Pieces(ctx context.Context, d, k int, c, alpha, eps, tol float64) (*certfile.File, error) {
	n := d * k
	if d < 1 || k < 1 || n/k != d {
		return nil, fmt.Errorf("certout: d = %d, k = %d out of range", d, k)
	}
	r, err := certify.Certify(ctx, n, c, alpha, eps, &certify.Settings{Tol: tol, Tiling: true})
	if err != nil {
		return nil, err
	}
	return FromResult(d, k, r), nil
}

// FromResult returns the file of a certify.Result at n = d k, or nil when
// r holds no closed tiling.
func FromResult(d, k int, r certify.Result) *certfile.File {
	if r.Method != certify.MethodPieces || len(r.Tiling) == 0 {
		return nil
	}
	tiles := make([][4]float64, len(r.Tiling))
	for i, t := range r.Tiling {
		tiles[i] = [4]float64{t.S1, t.S2, t.T1, t.T2}
	}
	return certfile.New(certfile.Point{D: d, K: k, N: r.N, C: r.C, Alpha: r.Alpha, Eps: r.Eps,
		Claim: r.Upper, LB: r.LB, L0: r.L0, L1: r.L1, L2: r.L2, Tau: r.Slack, LogU: r.LogU, Tiles: tiles})
}

// WritePost writes the certificate of a Post result to dir when its
// pieces proof closed (r.Pieces.Proved, no per-coordinate ranges) and
// returns the path; "" when there is nothing to export. The proof is
// re-run with the tiling kept (deterministic, without Post's time limit or
// box cap, so it closes whenever Post's did unless ctx ends first).
func WritePost(ctx context.Context, dir string, r bernamp.Result, tol float64) (string, error) {
	if r.Pieces == nil || !r.Pieces.Proved || r.Ranges != nil {
		return "", nil
	}
	f, err := Pieces(ctx, r.D, r.K, r.C, r.Alpha, r.Eps, tol)
	if err != nil || f == nil {
		return "", err
	}
	return f.WriteDir(dir)
}
