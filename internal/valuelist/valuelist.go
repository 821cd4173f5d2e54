// Package valuelist parses the value lists of bernamp's grid flags: a
// comma list such as 1,2,4, or a range start:stop:step, which includes
// stop when it lands on it within RangeTol relative; range values are
// start + i*step rounded to RangeDigits significant digits, so
// 0.1:0.5:0.1 gives 0.1, 0.2, 0.3, 0.4, 0.5. The CLI and the calculator
// page share it, so both expand a range to the same points.
package valuelist

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

const (
	// RangeTol is the relative slack with which a range includes its stop.
	RangeTol = 1e-9
	// RangeDigits is the number of significant digits range values are
	// rounded to, so that 0.1:0.5:0.1 gives 0.3 and not 0.30000000000000004.
	RangeDigits = 12
)

// Floats parses a comma list or a start:stop:step range of floats, at
// most limit values in a range. It checks only that the values are numbers,
// not their domain.
func Floats(s string, limit int) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty list")
	}
	if strings.Contains(s, ":") {
		return floatRange(s, limit)
	}
	var vs []float64
	for _, f := range strings.Split(s, ",") {
		v, err := Float(f)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// Float parses one number of a list; the error says what is wrong with it.
func Float(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty value in list")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// rangeParts splits "start:stop:step" into its three fields.
func rangeParts(s string) ([3]string, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return [3]string{}, fmt.Errorf("range %q must be start:stop:step", s)
	}
	return [3]string{parts[0], parts[1], parts[2]}, nil
}

// floatRange expands start:stop:step into start + i*step, i = 0, 1, ...,
// up to stop (included when within RangeTol relative), each rounded to
// RangeDigits significant digits.
func floatRange(s string, limit int) ([]float64, error) {
	parts, err := rangeParts(s)
	if err != nil {
		return nil, err
	}
	var x [3]float64
	for j, p := range parts {
		if x[j], err = Float(p); err != nil {
			return nil, fmt.Errorf("range %q: %v", s, err)
		}
		if math.IsNaN(x[j]) || math.IsInf(x[j], 0) {
			return nil, fmt.Errorf("range %q: %v is not finite", s, x[j])
		}
	}
	start, stop, step := x[0], x[1], x[2]
	if !(step > 0) {
		return nil, fmt.Errorf("range %q: step is %v, must be > 0", s, step)
	}
	if stop < start {
		return nil, fmt.Errorf("range %q: stop %v is less than start %v", s, stop, start)
	}
	// slack: how far from stop a value may land and still count as stop.
	// The scale keeps it meaningful when stop is 0; the cap of half a step
	// keeps a fine range from gaining a value past stop.
	slack := math.Min(RangeTol*math.Max(math.Max(math.Abs(start), math.Abs(stop)), step), step/2)
	q := math.Floor((stop - start) / step)
	if q+1 > float64(limit) {
		return nil, fmt.Errorf("range %q has more than %d values", s, limit)
	}
	m := int(q)
	if start+float64(m+1)*step <= stop+slack {
		m++ // (stop-start)/step rounded down below an integer
	}
	vs := make([]float64, 0, m+1)
	for i := 0; i <= m; i++ {
		v := start + float64(i)*step
		if i > 0 && math.Abs(v-stop) <= slack { // start stays start: "0:1e-12:1000" is 0
			v = stop
		} else if v > stop {
			break // q rounded up past the last value
		}
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', RangeDigits, 64), 64)
		if len(vs) > 0 && v <= vs[len(vs)-1] {
			return nil, fmt.Errorf("range %q: step %v is too small for %d significant digits", s, step, RangeDigits)
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// Ints parses a comma list or a start:stop:step range of integers, at most
// limit values in a range.
func Ints(s string, limit int) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty list")
	}
	if strings.Contains(s, ":") {
		parts, err := rangeParts(s)
		if err != nil {
			return nil, err
		}
		var x [3]int
		for j, p := range parts {
			if x[j], err = Int(p); err != nil {
				return nil, fmt.Errorf("range %q: %v", s, err)
			}
		}
		start, stop, step := x[0], x[1], x[2]
		if step <= 0 {
			return nil, fmt.Errorf("range %q: step is %d, must be > 0", s, step)
		}
		if stop < start {
			return nil, fmt.Errorf("range %q: stop %d is less than start %d", s, stop, start)
		}
		// Written so that neither the count nor start + i*step overflows:
		// the span stop - start fits in a uint64, but span/step + 1 does
		// not when the span is 2^64 - 1 and the step 1.
		if (uint64(stop)-uint64(start))/uint64(step) >= uint64(limit) {
			return nil, fmt.Errorf("range %q has more than %d values", s, limit)
		}
		vs := make([]int, (uint64(stop)-uint64(start))/uint64(step)+1)
		for i := range vs {
			vs[i] = start + i*step
		}
		return vs, nil
	}
	var vs []int
	for _, f := range strings.Split(s, ",") {
		v, err := Int(f)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// Int parses one integer of a list.
func Int(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty value in list")
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return v, nil
}
