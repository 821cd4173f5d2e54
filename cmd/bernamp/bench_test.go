package main

import (
	"context"
	"fmt"
	"io"
	"testing"
)

// benchRun runs a command line with output discarded.
func benchRun(b *testing.B, args ...string) {
	b.Helper()
	if code := runTerm(context.Background(), args, io.Discard, io.Discard, tty{}); code != 0 {
		b.Fatalf("%v: exit %d", args, code)
	}
}

// BenchmarkFigure1 runs the demo grid (750 points, 400 ms per point at
// most) with 1 and 2 workers, for the speedup of the pool. Run it with
// -benchtime 1x: one iteration takes minutes.
func BenchmarkFigure1(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				benchRun(b, "demo", "--out", dir+"/fig1.csv", "--figure", dir+"/fig1.png", "--workers", fmt.Sprint(workers), "--quiet")
			}
			b.ReportMetric(750, "points")
		})
	}
}

// BenchmarkBoundsGrid runs a bounds grid of 10^5 points through the pool
// and the CSV writer: the overhead per point of a run.
func BenchmarkBoundsGrid(b *testing.B) {
	const points = 100_000
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			for b.Loop() {
				benchRun(b, "bounds", "--d", "1:10:1", "--k", "1:10:1", "--c", "0.01:0.1:0.01", "--alpha", "5,50",
					"--eps", "0.1:5:0.1", "--workers", fmt.Sprint(workers), "--format", "csv")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/points, "ns/point")
		})
	}
}

// BenchmarkDemoCheck runs the demo grid (Figure 1, 750 points) on one
// worker with the independent checker on (the default) and off: the cost
// of checking every certificate, for issue 31's aim of checked / unchecked
// under 1.5. Run it with -benchtime 1x (an iteration takes seconds); with
// -cpuprofile and -bench 'DemoCheck/check' it profiles the checked run.
func BenchmarkDemoCheck(b *testing.B) {
	for _, mode := range []string{"check", "no-check"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				benchRun(b, "demo", "--dir", dir, "--figure", "", "--workers", "1", "--quiet", "--"+mode)
			}
		})
	}
}
