package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/mixing"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/rdp"
)

// curveOptions holds the flags of curve besides the solver's.
type curveOptions struct {
	mechanism  string  // gaussian, laplace or rr; "" with --in
	sigma      float64 // gaussian noise multiplier
	b          float64 // laplace scale
	p          float64 // rr truth probability
	in         string  // CSV file alpha,eps
	orders     string  // list or range; "" means rdp.DefaultOrders
	d, k       int
	c          float64
	delta      float64
	conversion string
	format     string
	summary    string // CSV file of the (eps, delta) summary
}

// curveHeader is the CSV header of curve, in column order.
var curveHeader = []string{"d", "k", "c", "alpha", "eps", "lb", "post", "post_upper", "status",
	"dobrushin", "doeblin", "ultra_mixing", "seconds"}

// curveRow is one order of the amplified curve. Values are in nats.
type curveRow struct {
	D         int     `json:"d"`
	K         int     `json:"k"`
	C         float64 `json:"c"`
	Alpha     float64 `json:"alpha"`      // Rényi order
	Eps       float64 `json:"eps"`        // RDP level of the mechanism at alpha
	LB        float64 `json:"lb"`         // Theorem 4 lower bound on Post
	Post      float64 `json:"post"`       // verified witness: Post >= post
	PostUpper float64 `json:"post_upper"` // proved: Post <= post_upper
	Status    string  `json:"status"`     // certified, witness or bounds
	// RDP bounds from the coefficients of Balle et al. (mixing.Renyi):
	// upper bounds on Post, as post_upper is.
	Dobrushin   float64 `json:"dobrushin"`
	Doeblin     float64 `json:"doeblin"`
	UltraMixing float64 `json:"ultra_mixing"`
	Seconds     float64 `json:"seconds"` // wall time; 0 with --no-timing

	UB         float64 `json:"ub"`         // min(eps, d k r_alpha(c))
	Conjecture string  `json:"conjecture"` // proved, open or refuted (Post = LB)
	Method     string  `json:"method"`     // how post_upper was proved
}

func (r *curveRow) csvFields() []string {
	return []string{strconv.Itoa(r.D), strconv.Itoa(r.K), fmtFloat(r.C), fmtFloat(r.Alpha), fmtFloat(r.Eps),
		fmtFloat(r.LB), fmtFloat(r.Post), fmtFloat(r.PostUpper), r.Status,
		fmtFloat(r.Dobrushin), fmtFloat(r.Doeblin), fmtFloat(r.UltraMixing),
		strconv.FormatFloat(r.Seconds, 'f', 4, 64)}
}

// crossCheck returns a description of the first violated inequality of
// lb <= post <= post_upper <= ub and lb <= each comparator (every proved
// upper bound is at least the verified lower bound), or "".
func (r *curveRow) crossCheck() string {
	for _, x := range []struct {
		a, b   float64
		as, bs string
	}{
		{r.LB, r.Post, "lb", "post"}, {r.Post, r.PostUpper, "post", "post_upper"}, {r.PostUpper, r.UB, "post_upper", "ub"},
		{r.LB, r.Dobrushin, "lb", "dobrushin"}, {r.LB, r.Doeblin, "lb", "doeblin"}, {r.LB, r.UltraMixing, "lb", "ultra_mixing"},
	} {
		if !leq(x.a, x.b) {
			return fmt.Sprintf("%s=%s > %s=%s", x.as, fmtFloat(x.a), x.bs, fmtFloat(x.b))
		}
	}
	return ""
}

// summaryRow is one (eps, delta)-DP guarantee of the summary.
type summaryRow struct {
	// Bound names the curve or theorem: mechanism (the input curve, not
	// amplified), bernamp (post_upper), rdp_<coefficient> (a comparator
	// column), thm1_<item> (Theorem 1 of Balle et al. on the mechanism's
	// (eps, delta) profile).
	Bound string   `json:"bound"`
	Eps   *float64 `json:"eps"`   // upper bound on the DP level; null when the bound proves nothing at delta
	Delta float64  `json:"delta"` // the target delta
	// Order attains eps in the conversion (for thm1_*, the order of the
	// mechanism's conversion at delta_in); null when none.
	Order   *float64 `json:"order"`
	DeltaIn *float64 `json:"delta_in,omitempty"` // thm1_*: the mechanism's delta the theorem was applied to
	EpsIn   *float64 `json:"eps_in,omitempty"`   // thm1_*: the mechanism's eps at delta_in
	Warning string   `json:"warning,omitempty"`  // the minimizing order is at the edge of the grid
}

var summaryHeader = []string{"bound", "eps", "delta", "order", "delta_in", "eps_in", "warning"}

func (s *summaryRow) csvFields() []string {
	eps := "none"
	if s.Eps != nil {
		eps = fmtFloat(*s.Eps)
	}
	return []string{s.Bound, eps, fmtFloat(s.Delta), optFloat(s.Order), optFloat(s.DeltaIn), optFloat(s.EpsIn), s.Warning}
}

// curveOutput is the JSON document of curve.
type curveOutput struct {
	Mechanism  string       `json:"mechanism"`  // where the curve came from
	D          int          `json:"d"`          // kernel B_k on [c, 1-c]^d
	K          int          `json:"k"`          //
	C          float64      `json:"c"`          //
	Delta      float64      `json:"delta"`      // target delta of the summary
	Conversion string       `json:"conversion"` // RDP to (eps, delta) conversion
	Orders     []*curveRow  `json:"orders"`     // one row per order
	Summary    []summaryRow `json:"summary"`    // (eps, delta) guarantees
}

// runCurve amplifies an RDP curve order by order, converts it to (eps,
// delta)-DP and compares it with the bounds of Balle et al.
func runCurve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	var co curveOptions
	fs := newFlagSet("curve", &o, solverOpts)
	fs.StringVar(&co.mechanism, "mechanism", "", "named mechanism: gaussian (--sigma), laplace (--b) or rr (--p); or use --in")
	fs.Float64Var(&co.sigma, "sigma", 0, "gaussian: noise multiplier (L2 sensitivity 1), > 0")
	fs.Float64Var(&co.b, "b", 0, "laplace: scale (L1 sensitivity 1), > 0")
	fs.Float64Var(&co.p, "p", 0, "rr: probability of reporting the true bit, in (0, 1)")
	fs.StringVar(&co.in, "in", "", "CSV file of the curve, alpha,eps per line (instead of --mechanism)")
	fs.StringVar(&co.orders, "orders", "", "Rényi orders: list or range, > 1 (default dp_accounting's 156 orders 1.1..10.9, 11..63, 128..1024)")
	fs.IntVar(&co.d, "d", 1, "dimension of theta, >= 1")
	fs.IntVar(&co.k, "k", 1, "Bernoulli samples released, >= 1")
	fs.Float64Var(&co.c, "c", 0.1, "range constant: theta in [c, 1-c]^d, in (0, 0.5)")
	fs.Float64Var(&co.delta, "delta", 1e-5, "delta of the (eps, delta) summary, in (0, 1)")
	fs.StringVar(&co.conversion, "conversion", rdp.Balle2020.String(), "RDP to (eps, delta): balle2020 or mironov2017")
	fs.StringVar(&co.format, "format", "csv", "csv, json or table")
	fs.StringVar(&co.summary, "summary", "", "CSV file for the (eps, delta) summary (csv format: default stderr)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOptions(&o, solverOpts); err != nil {
		return err
	}
	curve, source, conv, err := co.check(fs)
	if err != nil {
		return err
	}
	bounds, err := mixing.New(mixing.Kernel{D: co.d, K: co.k, C: co.c})
	if err != nil {
		return usagef("--d, --k: %s", bare(err))
	}

	n := len(curve.Orders)
	settings := solverSettings(&o, n)
	var (
		rows   []*curveRow
		failed int
		w      *csv.Writer
	)
	if co.format == "csv" {
		w = csv.NewWriter(stdout)
		w.Write(curveHeader)
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
	}
	do := func(ctx context.Context, i int) (*curveRow, error) {
		p := bernamp.Params{D: co.d, K: co.k, C: co.c, Alpha: curve.Orders[i], Eps: curve.Eps[i]}
		r, err := bernamp.Post(ctx, p, settings)
		if err != nil {
			return nil, fmt.Errorf("order %s: %w", fmtFloat(p.Alpha), err)
		}
		row := &curveRow{D: p.D, K: p.K, C: p.C, Alpha: p.Alpha, Eps: p.Eps, LB: r.LB, Post: r.Post, PostUpper: r.PostUpper,
			Status: r.Status, UB: r.UB, Conjecture: r.Conjecture, Method: r.Method,
			Dobrushin:   mixing.Renyi(bounds.Dobrushin, p.Alpha, p.Eps),
			Doeblin:     mixing.Renyi(bounds.Doeblin, p.Alpha, p.Eps),
			UltraMixing: mixing.Renyi(bounds.UltraMixing, p.Alpha, p.Eps)}
		if !o.noTiming {
			row.Seconds = math.Round(r.Seconds*1e4) / 1e4
		}
		return row, nil
	}
	emit := func(_ int, row *curveRow) error {
		if msg := row.crossCheck(); msg != "" {
			failed++
			fmt.Fprintf(stderr, "bernamp: cross-check failed at alpha=%s: %s\n", fmtFloat(row.Alpha), msg)
		}
		rows = append(rows, row)
		if w != nil {
			w.Write(row.csvFields())
			w.Flush() // each row is visible as soon as it is known
			return w.Error()
		}
		return nil
	}
	err = parallel.Map(ctx, n, o.workers, do, emit)
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted: %d of %d orders written", len(rows), n)
	case err != nil:
		return err
	}

	summary, err := curveSummary(curve, rows, bounds, co.delta, conv)
	if err != nil {
		return err
	}
	for _, s := range summary {
		if s.Warning != "" {
			fmt.Fprintf(stderr, "bernamp: warning: %s: %s\n", s.Bound, s.Warning)
		}
	}
	switch co.format {
	case "csv":
		if co.summary == "" {
			writeSummaryTable(stderr, summary, co.delta)
		}
	case "json":
		out := curveOutput{Mechanism: source, D: co.d, K: co.k, C: co.c, Delta: co.delta, Conversion: conv.String(), Orders: rows, Summary: summary}
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	case "table":
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "alpha\teps\tlb\tpost\tpost_upper\tstatus\tdobrushin\tdoeblin\tultra_mixing")
		for _, r := range rows {
			fmt.Fprintf(tw, "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%.6g\t%.6g\t%.6g\n", r.Alpha, r.Eps, r.LB, r.Post, r.PostUpper, r.Status, r.Dobrushin, r.Doeblin, r.UltraMixing)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s; kernel d=%d k=%d c=%s\n", source, co.d, co.k, fmtFloat(co.c))
		writeSummaryTable(stdout, summary, co.delta)
	}
	if co.summary != "" {
		if err := writeFileAtomic(co.summary, func(w io.Writer) error { return writeSummaryCSV(w, summary) }); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d orders failed the cross-check", failed, n)
	}
	return nil
}

// check validates the curve flags and returns the curve, a description of
// its source and the conversion. Every error is a usage error naming the
// flag.
func (co *curveOptions) check(fs *flag.FlagSet) (rdp.Curve, string, rdp.Conversion, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	fail := func(err error) (rdp.Curve, string, rdp.Conversion, error) { return rdp.Curve{}, "", 0, err }
	if err := check.D(co.d); err != nil {
		return fail(flagError("d", err))
	}
	if err := check.K(co.k); err != nil {
		return fail(flagError("k", err))
	}
	if err := check.C(co.c); err != nil {
		return fail(flagError("c", err))
	}
	if err := rdp.CheckDelta(co.delta); err != nil {
		return fail(flagError("delta", err))
	}
	conv, err := rdp.ParseConversion(co.conversion)
	if err != nil {
		return fail(flagError("conversion", err))
	}
	switch co.format {
	case "csv", "json", "table":
	default:
		return fail(usagef("--format: format is %q, must be csv, json or table", co.format))
	}
	// Each mechanism parameter belongs to one mechanism.
	owner := map[string]string{"sigma": "gaussian", "b": "laplace", "p": "rr"}
	for _, name := range []string{"sigma", "b", "p"} {
		if set[name] && co.mechanism != owner[name] {
			return fail(usagef("--%s: only with --mechanism %s", name, owner[name]))
		}
	}
	if co.in != "" {
		if co.mechanism != "" {
			return fail(usagef("--in: give either --in or --mechanism, not both"))
		}
		if set["orders"] {
			return fail(usagef("--orders: not with --in (the file gives the orders)"))
		}
		f, err := os.Open(co.in)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		c, err := rdp.ReadCSV(f)
		if err != nil {
			return fail(usagef("--in: %s: %s", co.in, bare(err)))
		}
		return c, "curve from " + co.in, conv, nil
	}
	var orders []float64 // nil: rdp.DefaultOrders
	if set["orders"] {
		if orders, err = parseFloats(co.orders); err != nil {
			return fail(flagError("orders", err))
		}
		for i, a := range orders {
			if err := check.Alpha(a); err != nil {
				return fail(flagError("orders", err))
			}
			if i > 0 && a <= orders[i-1] {
				return fail(usagef("--orders: alpha %v does not exceed the previous order %v (orders must be strictly increasing)", a, orders[i-1]))
			}
		}
	}
	positive := func(name string, v float64) error {
		if !set[name] {
			return usagef("--%s: needed with --mechanism %s", name, co.mechanism)
		}
		if !(v > 0) || math.IsInf(v, 1) {
			return usagef("--%s: %s is %v, must be > 0 and finite", name, name, v)
		}
		return nil
	}
	var (
		c      rdp.Curve
		source string
	)
	switch co.mechanism {
	case "gaussian":
		if err := positive("sigma", co.sigma); err != nil {
			return fail(err)
		}
		c, err = rdp.Gaussian(co.sigma, orders)
		source = fmt.Sprintf("gaussian mechanism, sigma=%s", fmtFloat(co.sigma))
	case "laplace":
		if err := positive("b", co.b); err != nil {
			return fail(err)
		}
		c, err = rdp.Laplace(co.b, orders)
		source = fmt.Sprintf("laplace mechanism, b=%s", fmtFloat(co.b))
	case "rr":
		if !set["p"] {
			return fail(usagef("--p: needed with --mechanism rr"))
		}
		if !(co.p > 0 && co.p < 1) {
			return fail(usagef("--p: p is %v, must be in (0, 1)", co.p))
		}
		c, err = rdp.RandomizedResponse(co.p, orders)
		source = fmt.Sprintf("randomized response, p=%s", fmtFloat(co.p))
	case "":
		return fail(usagef("--mechanism: give --mechanism gaussian|laplace|rr or --in FILE"))
	default:
		return fail(usagef("--mechanism: mechanism is %q, must be gaussian, laplace or rr", co.mechanism))
	}
	if err != nil {
		// The parameters are valid; only an overflow of eps is left.
		return fail(usagef("--mechanism: %s", bare(err)))
	}
	return c, source, conv, nil
}

// bare returns the message of a library error without the "pkg.Func: "
// prefix, for a one-line usage message that names the flag instead.
func bare(err error) string {
	msg := err.Error()
	if name, rest, ok := strings.Cut(msg, ": "); ok && strings.Contains(name, ".") && !strings.Contains(name, " ") {
		return rest
	}
	return msg
}

// curveSummary converts the input curve, the amplified curve and the
// comparator curves to (eps, delta)-DP, and applies Theorem 1 of Balle et
// al. to the input curve's (eps, delta) profile.
func curveSummary(in rdp.Curve, rows []*curveRow, b *mixing.Bounds, delta float64, conv rdp.Conversion) ([]summaryRow, error) {
	var out []summaryRow
	add := func(name string, c rdp.Curve) error {
		a, err := rdp.ToApprox(c, delta, conv)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, summaryRow{Bound: name, Eps: &a.Eps, Delta: delta, Order: &a.Order, Warning: a.Warning})
		return nil
	}
	if err := add("mechanism", in); err != nil {
		return nil, err
	}
	for _, col := range []struct {
		name string
		get  func(*curveRow) float64
	}{
		{"bernamp", func(r *curveRow) float64 { return r.PostUpper }},
		{"rdp_dobrushin", func(r *curveRow) float64 { return r.Dobrushin }},
		{"rdp_doeblin", func(r *curveRow) float64 { return r.Doeblin }},
		{"rdp_ultra_mixing", func(r *curveRow) float64 { return r.UltraMixing }},
	} {
		up := make([]float64, len(rows))
		for i, r := range rows {
			up[i] = col.get(r)
		}
		c, err := rdp.FromBounds(in.Orders, up)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", col.name, err)
		}
		if err := add(col.name, c); err != nil {
			return nil, err
		}
	}
	for _, it := range mixing.Items {
		cl, err := b.Approx(it, in, conv, delta)
		if err != nil {
			return nil, err
		}
		s := summaryRow{Bound: "thm1_" + it.String(), Delta: delta}
		if !cl.Vacuous {
			s.Eps, s.Order, s.DeltaIn, s.EpsIn = &cl.Eps, &cl.Order, &cl.DeltaIn, &cl.EpsIn
		}
		out = append(out, s)
	}
	return out, nil
}

// writeSummaryTable writes the summary as an aligned table.
func writeSummaryTable(w io.Writer, summary []summaryRow, delta float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "(eps, delta=%s)-DP\teps\torder\tdelta_in\n", fmtFloat(delta))
	for _, s := range summary {
		eps, order, din := "none", "", ""
		if s.Eps != nil {
			eps = fmt.Sprintf("%.6g", *s.Eps)
		}
		if s.Order != nil {
			order = fmtFloat(*s.Order)
		}
		if s.DeltaIn != nil {
			din = fmt.Sprintf("%.3g", *s.DeltaIn)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Bound, eps, order, din)
	}
	tw.Flush()
}

// writeSummaryCSV writes the summary as CSV with summaryHeader.
func writeSummaryCSV(w io.Writer, summary []summaryRow) error {
	rows := make([]*summaryRow, len(summary))
	for i := range summary {
		rows[i] = &summary[i]
	}
	return writeCSV(w, summaryHeader, rows)
}
