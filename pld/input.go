package pld

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/bernamp/bernamp/rdp"
)

// FromRDP returns the profile of a mechanism known only by its RDP curve,
// symmetric (an RDP guarantee holds for neighbours in both orders):
// delta(eps) = rdp.DeltaAt(c, eps, conv), the best order's conversion,
// rounded up. It has no NP tests. Errors: an invalid curve or conversion.
func FromRDP(c rdp.Curve, conv rdp.Conversion, name string) (Profile, error) {
	if _, _, err := rdp.DeltaAt(c, 0, conv); err != nil {
		return Profile{}, err
	}
	f := func(eps float64) float64 {
		d, _, err := rdp.DeltaAt(c, eps, conv)
		if err != nil { // eps was checked by the caller; keep the safe side
			return 1
		}
		return d
	}
	return Profile{Name: name, Forward: f, Upper: math.Inf(1)}, nil
}

// points is a profile given at eps[0] < ... < eps[n-1] by upper bounds
// delta[i], made non-increasing.
type points struct{ eps, delta []float64 }

// at returns an upper bound on a convex, non-increasing profile through
// upper bounds at the points: the chord in e^eps between the neighbouring
// points (a convex function lies below its chords), the chord from (e^eps
// = 0, delta = 1) before the first point, the last value after the last
// one. The chord is rounded up (16 ulps of its span plus 4 of its value).
func (p points) at(e float64) float64 {
	n := len(p.eps)
	i := sort.SearchFloat64s(p.eps, e) // first index with eps[i] >= e
	switch {
	case i == n:
		return p.delta[n-1]
	case p.eps[i] == e:
		return p.delta[i]
	}
	var ya, s float64
	yb := p.delta[i]
	if i == 0 {
		ya, s = 1, math.Exp(e-p.eps[0])
	} else {
		ya = p.delta[i-1]
		s = math.Expm1(e-p.eps[i-1]) / math.Expm1(p.eps[i]-p.eps[i-1])
	}
	v := ya + (yb-ya)*s
	v += 16*ulp*math.Abs(ya-yb) + 4*ulp*v
	return math.Min(1, math.Min(ya, v))
}

// FromPoints returns the profile of a mechanism given by upper bounds on
// its profile at finitely many eps (any real, strictly increasing): the
// chord bound of points between them, symmetric unless reverse (the other
// direction at the same eps) is given. A profile must be in [0, 1] and
// non-increasing; a value above its predecessor by more than 1e-9 (dp_accounting's
// tolerance is 1e-10 relative) is an error wrapping ErrProfile, smaller
// rises are flattened (each value replaced by the running minimum, still an
// upper bound). It has no NP tests.
func FromPoints(name string, eps, delta, reverse []float64) (Profile, error) {
	mk := func(d []float64) (points, error) {
		if len(d) != len(eps) {
			return points{}, fmt.Errorf("%d eps and %d delta values", len(eps), len(d))
		}
		out := points{eps: eps, delta: make([]float64, len(d))}
		for i, v := range d {
			if !(v >= 0 && v <= 1) {
				return points{}, fmt.Errorf("delta at eps %v is %v, must be in [0, 1]: %w", eps[i], v, ErrProfile)
			}
			if i > 0 && v > out.delta[i-1]+1e-9 {
				return points{}, fmt.Errorf("delta rises from %v to %v at eps %v (a profile is non-increasing): %w", out.delta[i-1], v, eps[i], ErrProfile)
			}
			out.delta[i] = v
			if i > 0 {
				out.delta[i] = math.Min(v, out.delta[i-1])
			}
		}
		return out, nil
	}
	if len(eps) == 0 {
		return Profile{}, fmt.Errorf("no points: %w", ErrProfile)
	}
	for i, e := range eps {
		if math.IsNaN(e) || math.IsInf(e, 0) || math.Abs(e) > MaxEps {
			return Profile{}, fmt.Errorf("eps %v: must be finite, |eps| <= %v", e, MaxEps)
		}
		if i > 0 && !(e > eps[i-1]) {
			return Profile{}, fmt.Errorf("eps %v does not exceed the previous %v (eps must be strictly increasing)", e, eps[i-1])
		}
	}
	fw, err := mk(delta)
	if err != nil {
		return Profile{}, err
	}
	p := Profile{Name: name, Forward: fw.at, Upper: math.Inf(1)}
	if fw.delta[len(eps)-1] == 0 {
		p.Upper = math.Max(0, eps[len(eps)-1])
	}
	if reverse != nil {
		rv, err := mk(reverse)
		if err != nil {
			return Profile{}, fmt.Errorf("reverse: %w", err)
		}
		p.Reverse = rv.at
		if rv.delta[len(eps)-1] != 0 {
			p.Upper = math.Inf(1)
		}
	}
	return p, nil
}

// FromPLD returns the profile of a PLD (its exact profile, which is
// linear in e^eps between consecutive losses, so the chord bound of
// FromPoints at the losses is exact), symmetric unless rev is given.
func FromPLD(name string, fwd, rev *PLD) (Profile, error) {
	tab := func(d *PLD) ([]float64, []float64, error) {
		if !(d.H > 0) || math.IsInf(d.H, 1) || len(d.Probs) == 0 {
			return nil, nil, fmt.Errorf("discretization %v with %d masses: %w", d.H, len(d.Probs), ErrProfile)
		}
		total := d.Inf
		for _, v := range d.Probs {
			if !(v >= 0) || math.IsInf(v, 1) {
				return nil, nil, fmt.Errorf("mass %v: must be >= 0 and finite: %w", v, ErrProfile)
			}
			total += v
		}
		if !(d.Inf >= 0) || total > 1+1e-6 {
			return nil, nil, fmt.Errorf("masses sum to %v (infinity mass %v), must be at most 1: %w", total, d.Inf, ErrProfile)
		}
		n := len(d.Probs)
		eps := make([]float64, n)
		del := make([]float64, n)
		// delta at loss l_j: Inf + sum_{i > j} p_i (1 - e^(l_j - l_i)).
		up, low := d.Inf, 0.0 // mass above, and sum of mass e^-l above
		for j := n - 1; j >= 0; j-- {
			eps[j] = d.Loss(j)
			del[j] = math.Min(1, math.Max(0, up-math.Exp(eps[j])*low)*(1+float64(n+4)*ulp))
			up += d.Probs[j]
			low += d.Probs[j] * math.Exp(-eps[j])
		}
		return eps, del, nil
	}
	e, df, err := tab(fwd)
	if err != nil {
		return Profile{}, err
	}
	var dr []float64
	if rev != nil {
		if rev.H != fwd.H || rev.Lo != fwd.Lo || len(rev.Probs) != len(fwd.Probs) {
			// Different supports: tabulate the reverse on its own grid.
			er, d2, err := tab(rev)
			if err != nil {
				return Profile{}, fmt.Errorf("reverse: %w", err)
			}
			pr, err := FromPoints(name, er, d2, nil)
			if err != nil {
				return Profile{}, err
			}
			p, err := FromPoints(name, e, df, nil)
			if err != nil {
				return Profile{}, err
			}
			p.Reverse = pr.Forward
			p.Upper = math.Inf(1)
			return p, nil
		}
		if _, dr, err = tab(rev); err != nil {
			return Profile{}, fmt.Errorf("reverse: %w", err)
		}
	}
	return FromPoints(name, e, df, dr)
}

// File is the JSON of a composed or single-step PLD that bernamp writes
// (compose --emit-pld) and reads back (--mechanism profile --in): the
// masses of the forward (remove) direction and, when the pair is not
// symmetric, the reverse (add) one, on the grid of losses (lower_loss + j)
// * discretization, as dp_accounting's PLDPmf holds them.
type File struct {
	Discretization float64  `json:"discretization"`
	Pessimistic    bool     `json:"pessimistic"`
	Remove         FilePMF  `json:"remove"`
	Add            *FilePMF `json:"add"` // null when symmetric
	Note           string   `json:"note,omitempty"`
}

// FilePMF is one direction's masses.
type FilePMF struct {
	LowerLoss    int       `json:"lower_loss"`
	Probs        []float64 `json:"probs"`
	InfinityMass float64   `json:"infinity_mass"`
}

// NewFile returns the File of a pessimistic PLD pair (rev nil when
// symmetric).
func NewFile(fwd, rev *PLD, note string) File {
	f := File{Discretization: fwd.H, Pessimistic: fwd.Pessimistic, Note: note,
		Remove: FilePMF{LowerLoss: fwd.Lo, Probs: fwd.Probs, InfinityMass: fwd.Inf}}
	if rev != nil {
		f.Add = &FilePMF{LowerLoss: rev.Lo, Probs: rev.Probs, InfinityMass: rev.Inf}
	}
	return f
}

// ReadProfile reads a mechanism's profile from r, in one of three forms:
//   - CSV with a header naming columns eps (or epsilon) and delta, and
//     optionally delta_reverse (the add direction): upper bounds on the
//     profile at those eps, as dp_accounting's get_delta_for_epsilon gives
//     them (FromPoints);
//   - the JSON that delta --profile writes ("epsilons", "deltas");
//   - the JSON of a PLD (File: "discretization", "remove", optional
//     "add"), as compose --emit-pld writes it (FromPLD).
//
// Every error names what is wrong in one line.
func ReadProfile(r io.Reader, name string) (Profile, error) {
	p, _, err := ReadProfileInput(r, name)
	return p, err
}

// Input is what a profile file gives, as read (ReadProfileInput): points
// Eps, Delta and Reverse (nil when the file has no reverse column), or a
// PLD Fwd (and Rev when asymmetric); what a profile certificate states.
type Input struct {
	Eps, Delta, Reverse []float64
	Fwd, Rev            *PLD
}

// ReadProfileInput is ReadProfile that also returns the file's data.
func ReadProfileInput(r io.Reader, name string) (Profile, Input, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Profile{}, Input{}, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return Profile{}, Input{}, fmt.Errorf("empty file: %w", ErrProfile)
	}
	if trimmed[0] == '{' {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return Profile{}, Input{}, fmt.Errorf("invalid JSON: %v", err)
		}
		if _, ok := raw["remove"]; ok {
			var f File
			if err := json.Unmarshal(trimmed, &f); err != nil {
				return Profile{}, Input{}, fmt.Errorf("invalid PLD JSON: %v", err)
			}
			fw := &PLD{H: f.Discretization, Lo: f.Remove.LowerLoss, Probs: f.Remove.Probs, Inf: f.Remove.InfinityMass}
			var rv *PLD
			if f.Add != nil {
				rv = &PLD{H: f.Discretization, Lo: f.Add.LowerLoss, Probs: f.Add.Probs, Inf: f.Add.InfinityMass}
			}
			p, err := FromPLD(name, fw, rv)
			return p, Input{Fwd: fw, Rev: rv}, err
		}
		var f struct {
			Epsilons []float64 `json:"epsilons"`
			Deltas   []float64 `json:"deltas"`
		}
		if err := json.Unmarshal(trimmed, &f); err != nil {
			return Profile{}, Input{}, fmt.Errorf("invalid profile JSON: %v", err)
		}
		if f.Epsilons == nil || f.Deltas == nil {
			return Profile{}, Input{}, fmt.Errorf(`JSON has neither "epsilons" and "deltas" (delta --profile) nor "remove" (a PLD): %w`, ErrProfile)
		}
		p, err := FromPoints(name, f.Epsilons, f.Deltas, nil)
		return p, Input{Eps: f.Epsilons, Delta: f.Deltas}, err
	}
	cr := csv.NewReader(bytes.NewReader(trimmed))
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	rows, err := cr.ReadAll()
	if err != nil {
		return Profile{}, Input{}, fmt.Errorf("invalid CSV: %v", err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	ie, ok := col["eps"]
	if !ok {
		ie, ok = col["epsilon"]
	}
	id, ok2 := col["delta"]
	if !ok || !ok2 {
		return Profile{}, Input{}, fmt.Errorf("CSV header %q needs columns eps (or epsilon) and delta", strings.Join(rows[0], ","))
	}
	ir, hasRev := col["delta_reverse"]
	var eps, del, rev []float64
	for n, row := range rows[1:] {
		get := func(i int, what string) (float64, error) {
			if i >= len(row) {
				return 0, fmt.Errorf("line %d: no %s column", n+2, what)
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(row[i]), 64)
			if err != nil {
				return 0, fmt.Errorf("line %d: %s %q is not a number", n+2, what, row[i])
			}
			return v, nil
		}
		e, err := get(ie, "eps")
		if err != nil {
			return Profile{}, Input{}, err
		}
		d, err := get(id, "delta")
		if err != nil {
			return Profile{}, Input{}, err
		}
		eps, del = append(eps, e), append(del, d)
		if hasRev {
			r, err := get(ir, "delta_reverse")
			if err != nil {
				return Profile{}, Input{}, err
			}
			rev = append(rev, r)
		}
	}
	p, err := FromPoints(name, eps, del, rev)
	return p, Input{Eps: eps, Delta: del, Reverse: rev}, err
}
