package certfile

import (
	"fmt"
)

// A KindProfile certificate states that Steps adaptive releases of a
// mechanism (Profile.Mechanism with its parameters), each followed by the
// k samples of d coins with biases in [c, 1-c] (c = "0": the mechanism's
// own output, no amplification), are (eps, delta)-DP: with Query "eps",
// eps = Claim at delta = Delta; with Query "delta", delta = Claim at eps =
// Eps (nats). The proof data are the discrete privacy loss distribution
// (PLD) of one step that the solver composed: masses Probs[j] on the
// losses (LowerLoss + j) Discretization and InfinityMass on +infinity, in
// the remove direction and, for an asymmetric mechanism, the add one.
// The checker (package verify) proves that this PLD's profile lies above
// the step's exact amplified profile at every eps, and bounds the delta of
// its Steps-fold composition at the claimed point.
//
// Discretization is written exactly (Exact: it is the float64 step the
// solver used); Probs and InfinityMass are float64 values in their
// shortest round-trip form, and the PLD the file states is the one of
// those float64 values (strconv.ParseFloat of each string).
type Profile struct {
	Mechanism string `json:"mechanism"` // gaussian, laplace, rr (randomized response), subsampled-gaussian; rdp, points or pld (with Input)
	// Sensitivity and Sigma are the Gaussian mechanism's L2 sensitivity
	// and noise (mu = Sensitivity/Sigma); Sensitivity and B the Laplace
	// mechanism's L1 sensitivity and scale; PTrue the probability that
	// randomized response reports the true bit. Exact decimals.
	Sensitivity    string `json:"sensitivity,omitempty"`
	Sigma          string `json:"sigma,omitempty"`
	B              string `json:"b,omitempty"`
	PTrue          string `json:"p_true,omitempty"`
	Q              string `json:"q,omitempty"` // subsampled-gaussian: Poisson sampling rate
	Steps          int    `json:"steps"`
	Query          string `json:"query"` // "eps" or "delta" (the package doc above)
	Discretization string `json:"discretization"`
	Remove         PMF    `json:"remove"`
	Add            *PMF   `json:"add,omitempty"` // nil for a symmetric mechanism
	// Plan holds the further step kinds of a heterogeneous composition
	// (compose --plan): the file's own d, k, c, mechanism, steps and PLDs
	// are its first kind, each entry of Plan another, every kind's PLD on
	// the same grid (Discretization). The claim is about all of them
	// composed. Empty for one step kind.
	Plan []ProfileKind `json:"plan,omitempty"`
	// Input is the data of a mechanism known by a file (rdp, points or
	// pld: profile_input.go), nil for the others.
	Input *Input `json:"input,omitempty"`
}

// ProfileKind is one further step kind of a plan's profile certificate:
// Steps releases of its mechanism (fields as Profile's), each followed by
// k samples of d coins with biases in [c, 1-c] (c "0": no amplification),
// and the per-step PLD (remove, and add for an asymmetric mechanism) the
// solver composed.
type ProfileKind struct {
	D           int    `json:"d"`
	K           int    `json:"k"`
	C           string `json:"c"`
	Mechanism   string `json:"mechanism"`
	Sensitivity string `json:"sensitivity,omitempty"`
	Sigma       string `json:"sigma,omitempty"`
	B           string `json:"b,omitempty"`
	PTrue       string `json:"p_true,omitempty"`
	Q           string `json:"q,omitempty"`
	Steps       int    `json:"steps"`
	Remove      PMF    `json:"remove"`
	Add         *PMF   `json:"add,omitempty"`
	Input       *Input `json:"input,omitempty"` // rdp, points, pld (profile_input.go)
}

// MaxPlanKinds caps the step kinds of a plan's profile certificate.
const MaxPlanKinds = 64

// PMF is one direction's discrete PLD.
type PMF struct {
	LowerLoss    int      `json:"lower_loss"`
	Probs        []string `json:"probs"`
	InfinityMass string   `json:"infinity_mass"`
}

// MaxProfilePoints caps the masses of one direction of a KindProfile file
// and MaxProfileSteps its steps (the checker's work grows with both).
const (
	MaxProfilePoints = 1 << 22
	MaxProfileSteps  = 1 << 20
)

// ProfilePoint is what NewProfile writes: the question, the mechanism and
// the per-step PLD in float64, as the solver has them.
type ProfilePoint struct {
	D, K               int
	C                  float64 // 0: no amplification
	Mechanism          string
	Sensitivity, Sigma float64 // gaussian (Sensitivity also laplace)
	B, PTrue           float64 // laplace, rr
	Q                  float64 // subsampled-gaussian (with Sensitivity, Sigma)
	Steps              int
	ByDelta            bool    // Query "eps": eps claimed at Delta
	Delta, Eps         float64 // the question's fixed side
	Claim, LB          float64
	H                  float64
	Lo                 int
	Probs              []float64
	Inf                float64
	RevLo              int
	RevProbs           []float64 // nil when symmetric
	RevInf             float64
	// Plan are the further step kinds of a heterogeneous composition
	// (each with its own D, K, C, mechanism, Steps and PLDs; the fields
	// of the question are the point's).
	Plan []ProfilePoint
	// Input is the data of mechanism rdp, points or pld (nil otherwise).
	Input *InputPoint
}

func newPMF(lo int, probs []float64, inf float64) PMF {
	p := PMF{LowerLoss: lo, Probs: make([]string, len(probs)), InfinityMass: Num(inf)}
	for i, v := range probs {
		p.Probs[i] = Num(v)
	}
	return p
}

// newKind returns pt's step kind: its kernel, mechanism and PLDs.
func newKind(pt ProfilePoint) ProfileKind {
	k := ProfileKind{D: pt.D, K: pt.K, C: Exact(pt.C), Mechanism: pt.Mechanism, Steps: pt.Steps, Remove: newPMF(pt.Lo, pt.Probs, pt.Inf)}
	switch pt.Mechanism {
	case "gaussian":
		k.Sensitivity, k.Sigma = Exact(pt.Sensitivity), Exact(pt.Sigma)
	case "laplace":
		k.Sensitivity, k.B = Exact(pt.Sensitivity), Exact(pt.B)
	case "rr":
		k.PTrue = Exact(pt.PTrue)
	case "subsampled-gaussian":
		k.Sensitivity, k.Sigma, k.Q = Exact(pt.Sensitivity), Exact(pt.Sigma), Exact(pt.Q)
	}
	k.Input = newInput(pt.Mechanism, pt.Input)
	if pt.RevProbs != nil {
		a := newPMF(pt.RevLo, pt.RevProbs, pt.RevInf)
		k.Add = &a
	}
	return k
}

// Kinds returns the certificate's step kinds: the file's own first (d, k,
// c and the profile's mechanism, steps and PLDs), then Plan's.
func (f *File) Kinds() []ProfileKind {
	p := f.Profile
	out := []ProfileKind{{D: f.D, K: f.K, C: f.C, Mechanism: p.Mechanism, Sensitivity: p.Sensitivity, Sigma: p.Sigma, B: p.B, PTrue: p.PTrue, Q: p.Q,
		Steps: p.Steps, Remove: p.Remove, Add: p.Add, Input: p.Input}}
	return append(out, p.Plan...)
}

// NewProfile returns the KindProfile certificate of pt.
func NewProfile(pt ProfilePoint) *File {
	f := &File{Format: Format, Version: Version, Kind: KindProfile, D: pt.D, K: pt.K, N: pt.D * pt.K,
		C: Exact(pt.C), Claim: Exact(pt.Claim), LB: Num(pt.LB)}
	k := newKind(pt)
	pr := &Profile{Mechanism: k.Mechanism, Sensitivity: k.Sensitivity, Sigma: k.Sigma, B: k.B, PTrue: k.PTrue, Q: k.Q,
		Steps: pt.Steps, Discretization: Exact(pt.H), Remove: k.Remove, Add: k.Add, Input: k.Input}
	for _, q := range pt.Plan {
		pr.Plan = append(pr.Plan, newKind(q))
	}
	if pt.ByDelta {
		pr.Query, f.Delta = "eps", Exact(pt.Delta)
	} else {
		pr.Query, f.Eps = "delta", Exact(pt.Eps)
	}
	f.Profile = pr
	return f
}

func (f *File) profileName() string {
	q := "delta" + Short(f.Delta)
	if f.Profile.Query == "delta" {
		q = "eps" + Short(f.Eps)
	}
	if len(f.Profile.Plan) > 0 {
		steps := 0
		for _, k := range f.Kinds() {
			steps += k.Steps
		}
		return fmt.Sprintf("profile-plan-%dkinds-steps%d-%s.json", len(f.Profile.Plan)+1, steps, q)
	}
	m := f.Profile.Mechanism
	if in := f.Profile.Input; in != nil && in.Conversion != "" {
		m += "-" + in.Conversion // rdp: one file per conversion
	}
	return fmt.Sprintf("profile-%s-d%d-k%d-c%s-steps%d-%s.json", m, f.D, f.K, Short(f.C), f.Profile.Steps, q)
}

// validateProfile checks the shape of a KindProfile file.
func (f *File) validateProfile() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	p := f.Profile
	switch {
	case f.Kind != KindProfile:
		return bad("a %q certificate has no profile data", f.Kind)
	case p == nil:
		return bad("a %s certificate needs its profile data", f.Kind)
	case f.Alpha != "" || f.EpsOut != "" || f.L0 != "" || f.L1 != "" || f.L2 != "" || f.Tau != "" || f.LogU != "" || len(f.Tiles) > 0:
		return bad("a %s certificate has no alpha, eps_out, multipliers or tiles", f.Kind)
	case len(p.Plan) > MaxPlanKinds-1:
		return bad("a plan of %d step kinds, at most %d", len(p.Plan)+1, MaxPlanKinds)
	}
	nums := []struct{ name, v string }{{"claim", f.Claim}, {"lb", f.LB}, {"discretization", p.Discretization}}
	switch p.Query {
	case "eps":
		if f.Eps != "" {
			return bad("eps is %q: a profile certificate with query eps gives delta", f.Eps)
		}
		nums = append(nums, struct{ name, v string }{"delta", f.Delta})
	case "delta":
		if f.Delta != "" {
			return bad("delta is %q: a profile certificate with query delta gives eps", f.Delta)
		}
		nums = append(nums, struct{ name, v string }{"eps", f.Eps})
	default:
		return bad("query is %q, want \"eps\" or \"delta\"", p.Query)
	}
	for _, x := range nums {
		if !IsDecimal(x.v) {
			return bad("%s is %q, must be a finite decimal number", x.name, x.v)
		}
	}
	total := 0
	for i, k := range f.Kinds() {
		where := ""
		if i > 0 {
			where = fmt.Sprintf("plan kind %d: ", i+1)
			if k.D < 1 || k.K < 1 || k.D > 1_000_000_000/k.K {
				return bad("%sd %d, k %d: need d, k >= 1 and d k <= 1e9", where, k.D, k.K)
			}
		}
		if err := k.validate(); err != nil {
			return bad("%s%v", where, err)
		}
		if total += k.Steps; total > MaxProfileSteps {
			return bad("the plan has %d steps or more, at most %d", total, MaxProfileSteps)
		}
	}
	return nil
}

// validate checks the shape of one step kind: steps, mechanism, c, the
// mechanism's parameters and the PLDs (the error without ErrFormat).
func (k ProfileKind) validate() error {
	switch {
	case k.Steps < 1 || k.Steps > MaxProfileSteps:
		return fmt.Errorf("steps is %d, must be in [1, %d]", k.Steps, MaxProfileSteps)
	case k.Mechanism == "":
		return fmt.Errorf("no mechanism")
	}
	nums := []struct{ name, v string }{{"c", k.C}}
	switch k.Mechanism {
	case "gaussian":
		nums = append(nums, struct{ name, v string }{"sensitivity", k.Sensitivity}, struct{ name, v string }{"sigma", k.Sigma})
	case "laplace":
		nums = append(nums, struct{ name, v string }{"sensitivity", k.Sensitivity}, struct{ name, v string }{"b", k.B})
	case "rr":
		nums = append(nums, struct{ name, v string }{"p_true", k.PTrue})
	case "subsampled-gaussian":
		nums = append(nums, struct{ name, v string }{"sensitivity", k.Sensitivity}, struct{ name, v string }{"sigma", k.Sigma}, struct{ name, v string }{"q", k.Q})
	}
	for _, x := range nums {
		if !IsDecimal(x.v) {
			return fmt.Errorf("%s is %q, must be a finite decimal number", x.name, x.v)
		}
	}
	if err := k.validateInput(); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		m    *PMF
	}{{"remove", &k.Remove}, {"add", k.Add}} {
		if d.m == nil {
			continue
		}
		if err := validatePMF(d.name, d.m); err != nil {
			return err
		}
	}
	return nil
}
