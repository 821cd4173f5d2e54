package valuelist

import (
	"slices"
	"testing"
)

func TestFloats(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
		err  bool
	}{
		{"0.1:0.5:0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5}, false},
		{"0:1e-12:1000", []float64{0}, false}, // start stays start
		{"1, 2 ,4", []float64{1, 2, 4}, false},
		{"1:0:1", nil, true},
		{"1:2:0", nil, true},
		{"0:1:1e-12", nil, true}, // more than the limit
		{"", nil, true},
		{"1,,2", nil, true},
		{"a", nil, true},
	} {
		got, err := Floats(tc.in, 1000)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("Floats(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestInts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"1:7:3", []int{1, 4, 7}, false},
		{"3,1", []int{3, 1}, false},
		{"-9223372036854775808:9223372036854775807:1", nil, true},
		{"1:2:-1", nil, true},
		{"1.5", nil, true},
	} {
		got, err := Ints(tc.in, 1000)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("Ints(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
