// Command bench times a fixed suite of bernamp computations with the Go
// benchmark machinery (testing.Benchmark) and prints a markdown report: the
// machine, the Go version, and per case the median time per operation over
// repeated runs with its range.
//
// Usage:
//
//	go run ./bench [-quick] [-runs N] [-out FILE]
//
// -quick drops the long cases (under a minute in all); -out writes the
// report to FILE as well as stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/solver"
)

// benchCase is one timed computation; long cases are skipped by -quick.
type benchCase struct {
	name string
	long bool
	run  func() error
}

func suite() []benchCase {
	ctx := context.Background()
	var sink float64
	lower := func(d, k int) func() error {
		return func() error { sink += bounds.Lower(d, k, 0.1, 5, 1); return nil }
	}
	one := func(k int, c float64) func() error {
		return func() error {
			r, err := solver.One(ctx, k, c, 5, 1, nil)
			if err == nil && r.Status != solver.Certified {
				err = fmt.Errorf("not certified")
			}
			return err
		}
	}
	maximize := func(d, k int) func() error {
		return func() error {
			_, rec, err := solver.Maximize(ctx, d, k, 0.1, 5, 2, 0, nil)
			if err == nil && !rec.Complete {
				err = fmt.Errorf("search not complete")
			}
			return err
		}
	}
	return []benchCase{
		{"bounds.Lower d k = 1", false, lower(1, 1)},
		{"bounds.Lower d k = 100", false, lower(10, 10)},
		{"bounds.Lower d k = 10^4", false, lower(100, 100)},
		{"solver.One k = 1 (certified)", false, one(1, 0.1)},
		{"solver.One k = 4 (certified)", false, one(4, 0.1)},
		{"solver.One k = 16 (certified)", false, one(16, 0.1)},
		{"solver.Maximize d = 2, k = 1", false, maximize(2, 1)},
		{"solver.Maximize d = 3, k = 1", false, maximize(3, 1)},
		{"solver.Maximize d = 6, k = 1", false, maximize(6, 1)},
		{"solver.Maximize d = 3, k = 4", false, maximize(3, 4)},
		{"solver.Maximize d = 12, k = 1", true, maximize(12, 1)},
		{"solver.Maximize d = 6, k = 4", true, maximize(6, 4)},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "skip the long cases")
	runs := fs.Int("runs", 3, "repetitions of each benchmark, >= 1")
	out := fs.String("out", "", "also write the report to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *runs < 1 {
		fmt.Fprintf(stderr, "bench: -runs is %d, must be >= 1\n", *runs)
		return 2
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# bernamp benchmarks\n\n")
	fmt.Fprintf(&b, "- date: %s\n- cpu: %s, %d cores (GOMAXPROCS %d)\n- go: %s\n- runs: %d per case, median reported\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), *runs)
	fmt.Fprintf(&b, "| case | median per op | min | max | ops per run |\n|---|---|---|---|---|\n")
	for _, c := range suite() {
		if c.long && *quick {
			continue
		}
		var times []time.Duration
		var n int
		var failed error
		for range *runs {
			r := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					if err := c.run(); err != nil {
						failed = err
						b.FailNow()
					}
				}
			})
			if failed != nil {
				break
			}
			times = append(times, time.Duration(r.NsPerOp()))
			n = r.N
		}
		if failed != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", c.name, failed)
			return 1
		}
		slices.Sort(times)
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %d |\n", c.name, times[len(times)/2], times[0], times[len(times)-1], n)
		fmt.Fprintf(stderr, "bench: %s done\n", c.name)
	}
	fmt.Fprint(stdout, b.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
	}
	return 0
}

// cpuModel returns the CPU model name from /proc/cpuinfo, or "unknown".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return "unknown"
}
