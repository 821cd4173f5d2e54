package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/internal/floatbits"
)

// header is the CSV header, in column order.
var header = []string{"d", "k", "c", "alpha", "eps", "lb", "ub", "post", "post_upper", "status", "check", "seconds"}

// rangesHeader is the CSV header of a run with --range: the ranges
// lo:hi;lo:hi;... replace c.
var rangesHeader = append(slices.Clone(header[:2]), append([]string{"ranges"}, header[3:]...)...)

// record is one output row. The fields up to Seconds are the CSV columns,
// in order; JSON output has them all. Values are in nats.
type record struct {
	D         int     `json:"d"`                // dimension of theta
	K         int     `json:"k"`                // Bernoulli samples released
	C         float64 `json:"c"`                // theta in [c, 1-c]^d
	Alpha     float64 `json:"alpha"`            // Rényi order
	Eps       float64 `json:"eps"`              // RDP level of the mechanism
	LB        float64 `json:"lb"`               // Theorem 4 lower bound on Post
	UB        float64 `json:"ub"`               // min(ub_post_processing, ub_asymptote)
	Post      float64 `json:"post"`             // verified value of the witness: Post >= post
	PostUpper float64 `json:"post_upper"`       // proved upper bound: Post <= post_upper
	Status    string  `json:"status"`           // certified, witness or bounds
	Check     string  `json:"check"`            // the independent check behind post_upper: verified, rejected, off or none
	Seconds   float64 `json:"seconds"`          // wall time, rounded to 1e-4 s; 0 with --no-timing
	Ranges    string  `json:"ranges,omitempty"` // with --range: lo:hi;lo:hi;... in place of c (0)

	UBPostProcessing float64        `json:"ub_post_processing"` // eps
	UBAsymptote      float64        `json:"ub_asymptote"`       // d k r_alpha(c), rounded up
	Thm2             float64        `json:"thm2"`               // Theorem 2 lower bound (k = 1), else 0
	Excess           float64        `json:"excess"`             // post - lb
	Conjecture       string         `json:"conjecture"`         // proved, open or refuted
	Method           string         `json:"method"`             // how post_upper was proved
	Witness          *witnessRecord `json:"witness,omitempty"`
	Search           *searchRecord  `json:"search,omitempty"`
	Pieces           *piecesRecord  `json:"pieces,omitempty"`
	CheckReport      *checkRecord   `json:"check_report,omitempty"`
	Note             string         `json:"note,omitempty"` // why an exact engine did not run (bernamp.Result.Note)
}

// checkRecord is what the independent checker did (bernamp.Check), when it
// ran.
type checkRecord struct {
	Tiles   int     `json:"tiles"`             // tiles of the certificate
	Boxes   int     `json:"boxes"`             // boxes the checker bounded
	Failure string  `json:"failure,omitempty"` // why it rejected the certificate
	Seconds float64 `json:"seconds"`           // wall time; 0 with --no-timing
}

// piecesRecord is the whole-box two-point-pieces certificate at n = d k.
type piecesRecord struct {
	N         int     `json:"n"`         // d k
	Upper     float64 `json:"upper"`     // proved upper bound on Post over the whole box
	Proved    bool    `json:"proved"`    // upper - lb <= tol: Post = LB
	Boxes     int     `json:"boxes"`     // boxes of the branch and bound
	Violation bool    `json:"violation"` // the inequality failed at a point with the first-order multipliers
	Seconds   float64 `json:"seconds"`   // wall time; 0 with --no-timing
}

// witnessRecord is the feasible pair (P, Q) behind post.
type witnessRecord struct {
	Corners []string  `json:"corners"` // support as bit strings: bit l = 0 means theta_l = c
	P       []float64 `json:"p"`       // masses of P on corners
	Q       []float64 `json:"q"`       // masses of Q on corners
	Value   float64   `json:"value"`   // R_alpha(B_k(P) || B_k(Q))
	DivPQ   float64   `json:"div_pq"`  // R_alpha(P || Q) <= eps
	DivQP   float64   `json:"div_qp"`  // R_alpha(Q || P) <= eps
}

// searchRecord is the work behind post_upper.
type searchRecord struct {
	Boxes     int     `json:"boxes"`              // branch-and-bound nodes bounded
	Open      int     `json:"open"`               // nodes open when the search stopped
	Cuts      int     `json:"cuts"`               // tangent cuts generated
	Evals     int     `json:"evals"`              // objective evaluations
	Complete  bool    `json:"complete"`           // false when cut short
	OpenBound float64 `json:"open_bound"`         // largest bound among open nodes
	Configs   int     `json:"configs,omitempty"`  // d >= 2: support configurations
	Searched  int     `json:"searched,omitempty"` // d >= 2: configurations screened
	Deep      int     `json:"deep,omitempty"`     // d >= 2: configurations searched deeply
	Pruned    int     `json:"pruned,omitempty"`   // d >= 2: configurations pruned by a proved bound
}

// newRecord converts a result; with timing false, Seconds is 0.
func newRecord(r bernamp.Result, timing bool) *record {
	rec := &record{
		D: r.D, K: r.K, C: r.C, Alpha: r.Alpha, Eps: r.Eps,
		LB: r.LB, UB: r.UB, Post: r.Post, PostUpper: r.PostUpper, Status: r.Status, Check: r.Check.Status,
		UBPostProcessing: r.UBPostProcessing,
		UBAsymptote:      r.UBAsymptote,
		Thm2:             r.Theorem2,
		Excess:           r.Excess,
		Conjecture:       r.Conjecture,
		Method:           r.Method,
		Note:             r.Note,
	}
	if timing {
		rec.Seconds = math.Round(r.Seconds*1e4) / 1e4
	}
	if r.Ranges != nil {
		rec.Ranges = formatRanges(r.Ranges)
	}
	if w := r.Witness; w != nil {
		rec.Witness = &witnessRecord{Corners: w.Corners, P: w.P, Q: w.Q, Value: w.Value, DivPQ: w.DivPQ, DivQP: w.DivQP}
	}
	if s := r.Search; s != nil {
		rec.Search = &searchRecord{Boxes: s.Boxes, Open: s.Open, Cuts: s.Cuts, Evals: s.Evals, Complete: s.Complete, OpenBound: s.OpenBound,
			Configs: s.Configs, Searched: s.Searched, Deep: s.Deep, Pruned: s.Pruned}
	}
	if c := r.Pieces; c != nil {
		rec.Pieces = &piecesRecord{N: c.N, Upper: c.Upper, Proved: c.Proved, Boxes: c.Boxes, Violation: c.Violation}
		if timing {
			rec.Pieces.Seconds = math.Round(c.Seconds*1e4) / 1e4
		}
	}
	if c := r.Check; c.Status == bernamp.CheckVerified || c.Status == bernamp.CheckRejected {
		rec.CheckReport = &checkRecord{Tiles: c.Tiles, Boxes: c.Boxes, Failure: c.Failure}
		if timing {
			rec.CheckReport.Seconds = math.Round(c.Seconds*1e4) / 1e4
		}
	}
	return rec
}

// fmtFloat is the shortest decimal that parses back to v.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// optFloat is fmtFloat of *v, or "" for nil: a value that does not exist.
func optFloat(v *float64) string {
	if v == nil {
		return ""
	}
	return fmtFloat(*v)
}

// point names the grid point of the row.
func (r *record) point() string {
	s := pointString(bernamp.Params{D: r.D, K: r.K, C: r.C, Alpha: r.Alpha, Eps: r.Eps})
	if r.Ranges != "" {
		s = strings.Replace(s, "c=0", "ranges="+r.Ranges, 1)
	}
	return s
}

func pointString(p bernamp.Params) string {
	return fmt.Sprintf("d=%d k=%d c=%s alpha=%s eps=%s", p.D, p.K, fmtFloat(p.C), fmtFloat(p.Alpha), fmtFloat(p.Eps))
}

// finite returns an error naming the first value of r that is NaN or ±Inf.
// The library promises finite values, so such a value is a bug.
func (r *record) finite() error {
	type named struct {
		name string
		v    float64
	}
	vs := []named{
		{"lb", r.LB}, {"ub", r.UB}, {"post", r.Post}, {"post_upper", r.PostUpper},
		{"seconds", r.Seconds}, {"ub_post_processing", r.UBPostProcessing},
		{"ub_asymptote", r.UBAsymptote}, {"thm2", r.Thm2}, {"excess", r.Excess},
	}
	if w := r.Witness; w != nil {
		vs = append(vs, named{"witness.value", w.Value}, named{"witness.div_pq", w.DivPQ}, named{"witness.div_qp", w.DivQP})
		for j, p := range w.P {
			vs = append(vs, named{fmt.Sprintf("witness.p[%d]", j), p})
		}
		for j, q := range w.Q {
			vs = append(vs, named{fmt.Sprintf("witness.q[%d]", j), q})
		}
	}
	if s := r.Search; s != nil {
		vs = append(vs, named{"search.open_bound", s.OpenBound})
	}
	if c := r.Pieces; c != nil {
		vs = append(vs, named{"pieces.upper", c.Upper})
	}
	for _, x := range vs {
		if math.IsNaN(x.v) || math.IsInf(x.v, 0) {
			return fmt.Errorf("%s is %v", x.name, x.v)
		}
	}
	return nil
}

// csvFields returns the CSV columns of r, in header order (rangesHeader
// order for a record with ranges).
func (r *record) csvFields() []string {
	f := append(pointFields(bernamp.Params{D: r.D, K: r.K, C: r.C, Alpha: r.Alpha, Eps: r.Eps}),
		fmtFloat(r.LB), fmtFloat(r.UB), fmtFloat(r.Post), fmtFloat(r.PostUpper),
		r.Status, r.Check, strconv.FormatFloat(r.Seconds, 'f', 4, 64),
	)
	if r.Ranges != "" {
		f[2] = r.Ranges
	}
	return f
}

// formatRanges writes ranges as lo:hi;lo:hi;..., shortest decimals.
func formatRanges(ranges []bounds.Range) string {
	parts := make([]string, len(ranges))
	for l, r := range ranges {
		parts[l] = fmtFloat(r.Lo) + ":" + fmtFloat(r.Hi)
	}
	return strings.Join(parts, ";")
}

// pointFields returns the CSV columns d,k,c,alpha,eps of p.
func pointFields(p bernamp.Params) []string {
	return []string{strconv.Itoa(p.D), strconv.Itoa(p.K), fmtFloat(p.C), fmtFloat(p.Alpha), fmtFloat(p.Eps)}
}

// leq reports whether a <= b up to the cross-checks' rounding slack
// (floatbits.Leq).
func leq(a, b float64) bool { return floatbits.Leq(a, b) }

// crossCheck reports whether lb <= post <= post_upper <= ub holds.
func (r *record) crossCheck() bool {
	return leq(r.LB, r.Post) && leq(r.Post, r.PostUpper) && leq(r.PostUpper, r.UB)
}

// rowChecker cross-checks each row and reports failures and refutations of
// the conjecture on its writer, one line each.
type rowChecker struct {
	w      io.Writer
	failed int // rows that failed the cross-check
}

func (c *rowChecker) check(r *record) {
	if !r.crossCheck() {
		c.failed++
		fmt.Fprintf(c.w, "bernamp: cross-check failed: %s: lb=%s post=%s post_upper=%s ub=%s\n",
			r.point(), fmtFloat(r.LB), fmtFloat(r.Post), fmtFloat(r.PostUpper), fmtFloat(r.UB))
	}
	if r.Conjecture == bernamp.ConjectureRefuted {
		fmt.Fprintf(c.w, "bernamp: conjecture refuted at %s: post=%s exceeds lb=%s by %s",
			r.point(), fmtFloat(r.Post), fmtFloat(r.LB), fmtFloat(r.Excess))
		if w := r.Witness; w != nil {
			fmt.Fprintf(c.w, "; witness corners=%v p=%v q=%v value=%s div_pq=%s div_qp=%s",
				w.Corners, w.P, w.Q, fmtFloat(w.Value), fmtFloat(w.DivPQ), fmtFloat(w.DivQP))
		}
		fmt.Fprintln(c.w)
	}
}

// rowWriter writes records in one format. close finishes the output (the
// JSON closing bracket, the table) and must be called even after an error.
type rowWriter interface {
	write(r *record) error
	close() error
}

// newRowWriter writes the header of the format and returns its writer; with
// ranges, the column c holds the ranges.
func newRowWriter(format string, w io.Writer, ranges bool) (rowWriter, error) {
	hdr, c := header, "c"
	if ranges {
		hdr, c = rangesHeader, "ranges"
	}
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(hdr)
		cw.Flush()
		return csvWriter{cw}, cw.Error()
	case "json":
		_, err := io.WriteString(w, "[\n")
		return &jsonWriter{w: w}, err
	case "table":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		// The CSV's columns (conjecture is in JSON, with the rest).
		_, err := io.WriteString(tw, "d\tk\t"+c+"\talpha\teps\tlb\tub\tpost\tpost_upper\tstatus\tcheck\tseconds\n")
		return tableWriter{tw}, err
	}
	panic("bernamp: unknown format " + format) // formats are validated first
}

type csvWriter struct{ cw *csv.Writer }

func (w csvWriter) write(r *record) error {
	w.cw.Write(r.csvFields())
	w.cw.Flush() // each row is visible as soon as it is known
	return w.cw.Error()
}

func (w csvWriter) close() error { return nil }

// jsonWriter writes an array with one object per line.
type jsonWriter struct {
	w    io.Writer
	rows int
}

func (w *jsonWriter) write(r *record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if w.rows > 0 {
		b = append([]byte(",\n"), b...)
	}
	w.rows++
	_, err = w.w.Write(b)
	return err
}

func (w *jsonWriter) close() error {
	_, err := io.WriteString(w.w, "\n]\n")
	return err
}

// tableWriter aligns columns, so it writes when closed.
type tableWriter struct{ tw *tabwriter.Writer }

func (w tableWriter) write(r *record) error {
	c := strconv.FormatFloat(r.C, 'g', 10, 64)
	if r.Ranges != "" {
		c = r.Ranges
	}
	_, err := fmt.Fprintf(w.tw, "%d\t%d\t%s\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t%s\t%s\t%.4f\n",
		r.D, r.K, c, r.Alpha, r.Eps, r.LB, r.UB, r.Post, r.PostUpper, r.Status, r.Check, r.Seconds)
	return err
}

func (w tableWriter) close() error { return w.tw.Flush() }

// csvRecord is a row that knows its CSV fields.
type csvRecord interface{ csvFields() []string }

// writeCSV writes the header and the rows' fields as CSV.
func writeCSV[R csvRecord](w io.Writer, header []string, rows []R) error {
	cw := csv.NewWriter(w)
	cw.Write(header)
	for _, r := range rows {
		cw.Write(r.csvFields())
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes v as JSON indented by one space.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(v)
}
