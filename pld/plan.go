package pld

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// PlanStep is one kind of step of a heterogeneous composition as a plan
// file gives it (ReadPlan): a named mechanism, its Bernoulli release and
// how many times it runs.
type PlanStep struct {
	Mechanism   string  `json:"mechanism"`   // gaussian, laplace, rr, subsampled-gaussian or profile
	Sigma       float64 `json:"sigma"`       // gaussian, subsampled-gaussian
	Sensitivity float64 `json:"sensitivity"` // gaussian, laplace, subsampled-gaussian; 0 means 1
	B           float64 `json:"b"`           // laplace
	PTrue       float64 `json:"p_true"`      // rr
	Q           float64 `json:"q"`           // subsampled-gaussian
	In          string  `json:"in"`          // profile: a file ReadProfile reads (relative to the plan's folder)
	D           int     `json:"d"`           // 0 means 1
	K           int     `json:"k"`           // 0 means 1
	C           float64 `json:"c"`           // 0: released as is, no amplification
	Count       int     `json:"count"`       // steps of this kind, >= 1
	// Input is what the profile file "in" gave (ReadProfileInput), set
	// by ReadPlanSteps for mechanism profile; not read from the plan.
	Input *Input `json:"-"`
}

// ReadPlan reads a plan: JSON {"steps": [PlanStep, ...]}, the steps of a
// heterogeneous composition in any order (composition commutes). dir is
// the folder that relative "in" paths are read from. Every error names
// the step (from 1) and what is wrong in one line.
func ReadPlan(r io.Reader, dir string) ([]Step, error) {
	steps, _, err := ReadPlanSteps(r, dir)
	return steps, err
}

// ReadPlanSteps is ReadPlan that also returns the plan's steps as the file
// gives them, with the defaults applied (d, k and sensitivity 1 when 0):
// what a profile certificate names.
func ReadPlanSteps(r io.Reader, dir string) ([]Step, []PlanStep, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var plan struct {
		Steps []PlanStep `json:"steps"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&plan); err != nil {
		return nil, nil, fmt.Errorf("invalid plan JSON: %v", err)
	}
	if len(plan.Steps) == 0 {
		return nil, nil, fmt.Errorf(`the plan has no "steps"`)
	}
	var out []Step
	for i, ps := range plan.Steps {
		s, in, err := ps.step(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("step %d: %v", i+1, err)
		}
		out = append(out, s)
		plan.Steps[i].Input = in
		if ps.Sensitivity == 0 {
			plan.Steps[i].Sensitivity = 1
		}
		plan.Steps[i].D, plan.Steps[i].K = max(ps.D, 1), max(ps.K, 1)
	}
	return out, plan.Steps, nil
}

func (ps PlanStep) step(dir string) (Step, *Input, error) {
	sens := ps.Sensitivity
	if sens == 0 {
		sens = 1
	}
	d, k := max(ps.D, 1), max(ps.K, 1)
	if ps.D < 0 || ps.K < 0 || d > MaxN/k {
		return Step{}, nil, fmt.Errorf("d %d, k %d: need d, k >= 1 and d k <= %d", ps.D, ps.K, MaxN)
	}
	if ps.C != 0 && !(ps.C > 0 && ps.C < 0.5) {
		return Step{}, nil, fmt.Errorf("c is %v, must be in (0, 0.5) (or 0: no amplification)", ps.C)
	}
	if ps.Count < 1 {
		return Step{}, nil, fmt.Errorf("count is %d, must be >= 1", ps.Count)
	}
	var p Profile
	var input *Input
	var err error
	switch ps.Mechanism {
	case "gaussian":
		p, err = Gaussian(sens, ps.Sigma)
	case "laplace":
		p, err = Laplace(sens, ps.B)
	case "rr":
		p, err = RandomizedResponse(ps.PTrue)
	case "subsampled-gaussian":
		p, err = SubsampledGaussian(sens, ps.Sigma, ps.Q)
	case "profile":
		if ps.In == "" {
			return Step{}, nil, fmt.Errorf(`"in" is needed with mechanism profile`)
		}
		path := ps.In
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		f, ferr := os.Open(path)
		if ferr != nil {
			return Step{}, nil, ferr
		}
		defer f.Close()
		var in Input
		p, in, err = ReadProfileInput(f, "profile from "+ps.In)
		input = &in
	default:
		return Step{}, nil, fmt.Errorf("mechanism is %q, must be gaussian, laplace, rr, subsampled-gaussian or profile", ps.Mechanism)
	}
	if err != nil {
		return Step{}, nil, err
	}
	if math.IsNaN(ps.C) {
		return Step{}, nil, fmt.Errorf("c is NaN")
	}
	return Step{Mechanism: p, N: d * k, C: ps.C, Steps: ps.Count}, input, nil
}
