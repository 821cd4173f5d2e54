package certfile

import (
	"fmt"
	"strconv"
)

// The input mechanisms of a profile certificate known by a file, not by
// a formula (Profile.Mechanism and ProfileKind.Mechanism):
//
//   - "rdp": an RDP curve, the mechanism (Orders[i], RDP[i])-RDP for
//     every i (in both orders of neighbours), and the conversion that
//     turned it into the profile delta(eps) = min_i of the conversion's
//     delta at order i: "balle2020", "mironov2017" or "dp_accounting"
//     (docs/certificates.md states the formulas);
//   - "points": upper bounds Delta[i] on the profile at Eps[i] (strictly
//     increasing, any sign), and Reverse[i] on the other direction's at
//     the same eps (empty: symmetric); between and beyond the points the
//     profile is bounded by the chord in e^eps (a profile is convex and
//     non-increasing in e^eps, 1 at e^eps = 0);
//   - "pld": a discrete privacy loss distribution, Remove (and Add when
//     asymmetric) on the losses (LowerLoss + j) Discretization, whose
//     profile InfinityMass + sum_j p_j [1 - e^(eps - l_j)]_+ bounds the
//     mechanism's.
//
// The certificate's claim is proved for every mechanism with that input
// (the input is the user's assumption, as the file the solver read).
// Orders and RDP are exact decimals; Eps, Delta, Reverse and the PLD's
// masses are float64 values in their shortest round-trip form (the
// values are those strconv.ParseFloat reads); Discretization is written
// exactly.
type Input struct {
	Conversion     string   `json:"conversion,omitempty"`
	Orders         []string `json:"orders,omitempty"`
	RDP            []string `json:"rdp,omitempty"`
	Eps            []string `json:"eps,omitempty"`
	Delta          []string `json:"delta,omitempty"`
	Reverse        []string `json:"reverse,omitempty"`
	Discretization string   `json:"discretization,omitempty"`
	Remove         *PMF     `json:"remove,omitempty"`
	Add            *PMF     `json:"add,omitempty"`
}

// InputPoint is Input in float64, as the solver has it (ProfilePoint's
// Input, for mechanism rdp, points or pld).
type InputPoint struct {
	Conversion          string    // rdp
	Orders, RDP         []float64 // rdp
	Eps, Delta, Reverse []float64 // points (Reverse nil: symmetric)
	H                   float64   // pld: the grid step, and the PLDs
	Remove              Masses
	Add                 *Masses // nil when symmetric
}

// Masses is one direction of a PLD in float64: Probs on the losses (Lo +
// j) H, Inf on +infinity.
type Masses struct {
	Lo    int
	Probs []float64
	Inf   float64
}

// Caps of an Input: orders of an RDP curve, and points of a profile (a
// PLD's masses per direction are capped at MaxProfilePoints).
const (
	MaxRDPOrders   = 1 << 12
	MaxInputPoints = 1 << 22
)

// InputMechanisms are the mechanisms whose data is an Input.
var InputMechanisms = []string{"rdp", "points", "pld"}

// Conversions are the RDP conversions an "rdp" input may name.
var Conversions = []string{"balle2020", "mironov2017", "dp_accounting"}

func nums(v []float64, exact bool) []string {
	out := make([]string, len(v))
	for i, x := range v {
		if exact {
			out[i] = Exact(x)
		} else {
			out[i] = Num(x)
		}
	}
	return out
}

// newInput returns the Input of in for mechanism m.
func newInput(m string, in *InputPoint) *Input {
	if in == nil {
		return nil
	}
	switch m {
	case "rdp":
		return &Input{Conversion: in.Conversion, Orders: nums(in.Orders, true), RDP: nums(in.RDP, true)}
	case "points":
		out := &Input{Eps: nums(in.Eps, false), Delta: nums(in.Delta, false)}
		if in.Reverse != nil {
			out.Reverse = nums(in.Reverse, false)
		}
		return out
	case "pld":
		fw := newPMF(in.Remove.Lo, in.Remove.Probs, in.Remove.Inf)
		out := &Input{Discretization: Exact(in.H), Remove: &fw}
		if in.Add != nil {
			a := newPMF(in.Add.Lo, in.Add.Probs, in.Add.Inf)
			out.Add = &a
		}
		return out
	}
	return nil
}

func isInputMechanism(m string) bool {
	for _, x := range InputMechanisms {
		if x == m {
			return true
		}
	}
	return false
}

// validateInput checks the shape of a step kind's Input: present exactly
// for the mechanisms rdp, points and pld, with only that mechanism's
// fields, every list within its cap and every number a decimal (a float64
// where ParseFloat reads it). The error is without ErrFormat.
func (k ProfileKind) validateInput() error {
	in := k.Input
	if !isInputMechanism(k.Mechanism) {
		if in != nil {
			return fmt.Errorf("mechanism %s has no input data", k.Mechanism)
		}
		return nil
	}
	if in == nil {
		return fmt.Errorf("mechanism %s needs its input data", k.Mechanism)
	}
	if k.Sensitivity != "" || k.Sigma != "" || k.B != "" || k.PTrue != "" || k.Q != "" {
		return fmt.Errorf("mechanism %s has no sensitivity, sigma, b, p_true or q", k.Mechanism)
	}
	rdp := in.Conversion != "" || in.Orders != nil || in.RDP != nil
	points := in.Eps != nil || in.Delta != nil || in.Reverse != nil
	pld := in.Discretization != "" || in.Remove != nil || in.Add != nil
	list := func(name string, v []string, n, max int, float bool) error {
		if len(v) != n || n < 1 || n > max {
			return fmt.Errorf("input: %d %s values, need %d in [1, %d]", len(v), name, n, max)
		}
		for i, s := range v {
			if !IsDecimal(s) {
				return fmt.Errorf("input: %s %d is %q, must be a finite decimal number", name, i, s)
			}
			if _, err := strconv.ParseFloat(s, 64); float && err != nil {
				return fmt.Errorf("input: %s %d is %q, must be a float64", name, i, s)
			}
		}
		return nil
	}
	switch k.Mechanism {
	case "rdp":
		if points || pld {
			return fmt.Errorf("input: an rdp input has conversion, orders and rdp only")
		}
		ok := false
		for _, c := range Conversions {
			ok = ok || in.Conversion == c
		}
		if !ok {
			return fmt.Errorf("input: conversion is %q, want %s, %s or %s", in.Conversion, Conversions[0], Conversions[1], Conversions[2])
		}
		if err := list("orders", in.Orders, len(in.Orders), MaxRDPOrders, false); err != nil {
			return err
		}
		return list("rdp", in.RDP, len(in.Orders), MaxRDPOrders, false)
	case "points":
		if rdp || pld {
			return fmt.Errorf("input: a points input has eps, delta and reverse only")
		}
		n := len(in.Eps)
		if err := list("eps", in.Eps, n, MaxInputPoints, true); err != nil {
			return err
		}
		if err := list("delta", in.Delta, n, MaxInputPoints, true); err != nil {
			return err
		}
		if in.Reverse != nil {
			return list("reverse", in.Reverse, n, MaxInputPoints, true)
		}
		return nil
	default: // pld
		if rdp || points {
			return fmt.Errorf("input: a pld input has discretization, remove and add only")
		}
		if !IsDecimal(in.Discretization) {
			return fmt.Errorf("input: discretization is %q, must be a finite decimal number", in.Discretization)
		}
		if in.Remove == nil {
			return fmt.Errorf("input: a pld input needs its remove direction")
		}
		if err := validatePMF("input remove", in.Remove); err != nil {
			return err
		}
		if in.Add != nil {
			return validatePMF("input add", in.Add)
		}
		return nil
	}
}

// validatePMF checks one direction's PLD: masses within the cap, the
// offset in range, every mass a float64 >= 0, the infinity mass a decimal.
func validatePMF(name string, m *PMF) error {
	if len(m.Probs) == 0 || len(m.Probs) > MaxProfilePoints {
		return fmt.Errorf("%s: %d masses, must be in [1, %d]", name, len(m.Probs), MaxProfilePoints)
	}
	if m.LowerLoss < -MaxProfilePoints*MaxProfileSteps || m.LowerLoss > MaxProfilePoints*MaxProfileSteps {
		return fmt.Errorf("%s: lower_loss %d out of range", name, m.LowerLoss)
	}
	if !IsDecimal(m.InfinityMass) {
		return fmt.Errorf("%s: infinity_mass is %q, must be a finite decimal number", name, m.InfinityMass)
	}
	for i, v := range m.Probs {
		if !IsDecimal(v) {
			return fmt.Errorf("%s: mass %d is %q, must be a finite decimal number", name, i, v)
		}
		if x, err := strconv.ParseFloat(v, 64); err != nil || x < 0 {
			return fmt.Errorf("%s: mass %d is %q, must be a float64 >= 0", name, i, v)
		}
	}
	return nil
}
