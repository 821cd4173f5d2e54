package pld

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestReadProfileForms: the three file forms give the profile they hold.
// A CSV of the Gaussian's profile at eps = 0, 0.01, ..., 12 (as
// dp_accounting's get_delta_for_epsilon tabulates one) is read into a
// profile above the Gaussian's at every eps (chords of a convex function)
// and within 2e-5 of it; "epsilon" names the column as well as "eps"; a
// delta_reverse column gives the reverse direction. The JSON of delta
// --profile ("epsilons", "deltas") reads the same. A PLD written by NewFile
// reads back to its own profile at its losses.
func TestReadProfileForms(t *testing.T) {
	t.Parallel()
	g, _ := Gaussian(1, 2)
	var eps, del []float64
	var csv, csvRev strings.Builder
	csv.WriteString("eps,delta\n")
	csvRev.WriteString("epsilon,delta,delta_reverse\n")
	for i := 0; i <= 1200; i++ {
		e := float64(i) / 100
		d := g.Forward(e)
		eps, del = append(eps, e), append(del, d)
		fmt.Fprintf(&csv, "%v,%v\n", e, d)
		fmt.Fprintf(&csvRev, "%v,%v,%v\n", e, d, math.Min(1, 2*d))
	}
	js, _ := json.Marshal(map[string]any{"epsilons": eps, "deltas": del, "discretization": 0.01})
	for name, data := range map[string]string{"csv": csv.String(), "json": string(js), "csv-reverse": csvRev.String()} {
		p, err := ReadProfile(strings.NewReader(data), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range []float64{0, 0.005, 0.3333, 1, 2.718, 7, 11.995, 15} {
			got, want := p.Forward(e), g.Forward(e)
			if got < want || got > want+2e-5 {
				t.Errorf("%s: at eps %v the file's profile is %v, the Gaussian's %v", name, e, got, want)
			}
		}
		if name == "csv-reverse" {
			if p.Symmetric() || math.Abs(p.Reverse(1)-math.Min(1, 2*g.Forward(1))) > 1e-12 {
				t.Errorf("reverse column not read: symmetric %v", p.Symmetric())
			}
		} else if !p.Symmetric() {
			t.Errorf("%s: a profile without a reverse column is symmetric", name)
		}
	}
	// A PLD round trip.
	d, err := Discretize(context.Background(), g, Grid{H: 1e-3, Tail: 1e-22}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(NewFile(d, nil, "test")); err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(&buf, "pld")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []int{0, 100, len(d.Probs) / 2, len(d.Probs) - 5} {
		e := d.Loss(j)
		if e < 0 {
			continue
		}
		if got, want := p.Forward(e), d.Delta(e); math.Abs(got-want) > 1e-12*(1+want) {
			t.Errorf("PLD read back: at its loss %v the profile is %v, the PLD's %v", e, got, want)
		}
	}
}

// TestReadProfileErrors: a file that is not a profile is one error line
// saying why, wrapping ErrProfile where the values are at fault.
func TestReadProfileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		data, msg string
		profile   bool // the error wraps ErrProfile
	}{
		{"", "empty file", true},
		{"eps,delta\n0,0.5\n1,0.6\n", "rises", true},
		{"eps,delta\n0,1.5\n", "must be in [0, 1]", true},
		{"eps,delta\n0,-0.1\n", "must be in [0, 1]", true},
		{"eps,delta\n0,NaN\n", "must be in [0, 1]", true},
		{"eps,delta\n1,0.5\n0,0.6\n", "strictly increasing", false},
		{"eps,delta\n0,0.5\n0,0.4\n", "strictly increasing", false},
		{"eps,delta\nx,0.5\n", "not a number", false},
		{"alpha,eps\n2,1\n", "needs columns eps", false},
		{"eps,delta\n0\n", "no delta column", false},
		{"{", "invalid JSON", false},
		{`{"orders": [2], "rdp": [1]}`, "neither", true},
		{`{"discretization": 0.1, "remove": {"lower_loss": 0, "probs": [0.7, 0.7], "infinity_mass": 0}}`, "sum to", true},
		{`{"discretization": 0.1, "remove": {"lower_loss": 0, "probs": [-0.1, 0.7], "infinity_mass": 0}}`, "must be >= 0", true},
		{`{"discretization": 0, "remove": {"lower_loss": 0, "probs": [1], "infinity_mass": 0}}`, "discretization", true},
	} {
		_, err := ReadProfile(strings.NewReader(tc.data), "f")
		if err == nil || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", tc.data, err, tc.msg)
			continue
		}
		if errors.Is(err, ErrProfile) != tc.profile {
			t.Errorf("%q: errors.Is(err, ErrProfile) = %v", tc.data, !tc.profile)
		}
	}
}
