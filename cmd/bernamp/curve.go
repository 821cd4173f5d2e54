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

	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/mixing"
	"github.com/bernamp/bernamp/rdp"
)

// curveOptions holds the flags of curve besides the solver's.
type curveOptions struct {
	maxMem     int64    // --max-memory in bytes (caps the --in files)
	mechanism  string   // gaussian, laplace or rr; "" with --in
	sigma      float64  // gaussian noise multiplier
	b          float64  // laplace scale
	p          float64  // rr: probability of the true bit
	noise      float64  // rr: dp_accounting's noise_parameter (probability of a uniform answer)
	in         fileList // accountant curves, summed
	orders     string   // list or range; "" means rdp.DefaultOrders
	d, k       int
	c          float64
	delta      float64
	conversion string
	format     string
	summary    string // CSV file of the (eps, delta) summary
	compose    int    // releases composed in the summary and the emitted curve
	emit       string // file for the amplified curve (CSV, or JSON for .json)
}

// fileList is a flag that may be repeated (or given as a comma list).
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(v string) error {
	for p := range strings.SplitSeq(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*f = append(*f, p)
		}
	}
	return nil
}

// infFloat is a level that may be +Inf (no guarantee): null in JSON.
type infFloat float64

func (v infFloat) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(v), 1) {
		return []byte("null"), nil
	}
	return []byte(fmtFloat(float64(v))), nil
}

// fmtLevel is fmtFloat, with +Inf written as the given word.
func fmtLevel(v float64, inf string) string {
	if math.IsInf(v, 1) {
		return inf
	}
	return fmtFloat(v)
}

// curveHeader is the CSV header of curve, in column order.
var curveHeader = []string{"d", "k", "c", "alpha", "eps", "lb", "post", "post_upper", "status", "check",
	"dobrushin", "doeblin", "ultra_mixing", "seconds"}

// curveRow is one order of the amplified curve. Values are in nats.
type curveRow struct {
	D         int      `json:"d"`
	K         int      `json:"k"`
	C         float64  `json:"c"`
	Alpha     float64  `json:"alpha"`      // Rényi order
	Eps       infFloat `json:"eps"`        // RDP level of the mechanism at alpha; inf (null): none
	LB        float64  `json:"lb"`         // Theorem 4 lower bound on Post
	Post      float64  `json:"post"`       // verified witness: Post >= post
	PostUpper float64  `json:"post_upper"` // proved: Post <= post_upper
	Status    string   `json:"status"`     // certified, witness or bounds
	Check     string   `json:"check"`      // the independent check behind post_upper: verified, rejected, off or none
	// RDP bounds from the coefficients of Balle et al. (mixing.Renyi):
	// upper bounds on Post, as post_upper is; inf (none, null) where eps is.
	Dobrushin   infFloat `json:"dobrushin"`
	Doeblin     infFloat `json:"doeblin"`
	UltraMixing infFloat `json:"ultra_mixing"`
	Seconds     float64  `json:"seconds"` // wall time; 0 with --no-timing

	UB         float64 `json:"ub"`         // min(eps, d k r_alpha(c))
	Conjecture string  `json:"conjecture"` // proved, open or refuted (Post = LB)
	Method     string  `json:"method"`     // how post_upper was proved
}

func (r *curveRow) csvFields() []string {
	return []string{strconv.Itoa(r.D), strconv.Itoa(r.K), fmtFloat(r.C), fmtFloat(r.Alpha), fmtLevel(float64(r.Eps), "inf"),
		fmtFloat(r.LB), fmtFloat(r.Post), fmtFloat(r.PostUpper), r.Status, r.Check,
		fmtLevel(float64(r.Dobrushin), "none"), fmtLevel(float64(r.Doeblin), "none"), fmtLevel(float64(r.UltraMixing), "none"),
		strconv.FormatFloat(r.Seconds, 'f', 4, 64)}
}

// summaryRow is one (eps, delta)-DP guarantee of the summary.
type summaryRow accountant.SummaryRow

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
	Mechanism  string                  `json:"mechanism"`  // where the curve came from
	D          int                     `json:"d"`          // kernel B_k on [c, 1-c]^d
	K          int                     `json:"k"`          //
	C          float64                 `json:"c"`          //
	Delta      float64                 `json:"delta"`      // target delta of the summary
	Conversion string                  `json:"conversion"` // RDP to (eps, delta) conversion
	Compose    int                     `json:"compose"`    // releases composed in the summary
	Orders     []*curveRow             `json:"orders"`     // one row per order
	Summary    []accountant.SummaryRow `json:"summary"`    // (eps, delta) guarantees
}

// runCurve amplifies an RDP curve order by order, converts it to (eps,
// delta)-DP and compares it with the bounds of Balle et al.
func runCurve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	var co curveOptions
	fs := newFlagSet("curve", &o, solverOpts)
	co.sourceFlags(fs)
	fs.IntVar(&co.d, "d", 1, "dimension of theta, >= 1")
	fs.IntVar(&co.k, "k", 1, "Bernoulli samples released, >= 1")
	fs.Float64Var(&co.c, "c", 0.1, "range constant: theta in [c, 1-c]^d, in (0, 0.5)")
	fs.Float64Var(&co.delta, "delta", 1e-5, "delta of the (eps, delta) summary, in (0, 1)")
	fs.IntVar(&co.compose, "compose", 1, "releases composed (RDP adds per order) in the summary and --emit-curve, >= 1")
	fs.StringVar(&co.emit, "emit-curve", "", "write the amplified curve (post_upper, monotone, composed) to FILE: CSV alpha,eps, or JSON {orders, rdp} when FILE ends in .json")
	fs.StringVar(&co.format, "format", "csv", "csv, json or table")
	fs.StringVar(&co.summary, "summary", "", "CSV file for the (eps, delta) summary (csv format: default stderr)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOptions(&o, solverOpts); err != nil {
		return err
	}
	co.maxMem = o.maxMem
	curve, source, conv, warnings, err := co.check(fs)
	if err != nil {
		return err
	}
	if conv == rdp.DPAccounting && !(curve.Orders[len(curve.Orders)-1] > 1.01) {
		return usagef("--conversion: dp_accounting needs an order above 1.01 (at and below it only its KL line applies)")
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "bernamp: warning: %s\n", w)
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
	var orders []accountant.Order
	emit := func(i int, r accountant.Order) error {
		eps := curve.Eps[i]
		orders = append(orders, r)
		row := &curveRow{D: co.d, K: co.k, C: co.c, Alpha: r.Alpha, Eps: infFloat(eps), LB: r.LB, Post: r.Post, PostUpper: r.PostUpper,
			Status: r.Status, Check: r.Check.Status, UB: r.UB, Conjecture: r.Conjecture, Method: r.Method,
			Dobrushin: infFloat(r.Dobrushin), Doeblin: infFloat(r.Doeblin), UltraMixing: infFloat(r.UltraMixing)}
		if !o.noTiming {
			row.Seconds = math.Round(r.Seconds*1e4) / 1e4
		}
		if msg := r.CrossCheck(); msg != "" {
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
	err = accountant.Compare(ctx, curve, accountant.Kernel{D: co.d, K: co.k, C: co.c}, settings, o.workers, emit)
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted: %d of %d orders written", len(rows), n)
	case err != nil:
		return err
	}

	summary, amplified, err := accountant.Summary(curve, orders, accountant.Kernel{D: co.d, K: co.k, C: co.c}, co.delta, conv, co.compose)
	if err != nil {
		return usagef("%s", bare(err))
	}
	if co.emit != "" {
		write := func(w io.Writer) error { return accountant.WriteCSV(w, amplified) }
		if strings.HasSuffix(strings.ToLower(co.emit), ".json") {
			write = func(w io.Writer) error { return accountant.WriteJSON(w, amplified) }
		}
		if err := writeFileAtomic(co.emit, write); err != nil {
			return err
		}
	}
	// One line per cause: the bounds that share a warning are named together.
	var causes []string
	named := map[string][]string{}
	for _, s := range summary {
		if s.Warning != "" {
			if named[s.Warning] == nil {
				causes = append(causes, s.Warning)
			}
			named[s.Warning] = append(named[s.Warning], s.Bound)
		}
	}
	for _, w := range causes {
		fmt.Fprintf(stderr, "bernamp: warning: %s: %s\n", strings.Join(named[w], ", "), w)
	}
	switch co.format {
	case "csv":
		if co.summary == "" {
			writeSummaryTable(stderr, summary, co.delta)
		}
	case "json":
		out := curveOutput{Mechanism: source, D: co.d, K: co.k, C: co.c, Delta: co.delta, Conversion: conv.String(), Compose: co.compose, Orders: rows, Summary: summary}
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	case "table":
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "alpha\teps\tlb\tpost\tpost_upper\tstatus\tcheck\tdobrushin\tdoeblin\tultra_mixing")
		for _, r := range rows {
			g := func(v infFloat, inf string) string {
				if math.IsInf(float64(v), 1) {
					return inf
				}
				return fmt.Sprintf("%.6g", float64(v))
			}
			fmt.Fprintf(tw, "%.6g\t%s\t%.6g\t%.6g\t%.6g\t%s\t%s\t%s\t%s\t%s\n", r.Alpha, g(r.Eps, "inf"), r.LB, r.Post, r.PostUpper, r.Status, r.Check,
				g(r.Dobrushin, "none"), g(r.Doeblin, "none"), g(r.UltraMixing, "none"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s; kernel d=%d k=%d c=%s", source, co.d, co.k, fmtFloat(co.c))
		if co.compose > 1 {
			fmt.Fprintf(stdout, "; %d releases composed", co.compose)
		}
		fmt.Fprintln(stdout)
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

// rrFlags defines the flags of randomized response. bernamp's parameter
// is the probability of the true bit; dp_accounting's
// RandomizedResponseDpEvent(noise_parameter, num_buckets) takes the
// probability of a uniform answer instead, and the old name --p could be
// read as either, so it is refused with a pointer to both.
// sourceFlags registers the flags that name the mechanism's RDP curve and
// its conversion to (eps, delta), shared by curve and calibrate.
func (co *curveOptions) sourceFlags(fs *flag.FlagSet) {
	fs.StringVar(&co.mechanism, "mechanism", "", "named mechanism: gaussian (--sigma), laplace (--b) or rr (--p-true or --noise-parameter); or use --in")
	fs.Float64Var(&co.sigma, "sigma", 0, "gaussian: noise multiplier (L2 sensitivity 1), > 0")
	fs.Float64Var(&co.b, "b", 0, "laplace: scale (L1 sensitivity 1), > 0")
	co.rrFlags(fs)
	fs.Var(&co.in, "in", "accountant curve file: CSV alpha,eps or JSON {\"orders\", \"rdp\"}; repeat (or a comma list) to sum curves (instead of --mechanism)")
	fs.StringVar(&co.orders, "orders", "", "Rényi orders: list or range, > 1 (default dp_accounting's 156 orders 1.1..10.9, 11..63, 128..1024)")
	fs.StringVar(&co.conversion, "conversion", rdp.Balle2020.String(), "RDP to (eps, delta): balle2020, mironov2017 or dp_accounting")
}

func (co *curveOptions) rrFlags(fs *flag.FlagSet) {
	fs.Float64Var(&co.p, "p-true", 0, "rr: probability of reporting the true bit, in (0, 1)")
	fs.Float64Var(&co.noise, "noise-parameter", 0, "rr: dp_accounting's noise_parameter, the probability of a uniform random answer (num_buckets = 2), in (0, 1]: p-true = 1 - noise/2")
	fs.Func("p", "renamed: use --p-true or --noise-parameter", func(string) error {
		return errors.New("renamed: --p-true P (probability of the true bit) or --noise-parameter Q (dp_accounting's RandomizedResponseDpEvent(Q, 2), p-true = 1 - Q/2)")
	})
}

// check validates the curve flags and returns the curve, a description of
// its source, the conversion and the warnings of reading it. Every error is
// a usage error naming the flag.
func (co *curveOptions) check(fs *flag.FlagSet) (accountant.Curve, string, rdp.Conversion, []string, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	fail := func(err error) (accountant.Curve, string, rdp.Conversion, []string, error) {
		return accountant.Curve{}, "", 0, nil, err
	}
	if err := check.D(co.d); err != nil {
		return fail(flagError("d", err))
	}
	if err := check.K(co.k); err != nil {
		return fail(flagError("k", err))
	}
	if err := check.C(co.c); err != nil {
		return fail(flagError("c", err))
	}
	if err := (mixing.Kernel{D: co.d, K: co.k, C: co.c}).Validate(); err != nil {
		return fail(usagef("--d, --k: %s", bare(err)))
	}
	if err := rdp.CheckDelta(co.delta); err != nil {
		return fail(flagError("delta", err))
	}
	conv, err := rdp.ParseConversion(co.conversion)
	if err != nil {
		return fail(flagError("conversion", err))
	}
	if co.compose < 1 {
		return fail(usagef("--compose: compose is %d, must be >= 1", co.compose))
	}
	switch co.format {
	case "csv", "json", "table":
	default:
		return fail(usagef("--format: format is %q, must be csv, json or table", co.format))
	}
	c, source, warnings, err := co.source(set)
	if err != nil {
		return fail(err)
	}
	return c, source, conv, warnings, nil
}

// source returns the mechanism's curve of the flags of sourceFlags (set:
// the flags given), a description of it and the warnings of reading it:
// the files of --in summed, or the named mechanism on its orders. Every
// error is a usage error naming the flag, but for a file that cannot be
// read.
func (co *curveOptions) source(set map[string]bool) (accountant.Curve, string, []string, error) {
	if len(co.in) > 0 {
		if co.mechanism != "" {
			return accountant.Curve{}, "", nil, usagef("--in: give either --in or --mechanism, not both")
		}
		owner := map[string]string{"sigma": "gaussian", "b": "laplace", "p-true": "rr", "noise-parameter": "rr"}
		for _, name := range []string{"sigma", "b", "p-true", "noise-parameter"} {
			if set[name] {
				return accountant.Curve{}, "", nil, usagef("--%s: only with --mechanism %s", name, owner[name])
			}
		}
		if set["orders"] {
			return accountant.Curve{}, "", nil, usagef("--orders: not with --in (the file gives the orders)")
		}
		c, warnings, err := readCurves(co.in, co.maxMem)
		if err != nil {
			return accountant.Curve{}, "", nil, err
		}
		return c, "curve from " + strings.Join(co.in, " + "), warnings, nil
	}
	c, source, err := mechanismCurve(set, co.mechanism, co.orders, co.sigma, co.b, co.p, co.noise)
	if err != nil {
		return accountant.Curve{}, "", nil, err
	}
	return accountant.FromRDP(c), source, nil, nil
}

// readCurves reads the accountant curves of files and sums them (their
// composition). A file that cannot be opened is a runtime error; a bad
// curve a usage error naming the file.
func readCurves(files []string, maxMem int64) (accountant.Curve, []string, error) {
	var (
		curves   []accountant.Curve
		warnings []string
	)
	for _, name := range files {
		if err := checkInputSize("--in", name, maxMem); err != nil {
			return accountant.Curve{}, nil, err
		}
		f, err := os.Open(name)
		if err != nil {
			return accountant.Curve{}, nil, err
		}
		c, w, err := accountant.Read(f)
		f.Close()
		if err != nil {
			return accountant.Curve{}, nil, usagef("--in: %s: %s", name, bare(err))
		}
		for _, x := range w {
			warnings = append(warnings, name+": "+x)
		}
		curves = append(curves, c)
	}
	c, w, err := accountant.Sum(curves...)
	if err != nil {
		return accountant.Curve{}, nil, usagef("--in: %s", bare(err))
	}
	return c, append(warnings, w...), nil
}

// mechanismCurve returns the curve of a named mechanism on the orders of
// the --orders flag (dp_accounting's when not set), checking that each
// parameter flag belongs to the mechanism. Every error is a usage error
// naming the flag.
func mechanismCurve(set map[string]bool, mechanism, ordersFlag string, sigma, b, pTrue, noise float64) (rdp.Curve, string, error) {
	fail := func(err error) (rdp.Curve, string, error) { return rdp.Curve{}, "", err }
	switch mechanism { // the name first: a parameter is judged against a known mechanism
	case "gaussian", "laplace", "rr", "":
	default:
		return fail(usagef("--mechanism: mechanism is %q, must be gaussian, laplace or rr", mechanism))
	}
	owner := map[string]string{"sigma": "gaussian", "b": "laplace", "p-true": "rr", "noise-parameter": "rr"}
	for _, name := range []string{"sigma", "b", "p-true", "noise-parameter"} {
		if set[name] && mechanism != owner[name] {
			return fail(usagef("--%s: only with --mechanism %s", name, owner[name]))
		}
	}
	var orders []float64 // nil: rdp.DefaultOrders
	if set["orders"] {
		if err := checkOrders(ordersFlag); err != nil {
			return fail(err)
		}
		var err error
		if orders, err = parseFloats(ordersFlag); err != nil {
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
			return usagef("--%s: needed with --mechanism %s", name, mechanism)
		}
		if !(v > 0) || math.IsInf(v, 1) {
			return usagef("--%s: %s is %v, must be > 0 and finite", name, name, v)
		}
		return nil
	}
	var (
		c      rdp.Curve
		source string
		err    error
	)
	switch mechanism {
	case "gaussian":
		if err := positive("sigma", sigma); err != nil {
			return fail(err)
		}
		c, err = rdp.Gaussian(sigma, orders)
		source = fmt.Sprintf("gaussian mechanism, sigma=%s", fmtFloat(sigma))
	case "laplace":
		if err := positive("b", b); err != nil {
			return fail(err)
		}
		c, err = rdp.Laplace(b, orders)
		source = fmt.Sprintf("laplace mechanism, b=%s", fmtFloat(b))
	case "rr":
		switch {
		case set["p-true"] && set["noise-parameter"]:
			return fail(usagef("--p-true: give either --p-true or --noise-parameter, not both"))
		case set["noise-parameter"]:
			if !(noise > 0 && noise <= 1) {
				return fail(usagef("--noise-parameter: noise-parameter is %v, must be in (0, 1]", noise))
			}
			pTrue = rdp.RRTruthProb(noise)
			source = fmt.Sprintf("randomized response, noise_parameter=%s (p_true=%s)", fmtFloat(noise), fmtFloat(pTrue))
		case set["p-true"]:
			if !(pTrue > 0 && pTrue < 1) {
				return fail(usagef("--p-true: p-true is %v, must be in (0, 1)", pTrue))
			}
			source = fmt.Sprintf("randomized response, p_true=%s", fmtFloat(pTrue))
		default:
			return fail(usagef("--p-true: needed with --mechanism rr (or --noise-parameter)"))
		}
		c, err = rdp.RandomizedResponse(pTrue, orders)
	case "":
		return fail(usagef("--mechanism: give --mechanism gaussian|laplace|rr or --in FILE"))
	default:
		return fail(usagef("--mechanism: mechanism is %q, must be gaussian, laplace or rr", mechanism))
	}
	if err != nil {
		// The parameters are valid; only an overflow of eps is left.
		return fail(usagef("--mechanism: %s", bare(err)))
	}
	return c, source, nil
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

// writeSummaryTable writes the summary as an aligned table.
func writeSummaryTable(w io.Writer, summary []accountant.SummaryRow, delta float64) {
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
func writeSummaryCSV(w io.Writer, summary []accountant.SummaryRow) error {
	rows := make([]*summaryRow, len(summary))
	for i := range summary {
		rows[i] = (*summaryRow)(&summary[i])
	}
	return writeCSV(w, summaryHeader, rows)
}
