// Package accountant connects bernamp to the privacy accountants that hold
// a practitioner's budget (Google's dp_accounting, Opacus, TensorFlow
// Privacy, autodp): it reads their RDP curves, composes them, amplifies them
// order by order by Bernoulli sampling, writes the amplified curve back in
// their shapes, and calibrates a parameter to a target (eps, delta).
//
// An accountant's curve may hold eps = +Inf at orders where the mechanism is
// not (alpha, eps)-RDP for any finite eps, or where a series did not
// converge: Curve allows it. The amplified level of such an order is still
// finite: the released samples of B_k on [c, 1-c]^d are at most
// (alpha, d k r_alpha(c))-RDP whatever the mechanism (Post), so an
// amplified curve is always finite.
//
// All levels are in nats. Every level this package returns is an upper
// bound on the exact value (rounded up); the conversions to (eps, delta)
// are those of package rdp.
package accountant

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/rdp"
)

// Curve is an accountant's RDP curve: the mechanism is (Orders[i],
// Eps[i])-RDP for every i. Orders are > 1, finite and strictly increasing;
// each Eps[i] is >= 0 and may be +Inf (no guarantee at that order); a
// curve read by Read is nondecreasing.
type Curve struct {
	Orders []float64 // Rényi orders, > 1 and finite, strictly increasing
	Eps    []float64 // RDP level at Orders[i], in nats, >= 0, +Inf allowed
}

// Validate returns an error naming the first entry outside its domain (it
// does not ask for monotonicity: Read repairs that).
func (c Curve) Validate() error {
	return rdp.CheckCurve(c.Orders, c.Eps, func(i int) error {
		if e := c.Eps[i]; !(e >= 0) {
			return fmt.Errorf("eps is %v, must be >= 0 (or inf)", e)
		}
		return nil
	})
}

// FromRDP returns c as a Curve.
func FromRDP(c rdp.Curve) Curve {
	return Curve{Orders: slices.Clone(c.Orders), Eps: slices.Clone(c.Eps)}
}

// Finite returns the orders of c with a finite eps as an rdp.Curve (the
// others prove nothing in a conversion), and false when there is none.
func (c Curve) Finite() (rdp.Curve, bool) {
	var f rdp.Curve
	for i, e := range c.Eps {
		if !math.IsInf(e, 1) {
			f.Orders, f.Eps = append(f.Orders, c.Orders[i]), append(f.Eps, e)
		}
	}
	return f, len(f.Orders) > 0
}

// Read reads an accountant's curve, CSV or JSON (the first character that
// is not blank decides: '{' is JSON):
//
//   - CSV: two columns alpha,eps, one order per record (an optional header,
//     '#' comments, blank lines; any order of alpha);
//   - JSON: {"orders": [...], "rdp": [...]}, the arrays an RdpAccountant
//     holds (other keys are ignored).
//
// eps may be inf (CSV: inf, Inf, infinity; JSON: Infinity as Python's json
// writes it, or the string "inf"). Orders <= 1, repeated orders, eps < 0
// and NaN are errors naming the line or index. An eps that decreases with
// alpha is repaired: since R_alpha is nondecreasing in alpha, a mechanism
// that is (alpha2, e)-RDP is (alpha1, e)-RDP for alpha1 < alpha2, so
// eps(alpha) is replaced by the least eps at any order >= alpha, which is
// valid; the warnings say where (accountants' curves dip by rounding).
func Read(r io.Reader) (Curve, []string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Curve{}, nil, fmt.Errorf("accountant.Read: %w", err)
	}
	var c Curve
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		c, err = readJSON(t)
	} else {
		c, err = readCSV(data)
	}
	if err != nil {
		return Curve{}, nil, fmt.Errorf("accountant.Read: %w", err)
	}
	warnings := Repair(&c)
	return c, warnings, nil
}

// point is one order of a curve being read, with where it came from.
type point struct {
	alpha, eps float64
	where      string // "line 3" or "index 2"
}

// parseEps parses an eps value: a number >= 0 or +inf.
func parseEps(s string) (float64, error) {
	e, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("eps %q is not a number", s)
	}
	if !(e >= 0) {
		return 0, fmt.Errorf("eps is %v, must be >= 0 (or inf)", e)
	}
	return e, nil
}

// readCSV reads alpha,eps records.
func readCSV(data []byte) (Curve, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked below, with the line number
	cr.TrimLeadingSpace = true
	var pts []point
	for first := true; ; first = false {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Curve{}, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != 2 {
			return Curve{}, fmt.Errorf("line %d: %d fields, want 2 (alpha,eps)", line, len(rec))
		}
		a, errA := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		if first && errA != nil {
			continue // header
		}
		if errA != nil {
			return Curve{}, fmt.Errorf("line %d: alpha %q is not a number", line, rec[0])
		}
		if err := check.Alpha(a); err != nil {
			return Curve{}, fmt.Errorf("line %d: %w", line, err)
		}
		e, err := parseEps(rec[1])
		if err != nil {
			return Curve{}, fmt.Errorf("line %d: %w", line, err)
		}
		pts = append(pts, point{a, e, fmt.Sprintf("line %d", line)})
	}
	if len(pts) == 0 {
		return Curve{}, errors.New("no alpha,eps records")
	}
	return sorted(pts)
}

// readJSON reads {"orders": [...], "rdp": [...]}.
func readJSON(data []byte) (Curve, error) {
	var doc struct {
		Orders []json.RawMessage `json:"orders"`
		RDP    []json.RawMessage `json:"rdp"`
	}
	if err := json.Unmarshal(quoteNonFinite(data), &doc); err != nil {
		return Curve{}, fmt.Errorf("JSON: %w", err)
	}
	if doc.Orders == nil || doc.RDP == nil {
		return Curve{}, errors.New(`JSON: want an object with arrays "orders" and "rdp"`)
	}
	if len(doc.Orders) != len(doc.RDP) {
		return Curve{}, fmt.Errorf("JSON: %d orders and %d rdp values", len(doc.Orders), len(doc.RDP))
	}
	if len(doc.Orders) == 0 {
		return Curve{}, errors.New("JSON: no orders")
	}
	pts := make([]point, len(doc.Orders))
	for i := range doc.Orders {
		var a float64
		if err := json.Unmarshal(doc.Orders[i], &a); err != nil {
			return Curve{}, fmt.Errorf("orders[%d]: %s is not a finite number", i, doc.Orders[i])
		}
		if err := check.Alpha(a); err != nil {
			return Curve{}, fmt.Errorf("orders[%d]: %w", i, err)
		}
		s := string(doc.RDP[i])
		if unq, err := strconv.Unquote(s); err == nil {
			s = unq
		}
		e, err := parseEps(s)
		if err != nil {
			return Curve{}, fmt.Errorf("rdp[%d]: %w", i, err)
		}
		pts[i] = point{a, e, fmt.Sprintf("index %d", i)}
	}
	return sorted(pts)
}

// quoteNonFinite puts the bare tokens Infinity, -Infinity and NaN that
// Python's json writes (not JSON) in quotes, outside strings.
func quoteNonFinite(data []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		b := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			out = append(out, b)
			continue
		}
		if b == '"' {
			inString = true
			out = append(out, b)
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(tok)) {
				out = append(out, '"')
				out = append(out, tok...)
				out = append(out, '"')
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, b)
		}
	}
	return out
}

// sorted returns the points as a Curve sorted by alpha, or an error for a
// repeated alpha.
func sorted(pts []point) (Curve, error) {
	slices.SortStableFunc(pts, func(x, y point) int {
		switch {
		case x.alpha < y.alpha:
			return -1
		case x.alpha > y.alpha:
			return 1
		}
		return 0
	})
	c := Curve{Orders: make([]float64, len(pts)), Eps: make([]float64, len(pts))}
	for i, p := range pts {
		if i > 0 && p.alpha == pts[i-1].alpha {
			return Curve{}, fmt.Errorf("%s: alpha %v repeats %s", p.where, p.alpha, pts[i-1].where)
		}
		c.Orders[i], c.Eps[i] = p.alpha, p.eps
	}
	return c, nil
}

// Repair makes c nondecreasing in place, Eps[i] = min_{j >= i} Eps[j]
// (valid: R_alpha is nondecreasing in alpha), and returns a warning for
// each run of orders it lowered, or nil when c was already monotone.
func Repair(c *Curve) []string {
	var warnings []string
	for i := len(c.Eps) - 2; i >= 0; i-- {
		if next := c.Eps[i+1]; c.Eps[i] > next {
			warnings = append(warnings, fmt.Sprintf("eps %v at alpha %v exceeds eps %v at the larger order %v: lowered to %v (R_alpha is nondecreasing in alpha)",
				c.Eps[i], c.Orders[i], next, c.Orders[i+1], next))
			c.Eps[i] = next
		}
	}
	slices.Reverse(warnings) // in order of alpha
	return warnings
}

// Compose returns the curve of t releases of a mechanism with curve c
// (fresh randomness each time): RDP composes by adding levels per order
// (Mironov 2017, Proposition 1), so Eps[i] becomes t Eps[i], rounded up. It
// panics unless t >= 1.
func Compose(c Curve, t int) Curve {
	if t < 1 {
		panic("accountant: Compose: t must be >= 1")
	}
	out := Curve{Orders: slices.Clone(c.Orders), Eps: make([]float64, len(c.Eps))}
	for i, e := range c.Eps {
		out.Eps[i] = e
		if t > 1 && e > 0 {
			out.Eps[i] = floatbits.Up(float64(t)*e, 1) // one rounding; t is exact below 2^53
		}
	}
	return out
}

// Sum returns the curve of the composition of mechanisms with curves cs
// (the sum per order), on the orders common to all of them, and a warning
// when some orders were dropped for lack of a value in every curve. It
// returns an error when no order is common. Each sum is rounded up.
func Sum(cs ...Curve) (Curve, []string, error) {
	if len(cs) == 0 {
		return Curve{}, nil, errors.New("accountant.Sum: no curves")
	}
	out := Curve{Orders: slices.Clone(cs[0].Orders), Eps: slices.Clone(cs[0].Eps)}
	dropped := 0
	for _, c := range cs[1:] {
		var next Curve
		for i, a := range out.Orders {
			j, ok := slices.BinarySearch(c.Orders, a)
			if !ok {
				dropped++
				continue
			}
			s := out.Eps[i] + c.Eps[j]
			if s > 0 && !math.IsInf(s, 1) && out.Eps[i] > 0 && c.Eps[j] > 0 {
				s = math.Nextafter(s, math.Inf(1))
			}
			next.Orders, next.Eps = append(next.Orders, a), append(next.Eps, s)
		}
		for _, a := range c.Orders {
			if _, ok := slices.BinarySearch(out.Orders, a); !ok {
				dropped++
			}
		}
		out = next
	}
	if len(out.Orders) == 0 {
		return Curve{}, nil, errors.New("accountant.Sum: the curves have no order in common")
	}
	var warnings []string
	if dropped > 0 {
		warnings = append(warnings, fmt.Sprintf("summing curves: %d orders not present in every curve were dropped; %d orders remain", dropped, len(out.Orders)))
	}
	return out, warnings, nil
}

// WriteCSV writes c as the two columns alpha,eps with a header, each
// number the shortest decimal that parses back to it (inf for +Inf).
func WriteCSV(w io.Writer, c Curve) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"alpha", "eps"})
	for i, a := range c.Orders {
		cw.Write([]string{fmtFloat(a), fmtFloat(c.Eps[i])})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes c as {"orders": [...], "rdp": [...]}, the arrays of an
// accountant. It returns an error for a curve with +Inf (JSON has no
// infinity; amplified curves are finite).
func WriteJSON(w io.Writer, c Curve) error {
	for i, e := range c.Eps {
		if math.IsInf(e, 1) {
			return fmt.Errorf("accountant.WriteJSON: eps is inf at alpha %v (JSON has no infinity)", c.Orders[i])
		}
	}
	b, err := json.Marshal(struct {
		Orders []float64 `json:"orders"`
		RDP    []float64 `json:"rdp"`
	}{c.Orders, c.Eps})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// fmtFloat is the shortest decimal that parses back to v, inf for +Inf.
func fmtFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
