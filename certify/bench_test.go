package certify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCertify times the whole certificate at points of the paper's
// grids and at large n (one core; the search is sequential). Reported:
// boxes per certificate.
func BenchmarkCertify(b *testing.B) {
	for _, p := range []struct {
		n             int
		c, alpha, eps float64
	}{
		{1, 0.1, 5, 1}, {4, 0.1, 5, 1}, {2, 0.01, 5, 0.1}, {3, 0.1, 50, 1}, {15, 0.3, 50, 2}, {15, 0.1, 50, 0.1},
		{1000, 0.49, 5, 1}, {1000, 0.3, 5, 1}, {10000, 0.499, 5, 1}, {10000, 0.45, 5, 1}, {1000000, 0.4999, 5, 1},
	} {
		b.Run(fmt.Sprintf("n=%d/c=%v/alpha=%v/eps=%v", p.n, p.c, p.alpha, p.eps), func(b *testing.B) {
			var boxes int
			for b.Loop() {
				r, err := Certify(context.Background(), p.n, p.c, p.alpha, p.eps, nil)
				if err != nil || r.Status != Proved {
					b.Fatalf("%+v: %v %v", p, r.Status, err)
				}
				boxes = r.Boxes
			}
			b.ReportMetric(float64(boxes), "boxes")
		})
	}
}

// gridPoints returns the points of the paper's three grids as (n, c,
// alpha, eps) with n = d k (testdata/grids: Figure 1, alpha 50, and Figure
// 2, alpha 5, with d in {1, 2, 3, 5, 15}, c in {0.01, 0.1, 0.3}; Figure 3,
// d = 1, k in {1, 2, 4}, c 0.1, alpha 5; eps 0.1:5:0.1 in each).
func gridPoints() [][4]float64 {
	var pts [][4]float64
	for _, alpha := range []float64{50, 5} {
		for _, d := range []int{1, 2, 3, 5, 15} {
			for _, c := range []float64{0.01, 0.1, 0.3} {
				for i := 1; i <= 50; i++ {
					pts = append(pts, [4]float64{float64(d), c, alpha, float64(i) / 10})
				}
			}
		}
	}
	for _, k := range []int{1, 2, 4} {
		for i := 1; i <= 50; i++ {
			pts = append(pts, [4]float64{float64(k), 0.1, 5, float64(i) / 10})
		}
	}
	return pts
}

// BenchmarkCertifyGrids certifies every point of the paper's three grids
// (1,650 points) per iteration on one core. Reported: points proved, the
// median and largest CPU time per point (getrusage; points over 50 ms of
// it), the largest box count and the total
// boxes and evaluations of F_n (counts do not depend on the machine).
func BenchmarkCertifyGrids(b *testing.B) {
	pts := gridPoints()
	for b.Loop() {
		proved, maxBoxes, evals, boxes := 0, 0, 0, 0
		times := make([]float64, 0, len(pts))
		for _, p := range pts {
			c0 := cpuSeconds()
			r, err := Certify(context.Background(), int(p[0]), p[1], p[2], p[3], nil)
			cpu := cpuSeconds() - c0
			if err != nil {
				b.Fatal(err)
			}
			if r.Status == Proved {
				proved++
			}
			maxBoxes = max(maxBoxes, r.Boxes)
			evals += r.Evals
			boxes += r.Boxes
			times = append(times, cpu)
		}
		slices.Sort(times)
		slow := len(times) - sort.SearchFloat64s(times, 0.05)
		b.ReportMetric(float64(slow), "over-50ms")
		b.ReportMetric(float64(proved), "proved")
		b.ReportMetric(times[len(times)/2]*1e3, "median-ms")
		b.ReportMetric(times[len(times)-1]*1e3, "max-ms")
		b.ReportMetric(float64(maxBoxes), "max-boxes")
		b.ReportMetric(float64(boxes), "boxes")
		b.ReportMetric(float64(evals), "evals")
	}
}

// BenchmarkCertifyExtremes times the certificate at the corners of the
// supported range (alpha 1.001 and 1000, c 1e-6 and 0.4999, eps 1e-6 and
// 50) and reports whether each was proved.
func BenchmarkCertifyExtremes(b *testing.B) {
	for _, p := range [][4]float64{
		{1, 1e-6, 1.001, 1}, {1, 0.1, 1000, 1}, {1, 0.4999, 5, 1}, {1, 0.1, 5, 1e-6}, {1, 0.1, 5, 50},
		{3, 1e-6, 5, 1}, {3, 0.1, 1.001, 1}, {3, 0.1, 1000, 1}, {3, 0.4999, 1000, 50}, {3, 0.1, 5, 1e-6},
	} {
		b.Run(fmt.Sprintf("n=%v/c=%v/alpha=%v/eps=%v", p[0], p[1], p[2], p[3]), func(b *testing.B) {
			var r Result
			for b.Loop() {
				var err error
				r, err = Certify(context.Background(), int(p[0]), p[1], p[2], p[3], nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			proved := 0.0
			if r.Status == Proved {
				proved = 1
			}
			b.ReportMetric(proved, "proved")
			b.ReportMetric(float64(r.Boxes), "boxes")
			b.ReportMetric(r.Upper-r.LB, "gap")
		})
	}
}

// reachPoints are the large-n points of docs/reach.md: n = 10^4 at c from
// 1e-4 to 0.4999 with alpha in {1.001, 5, 20, 1000} and eps in {1e-3, 1,
// 50}, and n = 10^6 near c = 1/2.
func reachPoints() [][4]float64 {
	var pts [][4]float64
	for _, c := range []float64{1e-4, 0.01, 0.1, 0.3, 0.45, 0.495, 0.4999} {
		for _, alpha := range []float64{1.001, 5, 20, 1000} {
			for _, eps := range []float64{1e-3, 1, 50} {
				pts = append(pts, [4]float64{1e4, c, alpha, eps})
			}
		}
	}
	for _, c := range []float64{0.49, 0.499, 0.4999} {
		pts = append(pts, [4]float64{1e6, c, 5, 1}, [4]float64{1e6, c, 1.001, 1e-3})
	}
	return append(pts, [4]float64{1e4, 0.495, 5, 1}, [4]float64{2000, 0.48, 20, 1})
}

// BenchmarkCertifyReach certifies every reach point once per iteration,
// each under a cap of 30 s of CPU (one core; a loaded machine does not
// shorten it). Reported: points proved,
// points over 1 s of CPU, the largest CPU time and box count, the total
// CPU and wall time (CPU time of the process, from getrusage: on a
// shared machine wall time is not the engine's). With -v each point's
// line is logged.
func BenchmarkCertifyReach(b *testing.B) {
	pts := reachPoints()
	for b.Loop() {
		proved, over, maxBoxes := 0, 0, 0
		total, worst, wall := 0.0, 0.0, 0.0
		for _, p := range pts {
			c0 := cpuSeconds()
			ctx, cancel := cpuCap(c0, 30)
			r, err := Certify(ctx, int(p[0]), p[1], p[2], p[3], nil)
			cpu := cpuSeconds() - c0
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			if r.Status == Proved {
				proved++
			}
			if cpu > 1 {
				over++
			}
			total += cpu
			wall += r.Seconds
			worst = max(worst, cpu)
			maxBoxes = max(maxBoxes, r.Boxes)
			b.Logf("n=%g c=%g alpha=%g eps=%g: %s %s boxes=%d evals=%d gap=%.3g cpu=%.3fs wall=%.3fs", p[0], p[1], p[2], p[3], r.Status, r.Method, r.Boxes, r.Evals, r.Upper-r.LB, cpu, r.Seconds)
		}
		b.ReportMetric(float64(proved), "proved")
		b.ReportMetric(float64(len(pts)), "points")
		b.ReportMetric(float64(over), "over-1s-cpu")
		b.ReportMetric(worst, "max-cpu-s")
		b.ReportMetric(total, "total-cpu-s")
		b.ReportMetric(wall, "total-wall-s")
		b.ReportMetric(float64(maxBoxes), "max-boxes")
	}
}

// cpuSeconds returns the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkCertifyDiagonal certifies the points of issue 33's diagonal
// (alpha in {10, 100, 1000}, eps in {1e-3, 0.01, 0.05}, n in {1, 15, 1000,
// 10^4}, c in {0.01, 0.1, 0.4, 0.495}) without and with the diagonal band
// (diagonal.go), side by side, each under a cap of 5 s of CPU (one core).
// Reported: points proved and total CPU for each; with -v each point's
// pair of lines is logged (status, boxes, CPU).
func BenchmarkCertifyDiagonal(b *testing.B) {
	defer func() { diagOff = false }()
	for b.Loop() {
		var proved, cpu [2]float64
		for _, n := range []int{1, 15, 1000, 10000} {
			for _, alpha := range []float64{10, 100, 1000} {
				for _, eps := range []float64{1e-3, 0.01, 0.05} {
					for _, c := range []float64{0.01, 0.1, 0.4, 0.495} {
						rs, t := offOn(b, &diagOff, [4]float64{float64(n), c, alpha, eps}, nil, 5, [2]string{"before", "after"},
							fmt.Sprintf("n=%d alpha=%g eps=%g c=%g:", n, alpha, eps, c))
						for i, r := range rs {
							if r.Status == Proved {
								proved[i]++
							}
							cpu[i] += t[i]
						}
					}
				}
			}
		}
		b.ReportMetric(proved[0], "proved-before")
		b.ReportMetric(proved[1], "proved-after")
		b.ReportMetric(cpu[0], "cpu-s-before")
		b.ReportMetric(cpu[1], "cpu-s-after")
	}
}

// BenchmarkCertifySplit certifies the points of docs/certificates.md's
// table of the split pairing without and with it (noSplit), side by side,
// one core, each under a cap of 30 s of CPU: boxes and CPU of each, and
// with -v each point's pair of lines.
func BenchmarkCertifySplit(b *testing.B) {
	withWithout(b, &noSplit, &Settings{MaxBoxes: 400_000}, [][4]float64{
		{3342, 0.4572, 377.353, 0.003274}, {397, 0.3862, 936.448, 0.001094}, {8, 0.01833, 835.127, 0.002246},
		{25, 0.1107, 754.48, 0.004478}, {206, 0.3618, 316.361, 0.03103}, {15, 0.1, 50, 0.1}, {2, 0.01, 50, 0.1},
		{5, 0.01, 50, 0.1}, {15, 0.1, 5, 0.1}, {2, 0.01, 5, 0.1}, {15, 0.3, 50, 0.1}, {4, 0.1, 5, 1},
	})
}

// BenchmarkCertifyCurvature certifies points at small eps (n = 10^4 and
// the grids' neighbourhood) without and with the curvature bound
// (noCurve), side by side, each under a cap of 30 s of CPU (one core).
// Reported: the boxes and CPU of each; with -v each point's pair.
func BenchmarkCertifyCurvature(b *testing.B) {
	withWithout(b, &noCurve, nil, [][4]float64{
		{1e4, 0.4999, 5, 1e-3}, {1e4, 0.495, 5, 1e-3}, {1e4, 0.4999, 1.001, 1e-3}, {1e4, 0.495, 1.001, 1e-3},
		{1e4, 0.4999, 20, 1e-3}, {1e4, 0.4999, 1.001, 1}, {15, 0.1, 5, 0.01}, {2, 0.1, 5, 0.05}, {2, 0.1, 5, 0.1},
	})
}

// BenchmarkCertifyProcessed certifies, without and with the
// data-processing bound (noProcessed), points where Post is barely below
// eps at n = 10^3 and 10^4 (alpha near 1 and 11), two near c = 1/2 where
// it hardly closes a box, and one of the grids.
func BenchmarkCertifyProcessed(b *testing.B) {
	withWithout(b, &noProcessed, nil, [][4]float64{
		{10000, 0.4782, 1.001, 0.01501}, {10000, 0.4744, 1.051, 0.00903}, {10000, 0.4735, 1.004, 1.196},
		{10000, 0.4782, 11.15, 0.01466}, {1000, 0.43, 1.003, 1}, {10000, 0.495, 1.001, 0.01501},
		{10000, 0.4999, 5, 1e-3}, {15, 0.1, 50, 0.1},
	})
}

// withWithout runs offOn (cap 30 s of CPU) at each point with the knob
// *off set and cleared, and reports the boxes and CPU summed over the
// points for each.
func withWithout(b *testing.B, off *bool, s *Settings, pts [][4]float64) {
	defer func() { *off = false }()
	for b.Loop() {
		var boxes, cpu [2]float64
		for _, p := range pts {
			rs, t := offOn(b, off, p, s, 30, [2]string{"without", "with"},
				fmt.Sprintf("n=%g c=%g alpha=%g eps=%g:", p[0], p[1], p[2], p[3]))
			for i, r := range rs {
				boxes[i] += float64(r.Boxes)
				cpu[i] += t[i]
			}
		}
		b.ReportMetric(boxes[0], "boxes-without")
		b.ReportMetric(boxes[1], "boxes-with")
		b.ReportMetric(cpu[0], "cpu-s-without")
		b.ReportMetric(cpu[1], "cpu-s-with")
	}
}

// offOn certifies p = (n, c, alpha, eps) with the knob *off set, then
// cleared, each under a cap of limit seconds of CPU, and logs the pair
// (labels[0] for the first, labels[1] for the second) after head.
func offOn(b *testing.B, off *bool, p [4]float64, s *Settings, limit float64, labels [2]string, head string) (rs [2]Result, cpu [2]float64) {
	line := head
	for i, o := range []bool{true, false} {
		*off = o
		c0 := cpuSeconds()
		ctx, cancel := cpuCap(c0, limit)
		r, err := Certify(ctx, int(p[0]), p[1], p[2], p[3], s)
		cpu[i] = cpuSeconds() - c0
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		rs[i] = r
		line += fmt.Sprintf(" | %s %s boxes=%d cpu=%.2fs", labels[i], r.Status, r.Boxes, cpu[i])
	}
	b.Log(line)
	return rs, cpu
}

// cpuCap returns a context cancelled once the process has used limit
// seconds of CPU beyond c0 (polled every 10 ms): a cap that a loaded
// machine does not shorten.
func cpuCap(c0, limit float64) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if cpuSeconds()-c0 > limit {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}
