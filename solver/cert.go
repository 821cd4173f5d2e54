package solver

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
)

// MethodOutputRatioBB names the proof of Certify: branch and bound over the
// output likelihood ratios with one LP per box (docs/certificates.md).
const MethodOutputRatioBB = "output-ratio-b&b"

// CertSettings tunes Certify. A nil *CertSettings means every default.
type CertSettings struct {
	// Tol is the certified gap in nats: the certificate is Complete when
	// Upper - lower <= Tol is proved. 0 means DefaultTol; it must be >= 0.
	Tol float64
	// MaxBoxes caps the boxes bounded (one to six LPs each); 0 means
	// 1,000,000. An open box holds 2 (k+1)^d ratios and a few cuts, so
	// memory grows to a few hundred bytes times MaxBoxes. It must be >= 0.
	MaxBoxes int
	// Workers is the number of goroutines bounding boxes; 0 means 1 and a
	// negative value means runtime.GOMAXPROCS(0). The certificate does not
	// depend on it (only Seconds does).
	Workers int
}

func (s *CertSettings) tol() float64 {
	if s == nil || s.Tol == 0 {
		return DefaultTol
	}
	return s.Tol
}

func (s *CertSettings) maxBoxes() int {
	if s == nil || s.MaxBoxes == 0 {
		return 1_000_000
	}
	return s.MaxBoxes
}

func (s *CertSettings) workers() int {
	switch {
	case s == nil || s.Workers == 0:
		return 1
	case s.Workers < 0:
		return runtime.GOMAXPROCS(0)
	}
	return s.Workers
}

// Certificate is a proved upper bound on Post_{alpha,k}(eps).
type Certificate struct {
	// Upper is a proved upper bound on Post, in nats, never above the
	// closed form min(eps, d k r_alpha(c)); it holds under the rounding
	// model of docs/certificates.md.
	Upper float64
	// Complete reports that Upper - lower <= Tol is proved: every box was
	// closed.
	Complete bool
	// Boxes counts the boxes bounded, LPs the LPs solved, Open the boxes
	// still open when the search stopped.
	Boxes, LPs, Open int
	// OpenBound is the largest bound among the open boxes, in nats (0 when
	// none is open).
	OpenBound float64
	// Seconds is the wall time of the search.
	Seconds float64
}

// ErrTooLarge is wrapped by Certify's error when the full corner program of
// the point is too large for the dense LPs, and by One's and Maximize's
// when the point is past their reach (OneMaxK, SearchFits).
var ErrTooLarge = errors.New("solver: program too large")

// Limits of the dense LPs: 4 * 2^d variables (plus one per data-processing
// row) and 2 (k+1)^d box rows.
const (
	certMaxD    = 5
	certMaxOuts = 1 << 12
)

// Certify proves an upper bound on Post_{alpha,k}(eps) at any d and k for
// which the full corner program fits (2^d <= 32 corners, (k+1)^d <= 4096
// outputs), by branch and bound over the output likelihood ratios
// t_m = (Kx)_m / (Ky)_m of math.md section 5: each box of ratios is
// bounded by an LP in which the objective F = sum_m v_m t_m^alpha is
// replaced by its chord on the box (or, output by output, by data
// processing from the corners where that is lower), the constraints by
// tangent cuts, and every LP bound is re-derived by weak duality from the
// multipliers with an outward padding, so no LP solver output is trusted.
//
// lower is the best verified witness value, in nats (Maximize's
// Result.Lower, or bounds.Lower): a box closes when its bound is within
// Tol of lower. When lower is below the true Post the search cannot close
// every box; it then ends at the box limit with Complete false and a valid
// Upper.
//
// Boxes are bounded in synchronous rounds of certBatch boxes taken in a
// deterministic order, on s.Workers goroutines, so the certificate does not
// depend on the number of workers. A cancelled ctx ends the search early:
// the certificate returned holds the bound proved so far, Complete false.
func Certify(ctx context.Context, d, k int, c, alpha, eps, lower float64, s *CertSettings) (*Certificate, error) {
	if err := check.Point(d, k, c, alpha, eps); err != nil {
		return nil, fmt.Errorf("solver.Certify: %w: %w", ErrInput, err)
	}
	if math.IsNaN(lower) || math.IsInf(lower, 0) {
		return nil, fmt.Errorf("solver.Certify: %w: lower is %v, must be finite", ErrInput, lower)
	}
	if s != nil && !(s.Tol >= 0) || s != nil && math.IsInf(s.Tol, 1) {
		return nil, fmt.Errorf("solver.Certify: %w: tol is %v, must be >= 0 and finite", ErrInput, s.Tol)
	}
	if s != nil && s.MaxBoxes < 0 {
		return nil, fmt.Errorf("solver.Certify: %w: max boxes is %d, must be >= 0", ErrInput, s.MaxBoxes)
	}
	start := time.Now()
	tol := s.tol()
	ub := bounds.UpperBound(d, k, c, alpha, eps).Value()
	cert := &Certificate{Upper: ub}
	if ub-lower <= tol || eps == 0 {
		cert.Complete = true
		cert.Seconds = time.Since(start).Seconds()
		return cert, nil
	}
	if d > certMaxD || math.Pow(float64(k)+1, float64(d)) > certMaxOuts {
		return nil, fmt.Errorf("solver.Certify: %w: %w: d = %d, k = %d (at most 2^%d corners and %d outputs)", ErrInput, ErrTooLarge, d, k, certMaxD, certMaxOuts)
	}
	r := newCertRun(d, k, c, alpha, eps, lower, tol, s)
	r.run(ctx)
	r.fill(cert)
	cert.Upper = math.Min(cert.Upper, ub)
	cert.Seconds = time.Since(start).Seconds()
	return cert, nil
}

// Margins of the conversion from a bound on log F to nats: relative and
// absolute, as in One (docs/certificates.md).
const (
	certRelPad = 1e-12
	certAbsPad = 1e-15
)

// certBatch is the number of boxes split per synchronous round: their
// children are bounded in parallel.
const certBatch = 32

type certRun struct {
	p         *certProgram
	alpha     float64
	lower     float64
	close     float64 // closing level of log F
	maxBoxes  int
	workers   int
	works     []*certWork
	open      certQueue
	closedMax float64 // largest bound of a closed box, log F
	boxes     int
	seq       int64
	trace     func(b *certBox) // tests: called on every bounded box, in order
}

func newCertRun(d, k int, c, alpha, eps, lower, tol float64, s *CertSettings) *certRun {
	// Close a box when its bound L (log F) gives a value within Tol of
	// lower after the final margin: (L/(alpha-1)) (1+relPad) + absPad <=
	// lower + tol.
	close := (lower + tol - certAbsPad) / (1 + certRelPad) * (alpha - 1)
	p := newCertProgram(d, k, c, alpha, eps, close)
	r := &certRun{p: p, alpha: alpha, lower: lower, close: close, maxBoxes: s.maxBoxes(), workers: s.workers(),
		closedMax: math.Inf(-1)}
	for range r.workers {
		r.works = append(r.works, newCertWork(p))
	}
	return r
}

// run bounds the root and splits open boxes, certBatch at a time in queue
// order, until none is open, the box limit is reached or ctx is done.
func (r *certRun) run(ctx context.Context) {
	root := &certBox{lo: append([]float64(nil), r.p.rootLo...), hi: append([]float64(nil), r.p.rootHi...)}
	r.bound([]*certBox{root}, []float64{math.Inf(1)})
	for r.open.Len() > 0 && r.boxes < r.maxBoxes && ctx.Err() == nil {
		var kids []*certBox
		var parents []float64
		for len(kids) < 2*certBatch && r.open.Len() > 0 && r.boxes+len(kids) < r.maxBoxes {
			b := heap.Pop(&r.open).(*certBox)
			for _, ch := range b.children() {
				kids = append(kids, ch)
				parents = append(parents, b.bound)
			}
		}
		r.bound(kids, parents)
	}
}

// bound bounds the boxes on the workers and files them, in slice order.
func (r *certRun) bound(bs []*certBox, parents []float64) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range r.works[:min(len(r.works), len(bs))] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(bs) {
					return
				}
				w.eval(bs[i], parents[i], r.close)
			}
		}()
	}
	wg.Wait()
	for _, b := range bs {
		r.boxes++
		b.seq = r.seq
		r.seq++
		if r.trace != nil {
			r.trace(b)
		}
		if b.bound <= r.close {
			r.closedMax = math.Max(r.closedMax, b.bound)
			continue
		}
		heap.Push(&r.open, b)
	}
}

func (r *certRun) fill(c *Certificate) {
	top := r.closedMax
	if r.open.Len() > 0 {
		top = math.Max(top, r.open[0].bound)
		c.Open = r.open.Len()
		c.OpenBound = r.toNats(r.open[0].bound)
	}
	c.Complete = c.Open == 0
	c.Boxes = r.boxes
	for _, w := range r.works {
		c.LPs += w.lps
	}
	c.Upper = r.toNats(top)
}

// toNats converts a bound on log F into nats, rounded up by the final margin.
func (r *certRun) toNats(l float64) float64 {
	if math.IsInf(l, -1) {
		return 0 // no feasible point in any box: impossible, P = Q is feasible
	}
	return l/(r.alpha-1)*(1+certRelPad) + certAbsPad
}

// certQueue is a max-heap of boxes by bound, ties broken by creation order.
type certQueue []*certBox

func (q certQueue) Len() int { return len(q) }
func (q certQueue) Less(i, j int) bool {
	if q[i].bound != q[j].bound {
		return q[i].bound > q[j].bound
	}
	return q[i].seq < q[j].seq
}
func (q certQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *certQueue) Push(x any)   { *q = append(*q, x.(*certBox)) }
func (q *certQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
