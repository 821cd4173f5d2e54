package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"
)

// sample is the timing of one case over repeated runs. Each run calls the
// case in batches of doubling size until minTime has passed (at least
// once), so that a call of a few nanoseconds is timed over many calls and a
// call of seconds once; the run's time per call is its total time over its
// calls.
type sample struct {
	median, lo, hi time.Duration // median, fastest and slowest run, per call
	bytes, allocs  float64       // heap bytes and whole allocations per call, in the median run
	calls          int           // calls in the median run
}

// measure times f over runs runs of at least minTime each. It stops at the
// first error of f and returns it.
func measure(runs int, minTime time.Duration, f func() error) (sample, error) {
	type run struct {
		per           time.Duration
		bytes, allocs float64
		calls         int
	}
	rs := make([]run, 0, runs)
	for range runs {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		var total time.Duration
		calls := 0
		for batch := 1; ; batch *= 2 {
			start := time.Now()
			for range batch {
				if err := f(); err != nil {
					return sample{}, err
				}
			}
			total += time.Since(start)
			calls += batch
			if total >= minTime {
				break
			}
		}
		runtime.ReadMemStats(&m1)
		rs = append(rs, run{
			per:   total / time.Duration(calls),
			bytes: float64(m1.TotalAlloc-m0.TotalAlloc) / float64(calls),
			// Whole allocations per call, as testing.B's AllocsPerOp: the
			// counter is process-wide, so one stray allocation of another
			// goroutine over thousands of calls is not the call's.
			allocs: float64((m1.Mallocs - m0.Mallocs) / uint64(calls)),
			calls:  calls,
		})
	}
	slices.SortFunc(rs, func(a, b run) int { return int(a.per - b.per) })
	m := rs[(len(rs)-1)/2] // the lower median for an even count: a time that was measured
	return sample{median: m.per, lo: rs[0].per, hi: rs[len(rs)-1].per, bytes: m.bytes, allocs: m.allocs, calls: m.calls}, nil
}

// dur formats a duration with 3 significant digits in a unit that keeps
// it between 1 and 1000: "12.3 µs", "1.23 s", and minutes from 100 s on:
// "15.0 min".
func dur(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s == 0:
		return "0"
	case s < 1e-6:
		return sig3(s*1e9) + " ns"
	case s < 1e-3:
		return sig3(s*1e6) + " µs"
	case s < 1:
		return sig3(s*1e3) + " ms"
	case s < 100:
		return sig3(s) + " s"
	}
	return sig3(s/60) + " min"
}

// sig3 formats x >= 0 with 3 significant digits and no exponent.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// size formats a byte count: "512 B", "1.23 MB" (powers of 1000).
func size(b float64) string {
	switch {
	case b < 1e3:
		return fmt.Sprintf("%.0f B", b)
	case b < 1e6:
		return sig3(b/1e3) + " kB"
	case b < 1e9:
		return sig3(b/1e6) + " MB"
	}
	return sig3(b/1e9) + " GB"
}

// ratio formats a/b with 3 significant digits, or "-" when b is 0.
func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a/b) {
		return "-"
	}
	r := a / b
	if r < 0.01 {
		return fmt.Sprintf("%.2g", r)
	}
	return sig3(r)
}
