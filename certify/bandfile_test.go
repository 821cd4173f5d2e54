package certify_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/verify"
)

// TestBandFileVerified certifies points at large alpha with an exported
// tiling, whose certificate then holds the diagonal band, and has the
// checker accept them. At alpha 1000 the band is the wide one, |r| <=
// 32/alpha.
func TestBandFileVerified(t *testing.T) {
	for _, p := range []struct {
		n            int
		c, alpha, ep float64
	}{{1, 0.495, 1000, 1e-3}, {15, 0.4, 100, 0.01}, {1000, 0.495, 100, 1e-3}} {
		t0 := time.Now()
		r, err := certify.Certify(context.Background(), p.n, p.c, p.alpha, p.ep, &certify.Settings{Tiling: true})
		if err != nil {
			t.Fatal(err)
		}
		f := r.File(p.n, 1)
		if f == nil {
			t.Fatalf("%+v: no file (%s %s)", p, r.Status, r.Method)
		}
		solve := time.Since(t0)
		if beta, _ := strconv.ParseFloat(f.BandBeta, 64); p.alpha == 1000 && !(beta >= 32/p.alpha) {
			t.Errorf("%+v: band beta %s, want 32/alpha or more", p, f.BandBeta)
		}
		t0 = time.Now()
		rep, err := verify.Check(context.Background(), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %s boxes %d tiles %d band %d in band %d; solve %v check %v; %+v", p, r.Status, r.Boxes, len(f.Tiles), len(f.BandBoxes), rep.InBand, solve, time.Since(t0), rep.Failure)
		if !rep.Accepted {
			t.Errorf("%+v: rejected: %s", p, rep.Failure)
		}
	}
}

// TestBandFileMutations checks that the checker rejects a certificate
// whose band was tampered with: a band box removed (the band is not
// covered), beta changed (the boxes no longer partition the band), the
// band reaching past its boxes, a slab's boxes merged into one box on
// which the Taylor form does not hold (with no splits allowed), l0
// lowered below psi's maximum, the claim lowered.
func TestBandFileMutations(t *testing.T) {
	r, err := certify.Certify(context.Background(), 1, 0.495, 1000, 1e-3, &certify.Settings{Tiling: true})
	if err != nil {
		t.Fatal(err)
	}
	good := r.File(1, 1)
	if good == nil || len(good.BandBoxes) < 10 {
		t.Fatalf("no band in the certificate (%s %s)", r.Status, r.Method)
	}
	check := func(f *certfile.File, o *verify.Options) verify.Report {
		rep, err := verify.Check(context.Background(), f, o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	noSplit := &verify.Options{MaxExtra: 1}
	if rep := check(good, noSplit); !rep.Accepted {
		t.Fatalf("the honest certificate is rejected: %s", rep.Failure)
	} else if rep.InBand == 0 {
		t.Fatalf("no tile inside the band: %+v", rep)
	}
	clone := func() *certfile.File {
		f := *good
		f.Tiles = append([][4]string(nil), good.Tiles...)
		f.BandBoxes = append([][4]string(nil), good.BandBoxes...)
		return &f
	}
	for _, m := range []struct {
		name string
		edit func(f *certfile.File)
		want string
	}{
		{"a band box removed", func(f *certfile.File) { f.BandBoxes = append(f.BandBoxes[:3], f.BandBoxes[4:]...) }, "band:"},
		{"beta doubled", func(f *certfile.File) { f.BandBeta = certfile.Num(2 * r.Band.Beta) }, "band:"},
		{"the band reaching s = -40", func(f *certfile.File) { f.BandS1 = "-40" }, "band:"},
		{"a slab merged into one box", func(f *certfile.File) {
			var keep [][4]string
			for _, b := range f.BandBoxes {
				if s1, _ := strconv.ParseFloat(b[0], 64); s1 < -1 {
					keep = append(keep, b)
				}
			}
			beta := certfile.Num(r.Band.Beta)
			f.BandBoxes = append(keep, [4]string{"-1", "0", "-" + beta, beta})
		}, "band box"},
		{"l0 lowered", func(f *certfile.File) { f.L0 = certfile.Num(r.L0 - 1e-3) }, "not proved"},
		{"claim lowered", func(f *certfile.File) { f.Claim = certfile.Num(r.Upper - 1e-9) }, "claim"},
	} {
		f := clone()
		m.edit(f)
		rep := check(f, noSplit)
		if rep.Accepted || !strings.Contains(rep.Failure, m.want) {
			t.Errorf("%s: accepted %v, failure %q, want one with %q", m.name, rep.Accepted, rep.Failure, m.want)
		}
	}
}

// BenchmarkBandPost runs Post's proof (Certify with an exported tiling,
// the file, then verify.Check) without the diagonal band (before: the
// (s, t) tiling alone, as Post ran before the band went into the file)
// and with it (after), side by side in one run, each point's solve and
// check under a cap of capS seconds of CPU each (one core). Points: issue
// 33's three Post points, then a subset of BenchmarkCertifyDiagonal's.
// Reported: points proved and verified, boxes, solver and checker CPU
// seconds, before and after; with -v each point's line.
func BenchmarkBandPost(b *testing.B) {
	defer certify.SetDiagOff(false)
	type pt struct {
		n            int
		c, alpha, ep float64
	}
	pts := []pt{{1, 0.495, 1000, 1e-3}, {1000, 0.495, 100, 1e-3}, {10000, 0.495, 10, 1e-3}}
	for _, n := range []int{1, 15, 1000} {
		for _, alpha := range []float64{10, 100, 1000} {
			for _, ep := range []float64{1e-3, 0.01} {
				for _, c := range []float64{0.1, 0.495} {
					pts = append(pts, pt{n, c, alpha, ep})
				}
			}
		}
	}
	const capS = 5
	for b.Loop() {
		var ok, boxes, solve, check [2]float64
		for _, p := range pts {
			line := fmt.Sprintf("n=%d c=%g alpha=%g eps=%g:", p.n, p.c, p.alpha, p.ep)
			for i, off := range []bool{true, false} {
				certify.SetDiagOff(off)
				c0 := certify.CPUSeconds()
				ctx, cancel := certify.CPUCap(c0, capS)
				r, err := certify.Certify(ctx, p.n, p.c, p.alpha, p.ep, &certify.Settings{Tiling: true})
				ts := certify.CPUSeconds() - c0
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				status := r.Status.String()
				var tc float64
				if f := r.File(p.n, 1); f != nil && r.Status == certify.Proved {
					c1 := certify.CPUSeconds()
					ctx, cancel := certify.CPUCap(c1, capS)
					rep, err := verify.Check(ctx, f, nil)
					tc = certify.CPUSeconds() - c1
					cancel()
					switch {
					case err != nil:
						status += " check-cut"
					case rep.Accepted:
						status += " verified"
						ok[i]++
					default:
						status += " rejected: " + rep.Failure
					}
				}
				band := 0
				if r.Band != nil {
					band = len(r.Band.Boxes)
				}
				boxes[i] += float64(r.Boxes)
				solve[i] += ts
				check[i] += tc
				line += fmt.Sprintf(" | %s %s boxes=%d band=%d solve=%.2fs check=%.2fs", []string{"before", "after"}[i], status, r.Boxes, band, ts, tc)
			}
			b.Log(line)
		}
		for i, w := range []string{"before", "after"} {
			b.ReportMetric(ok[i], "verified-"+w)
			b.ReportMetric(boxes[i], "boxes-"+w)
			b.ReportMetric(solve[i], "solve-s-"+w)
			b.ReportMetric(check[i], "check-s-"+w)
		}
	}
}

// TestBandEps: with a tiling the band is searched below eps 0.06 only
// (bandEps): (15, 0.4, 100) has a band at eps 0.01 and 0.05 and none at
// eps 0.1, all proved (TestBandEpsNoTiling checks Certify without one).
func TestBandEps(t *testing.T) {
	for _, tc := range []struct {
		eps  float64
		band bool
	}{{0.01, true}, {0.05, true}, {0.1, false}} {
		r, err := certify.Certify(context.Background(), 15, 0.4, 100, tc.eps, &certify.Settings{Tiling: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != certify.Proved || (r.Band != nil) != tc.band {
			t.Errorf("eps %v: status %s band %v, want a band: %v", tc.eps, r.Status, r.Band != nil, tc.band)
		}
	}
}
