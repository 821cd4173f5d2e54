package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/puredp"
)

// pureHeader is the CSV header of pure, in column order.
var pureHeader = []string{"d", "k", "c", "eps", "eps_out", "eps_out_lower", "eps_out_upper", "asymptote", "ultra_mixing", "method"}

// pureRow is one point of pure. Levels are pure-DP levels in nats.
type pureRow struct {
	D int     `json:"d"`
	K int     `json:"k"`
	C float64 `json:"c"`
	// Ranges replaces C with --range: lo:hi;lo:hi;... per coordinate.
	Ranges string  `json:"ranges,omitempty"`
	Eps    float64 `json:"eps"` // the mechanism's pure-DP level
	// EpsOut is the amplified level by the method: the closed form in
	// float64, or the LP optimum (no proof of either side).
	EpsOut float64 `json:"eps_out"`
	// EpsOutLower and EpsOutUpper enclose the exact amplified level (the
	// closed form with its rounding bounded): claim EpsOutUpper.
	EpsOutLower float64 `json:"eps_out_lower"`
	EpsOutUpper float64 `json:"eps_out_upper"`
	Asymptote   float64 `json:"asymptote"` // d k log((1-c)/c) rounded up: the level whatever eps
	// UltraMixing is the eps' of Balle et al. (2019), Theorem 1 item (4),
	// with delta = 0: an upper bound; null (empty in CSV) with --range or
	// when d k is beyond mixing.MaxFlips.
	UltraMixing *float64 `json:"ultra_mixing"`
	Method      string   `json:"method"` // closed or lp
}

func (r *pureRow) csvFields() []string {
	c := fmtFloat(r.C)
	if r.Ranges != "" {
		c = r.Ranges
	}
	return []string{strconv.Itoa(r.D), strconv.Itoa(r.K), c, fmtFloat(r.Eps), fmtFloat(r.EpsOut),
		fmtFloat(r.EpsOutLower), fmtFloat(r.EpsOutUpper), fmtFloat(r.Asymptote), optFloat(r.UltraMixing), r.Method}
}

// runPure prints the exact amplified pure-DP level (alpha = inf) of each
// point of the grid of --d, --k, --c and --eps.
func runPure(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pure", flag.ContinueOnError)
	dFlag := fs.String("d", "1", "dimension of theta: list or range of integers >= 1")
	kFlag := fs.String("k", "1", "Bernoulli samples released: list or range of integers >= 1")
	cFlag := fs.String("c", "0.1", "range constant: list or range in (0, 0.5)")
	epsFlag := fs.String("eps", "1", "pure-DP level of the mechanism in nats: list or range, >= 0")
	method := fs.String("method", "closed", "closed (the closed form) or lp (linear programs, d <= 6, k <= 16, checked against the closed form)")
	format := fs.String("format", "csv", "csv, json or table")
	rangeFlag := fs.String("range", "", "lo:hi,lo:hi,...: theta_l in [lo_l, hi_l], in place of --d and --c")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	ks, err := parseInts(*kFlag)
	if err != nil {
		return usagef("--k: %v", err)
	}
	for _, k := range ks {
		if err := check.K(k); err != nil {
			return usagef("--k: %v", err)
		}
	}
	epss, err := parseFloats(*epsFlag)
	if err != nil {
		return usagef("--eps: %v", err)
	}
	for _, eps := range epss {
		if err := check.Eps(eps); err != nil {
			return usagef("--eps: %v", err)
		}
	}
	// The box: --d and --c, or --range (then one d and no c).
	var ranges []bounds.Range
	var ds []int
	var cs []float64
	if *rangeFlag != "" {
		if ranges, err = parseRanges(*rangeFlag); err != nil {
			return err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, name := range []string{"d", "c"} {
			if set[name] {
				return usagef("--%s: not with --range (the ranges give d and the box)", name)
			}
		}
		if *method != "closed" {
			return usagef("--method: --range has the closed form only")
		}
		ds, cs = []int{len(ranges)}, []float64{0}
	} else {
		if ds, err = parseInts(*dFlag); err != nil {
			return usagef("--d: %v", err)
		}
		for _, d := range ds {
			if err := check.D(d); err != nil {
				return usagef("--d: %v", err)
			}
		}
		if cs, err = parseFloats(*cFlag); err != nil {
			return usagef("--c: %v", err)
		}
		for _, c := range cs {
			if err := check.C(c); err != nil {
				return usagef("--c: %v", err)
			}
		}
	}
	switch *method {
	case "closed":
	case "lp":
		if slices.Max(ds) > puredp.MaxLPD || slices.Max(ks) > puredp.MaxLPK {
			return usagef("--method: lp needs d <= %d and k <= %d", puredp.MaxLPD, puredp.MaxLPK)
		}
	default:
		return usagef("--method: method is %q, must be closed or lp", *method)
	}
	switch *format {
	case "csv", "json", "table":
	default:
		return usagef("--format: format is %q, must be csv, json or table", *format)
	}

	var rows []*pureRow
	failed := 0
	for _, d := range ds {
		for _, k := range ks {
			for _, c := range cs {
				for _, eps := range epss {
					if err := ctx.Err(); err != nil {
						return err
					}
					pt, err := puredp.Solve(d, k, c, ranges, eps, *method == "lp")
					if err != nil {
						return fmt.Errorf("d=%d k=%d c=%s eps=%s: %w", d, k, fmtFloat(c), fmtFloat(eps), err)
					}
					r := &pureRow{D: pt.D, K: k, C: pt.C, Eps: eps, EpsOut: pt.Level.Eps, EpsOutLower: pt.Level.Lower,
						EpsOutUpper: pt.Level.Upper, Asymptote: pt.Asymptote, UltraMixing: pt.UltraMixing, Method: *method}
					if ranges != nil {
						r.Ranges = formatRanges(ranges)
					}
					if pt.LP != nil {
						r.EpsOut = *pt.LP
					}
					if msg := pt.CrossCheck(); msg != "" {
						failed++
						fmt.Fprintf(stderr, "bernamp: cross-check failed at d=%d k=%d c=%s eps=%s: %s\n", d, k, fmtFloat(c), fmtFloat(eps), msg)
					}
					rows = append(rows, r)
				}
			}
		}
	}
	switch *format {
	case "csv":
		header := pureHeader
		if ranges != nil {
			header = slices.Clone(pureHeader)
			header[2] = "ranges"
		}
		if err := writeCSV(stdout, header, rows); err != nil {
			return err
		}
	case "json":
		if err := writeJSON(stdout, rows); err != nil {
			return err
		}
	case "table":
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		box := "c"
		if ranges != nil {
			box = "ranges"
		}
		fmt.Fprintf(tw, "d\tk\t%s\teps\teps_out\teps_out_upper\tasymptote\tultra_mixing\tmethod\n", box)
		for _, r := range rows {
			c := fmtFloat(r.C)
			if r.Ranges != "" {
				c = r.Ranges
			}
			um := "-"
			if r.UltraMixing != nil {
				um = fmt.Sprintf("%.6g", *r.UltraMixing)
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.10g\t%.10g\t%.6g\t%s\t%s\n", r.D, r.K, c, fmtFloat(r.Eps),
				r.EpsOut, r.EpsOutUpper, r.Asymptote, um, r.Method)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d points failed the cross-check", failed, len(rows))
	}
	return nil
}
