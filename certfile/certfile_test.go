package certfile

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestNumRoundTrips(t *testing.T) {
	for _, x := range []float64{0, 1, -2.5, 0.1, 1e-300, 5e-324, math.MaxFloat64, -0.30000000000000004, math.Inf(1), math.Inf(-1)} {
		s := Num(x)
		var y float64
		switch s {
		case "inf":
			y = math.Inf(1)
		case "-inf":
			y = math.Inf(-1)
		default:
			if !IsDecimal(s) {
				t.Errorf("Num(%v) = %q is not a decimal", x, s)
			}
			y, _ = strconv.ParseFloat(s, 64)
		}
		if y != x {
			t.Errorf("Num(%v) = %q reads back as %v", x, s, y)
		}
	}
}

func TestIsDecimal(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-1.5": true, "+2": true, ".5": true, "5.": true, "1e-9": true, "2.5E+10": true,
		"": false, "-": false, ".": false, "e5": false, "1e": false, "NaN": false, "inf": false,
		"0x10": false, "1/3": false, "1e1234567": false, " 1": false, "1 ": false,
	} {
		if got := IsDecimal(s); got != want {
			t.Errorf("IsDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}

func sample() *File {
	return New(Point{D: 1, K: 2, N: 2, C: 0.1, Alpha: 5, Eps: 1, Claim: 0.9, LB: 0.8, L0: 0.2, L1: 0.6, L2: 0.1,
		Tau: 2e-9, LogU: 2.9, Tiles: [][4]float64{{math.Inf(-1), -1, math.Inf(-1), math.Inf(1)}, {-1, 0, math.Inf(-1), math.Inf(1)}}})
}

func TestEncodeDecode(t *testing.T) {
	f := sample()
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	g, err := Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip: %+v, want %+v", g, f)
	}
	if f.Name() != "d1-k2-c0.1-alpha5-eps1.json" {
		t.Errorf("name %q", f.Name())
	}
}

func TestDecodeRejects(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Encode(&b); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	for name, text := range map[string]string{
		"unknown field":                 strings.Replace(good, `"lb"`, `"lbx"`, 1),
		"version":                       strings.Replace(good, `"version": 2`, `"version": 9`, 1),
		"version 1 with a kind":         strings.Replace(strings.Replace(good, `"version": 2`, `"version": 1`, 1), Format, FormatV1, 1),
		"kind":                          strings.Replace(good, `"kind": "pieces"`, `"kind": "lp"`, 1),
		"no kind":                       strings.Replace(good, `"kind": "pieces",`, ``, 1),
		"no tiles":                      strings.Replace(good, `"kind": "pieces"`, `"kind": "closed-form"`, 1),
		"pieces without proof data":     strings.Replace(closedForm(t), `"kind": "closed-form"`, `"kind": "pieces"`, 1),
		"closed form with a multiplier": strings.Replace(closedForm(t), `"lb": "0.05"`, `"lb": "0.05", "l1": "1"`, 1),
		"format":                        strings.Replace(good, Format, "other", 1),
		"bad number":                    strings.Replace(good, `"c": "`+Exact(0.1)+`"`, `"c": "0.1.2"`, 1),
		"bad end":                       strings.Replace(good, `"-inf"`, `"-infinity"`, 1),
		"not json":                      good[:len(good)/2],
		"d":                             strings.Replace(good, `"d": 1`, `"d": 0`, 1),
	} {
		if _, err := Decode(strings.NewReader(text)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
	}
}

// TestDecodeTooLarge: a file past the size cap is refused, saying so, and
// one just under it is read.
func TestDecodeTooLarge(t *testing.T) {
	var b strings.Builder
	if err := New(Point{D: 1, K: 1, N: 1, C: 0.1, Alpha: 5, Eps: 1, Claim: 1, Tiles: [][4]float64{{math.Inf(-1), 0, math.Inf(-1), math.Inf(1)}}}).Encode(&b); err != nil {
		t.Fatal(err)
	}
	defer func(m int64) { maxBytes = m }(maxBytes)
	maxBytes = int64(b.Len())
	if _, err := Decode(strings.NewReader(b.String())); err != nil {
		t.Errorf("a file of exactly the cap: %v", err)
	}
	maxBytes = int64(b.Len()) - 10
	if _, err := Decode(strings.NewReader(b.String())); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a file past the cap: %v", err)
	}
}

func closedForm(t *testing.T) string {
	var b bytes.Buffer
	if err := NewClosedForm(2, 3, 0.1, 5, 1, 1, 0.05).Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestKinds: a closed-form certificate round-trips with no proof data, and
// a version 1 file (pieces only) is read as version 2 of kind pieces with
// every other field unchanged.
func TestKinds(t *testing.T) {
	text := closedForm(t)
	f, err := Decode(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := &File{Format: Format, Version: Version, Kind: KindClosedForm, D: 2, K: 3, N: 6, C: Exact(0.1), Alpha: "5", Eps: "1", Claim: "1", LB: "0.05"}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("closed form read as %+v, want %+v", f, want)
	}
	if strings.Contains(text, "tiles") || strings.Contains(text, "l0") {
		t.Errorf("closed form written with proof fields:\n%s", text)
	}
	var b bytes.Buffer
	if err := sample().Encode(&b); err != nil {
		t.Fatal(err)
	}
	v1 := strings.Replace(strings.Replace(strings.Replace(b.String(), `"version": 2`, `"version": 1`, 1), Format, FormatV1, 1), `"kind": "pieces",`, ``, 1)
	f1, err := Decode(strings.NewReader(v1))
	if err != nil {
		t.Fatalf("version 1: %v\n%s", err, v1)
	}
	if !reflect.DeepEqual(f1, sample()) {
		t.Errorf("version 1 read as %+v, want %+v", f1, sample())
	}
}

// TestExact: the point and the claim are written as the exact value of
// the float64 (read back as a rational it equals the float64), short where
// the short form is exact; file names keep the short form.
func TestExact(t *testing.T) {
	for _, x := range []float64{0.1, 0.4999, 1e-6, 5, 0.5, 1.001, 5e-324, math.MaxFloat64, 0.4996955072006232} {
		s := Exact(x)
		r, ok := new(big.Rat).SetString(s)
		if !ok || r.Cmp(new(big.Rat).SetFloat64(x)) != 0 || !IsDecimal(s) {
			t.Errorf("Exact(%v) = %q is not the float64", x, s)
		}
	}
	for x, want := range map[float64]string{5: "5", 0.5: "0.5", 50: "50", 0.1: "1.000000000000000055511151231257827021181583404541015625e-01"} {
		if got := Exact(x); got != want {
			t.Errorf("Exact(%v) = %q, want %q", x, got, want)
		}
	}
	if got := NewClosedForm(2, 3, 0.1, 5, 1.001, 1, 0).Name(); got != "d2-k3-c0.1-alpha5-eps1.001.json" {
		t.Errorf("name %q", got)
	}
}

// TestDeltaPieces: a delta-pieces certificate round-trips with its point
// and multipliers written exactly, is named by its point, and is malformed
// with a field of another kind or without one of its own; the other kinds
// are malformed with delta or eps_out.
func TestDeltaPieces(t *testing.T) {
	f := NewDeltaPieces(1, 20, 0.1, 1, 0.01, 0.5, 0.3, 0.29, 0.2, 0.6, 1e-300)
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	g, err := Decode(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip: %+v, want %+v", g, f)
	}
	for name, x := range map[string]struct {
		s string
		v float64
	}{"c": {g.C, 0.1}, "delta": {g.Delta, 0.01}, "eps_out": {g.EpsOut, 0.5}, "claim": {g.Claim, 0.3}, "l0": {g.L0, 0.2}, "l1": {g.L1, 0.6}, "l2": {g.L2, 1e-300}} {
		if r, ok := new(big.Rat).SetString(x.s); !ok || r.Cmp(new(big.Rat).SetFloat64(x.v)) != 0 {
			t.Errorf("%s = %q is not the float64 %v", name, x.s, x.v)
		}
	}
	if f.Name() != "delta-d1-k20-c0.1-eps1-delta0.01-epsout0.5.json" {
		t.Errorf("name %q", f.Name())
	}
	if strings.Contains(text, "alpha") || strings.Contains(text, "tau") || strings.Contains(text, "tiles") {
		t.Errorf("written with fields of other kinds:\n%s", text)
	}
	for name, bad := range map[string]string{
		"alpha":       strings.Replace(text, `"eps": "1",`, `"eps": "1", "alpha": "5",`, 1),
		"tau":         strings.Replace(text, `"eps": "1",`, `"eps": "1", "tau": "0",`, 1),
		"log_u":       strings.Replace(text, `"eps": "1",`, `"eps": "1", "log_u": "0",`, 1),
		"tiles":       strings.Replace(text, `"eps": "1",`, `"eps": "1", "tiles": [["-inf", "0", "-inf", "inf"]],`, 1),
		"no delta":    strings.Replace(text, `"delta": "`+g.Delta+`",`, ``, 1),
		"no eps_out":  strings.Replace(text, `"eps_out": "0.5",`, ``, 1),
		"no l1":       strings.Replace(text, `"l1": "`+g.L1+`",`, ``, 1),
		"bad eps_out": strings.Replace(text, `"eps_out": "0.5"`, `"eps_out": "inf"`, 1),
		"pure-dp with delta": strings.Replace(strings.Replace(strings.Replace(strings.Replace(text, `"l0": "`+g.L0+`",`, ``, 1),
			`"l1": "`+g.L1+`",`, ``, 1), `"kind": "delta-pieces"`, `"kind": "pure-dp"`, 1), `,
  "l2": "`+g.L2+`"`, ``, 1),
		"closed form with eps_out": strings.Replace(closedForm(t), `"lb": "0.05"`, `"lb": "0.05", "eps_out": "1"`, 1),
	} {
		if bad == text {
			t.Fatalf("%s: the edit did nothing", name)
		}
		if _, err := Decode(strings.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat\n%s", name, err, bad)
		}
	}
}

// TestDeltaCorners: a delta-corners certificate round-trips with no proof
// data and is named by its point; multipliers or an order make it
// malformed.
func TestDeltaCorners(t *testing.T) {
	f := NewDeltaCorners(2, 3, 0.1, 1, 0.01, 0.5, 0.3, 0.29)
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	g, err := Decode(strings.NewReader(text))
	if err != nil || !reflect.DeepEqual(f, g) {
		t.Fatalf("round trip: %+v, %v\n%s", g, err, text)
	}
	if f.Name() != "delta-corners-d2-k3-c0.1-eps1-delta0.01-epsout0.5.json" || strings.Contains(text, "l0") {
		t.Errorf("name %q, text\n%s", f.Name(), text)
	}
	for name, bad := range map[string]string{
		"l0":       strings.Replace(text, `"eps": "1",`, `"eps": "1", "l0": "0",`, 1),
		"alpha":    strings.Replace(text, `"eps": "1",`, `"eps": "1", "alpha": "5",`, 1),
		"no delta": strings.Replace(text, `"delta": "`+g.Delta+`",`, ``, 1),
	} {
		if _, err := Decode(strings.NewReader(bad)); bad == text || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
	}
}

// TestRanges: NewRanges writes the groups' c exactly and no c, the file
// round-trips, its name lists the groups, and Validate rejects a ranges
// file without groups, with a c, with too many groups or a group of n 0,
// and a file of another kind with groups.
func TestRanges(t *testing.T) {
	s := sample()
	pt := RangePoint{Point: Point{D: 2, K: 2, N: 4, Alpha: 5, Eps: 1, Claim: 0.9, LB: 0.8, L0: 0.2, L1: 0.6, L2: 0.1,
		Tau: 2e-9, LogU: 2.9, Tiles: [][4]float64{{math.Inf(-1), 0, math.Inf(-1), math.Inf(1)}}},
		GroupN: []int{2, 2}, GroupC: []float64{0.1, 0.3}}
	f := NewRanges(pt)
	if f.Kind != KindRanges || f.C != "" || len(f.Groups) != 2 || f.Groups[0].C != Exact(0.1) || f.Groups[1].N != 2 {
		t.Fatalf("NewRanges: %+v", f)
	}
	if got, want := f.Name(), "ranges-d2-k2-c0.1x2-c0.3x2-alpha5-eps1.json"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	g, err := Decode(&b)
	if err != nil || !reflect.DeepEqual(f, g) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, f, g)
	}
	for name, mutate := range map[string]func(f *File){
		"no groups":   func(f *File) { f.Groups = nil },
		"c":           func(f *File) { f.C = "0.1" },
		"17 groups":   func(f *File) { f.Groups = make([]Group, MaxRangeGroups+1) },
		"group n 0":   func(f *File) { f.Groups[0].N = 0 },
		"group c bad": func(f *File) { f.Groups[1].C = "0x1" },
		"no tiles":    func(f *File) { f.Tiles = nil },
	} {
		h := NewRanges(pt)
		mutate(h)
		if err := h.Validate(); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Validate gives %v", name, err)
		}
	}
	s.Groups = f.Groups
	if err := s.Validate(); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "groups") {
		t.Errorf("a pieces file with groups: Validate gives %v", err)
	}
}

// TestClosedFormGroupsShape: a closed-form file without groups encodes to
// the bytes version 2 always wrote; with groups it round-trips, and the
// shapes that are not a closed form with groups are refused.
func TestClosedFormGroupsShape(t *testing.T) {
	var buf bytes.Buffer
	if err := NewClosedForm(2, 5, 0.25, 1.5, 10, 7.5, 1).Encode(&buf); err != nil {
		t.Fatal(err)
	}
	want := `{
  "format": "bernamp-certificate",
  "version": 2,
  "kind": "closed-form",
  "d": 2,
  "k": 5,
  "n": 10,
  "c": "0.25",
  "alpha": "1.5",
  "eps": "10",
  "claim": "7.5",
  "lb": "1"
}
`
	if buf.String() != want {
		t.Errorf("closed form without groups:\n%s\nwant\n%s", buf.String(), want)
	}
	g := NewClosedFormRanges(3, 2, []int{2, 4}, []float64{0.1, 0.2}, []float64{0.6, 0.3}, 2, 50, 6.1, 0)
	if len(g.Groups) != 2 || g.Groups[0] != (Group{N: 2, Lo: Exact(0.1), Hi: Exact(0.6)}) || g.C != "" {
		t.Fatalf("NewClosedFormRanges: %+v", g)
	}
	if got := g.Name(); got != "closed-d3-k2-r0.1_0.6x2-r0.2_0.3x4-alpha2-eps50.json" {
		t.Errorf("name %s", got)
	}
	buf.Reset()
	if err := g.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf)
	if err != nil || !reflect.DeepEqual(back, g) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for _, m := range []struct {
		name string
		edit func(f *File)
	}{
		{"c and groups", func(f *File) { f.C = "0.1" }},
		{"c and lo in a group", func(f *File) { f.Groups[0].C = "0.1" }},
		{"lo without hi", func(f *File) { f.Groups[0].Hi = "" }},
		{"neither c nor lo, hi", func(f *File) { f.Groups[0].Lo, f.Groups[0].Hi = "", "" }},
		{"n zero", func(f *File) { f.Groups[1].N = 0 }},
		{"hi not a number", func(f *File) { f.Groups[1].Hi = "x" }},
		{"too many groups", func(f *File) {
			for range MaxClosedFormGroups {
				f.Groups = append(f.Groups, f.Groups[0])
			}
		}},
		{"a ranges group with lo", func(f *File) { f.Kind, f.Groups[0].C = KindRanges, "0.1" }},
		{"groups on a pure-dp file", func(f *File) { f.Kind, f.Alpha, f.C = KindPureDP, "", "0.1" }},
	} {
		f := NewClosedFormRanges(3, 2, []int{2, 4}, []float64{0.1, 0.2}, []float64{0.6, 0.3}, 2, 50, 6.1, 0)
		m.edit(f)
		if err := f.Validate(); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Validate %v, want ErrFormat", m.name, err)
		}
	}
}

// TestBandFields checks the band's fields: written and read back, and a
// band that is partial, on another kind, with a bad end or too many boxes
// refused.
func TestBandFields(t *testing.T) {
	pt := Point{D: 1, K: 1, N: 1, C: 0.4, Alpha: 100, Eps: 1e-3, Claim: 0.1, LB: 0.05, L0: 0.9, L1: 0.1, L2: 0.1, Tau: 1e-6, LogU: 0.01,
		Tiles:    [][4]float64{{math.Inf(-1), 0, math.Inf(-1), math.Inf(1)}},
		BandBeta: 0.16, BandS1: -1, BandS2: 0, BandBoxes: [][4]float64{{-1, 0, -0.16, 0}, {-1, 0, 0, 0.16}}}
	f := New(pt)
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	g, err := Decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("read back %+v, wrote %+v", g, f)
	}
	if !strings.Contains(b.String(), "\"band_boxes\": [\n    [\"-1\",\"0\",\"-0.16\",\"0\"],") {
		t.Errorf("band boxes not one a line:\n%s", b.String())
	}
	for name, edit := range map[string]func(f *File){
		"no beta":          func(f *File) { f.BandBeta = "" },
		"no boxes":         func(f *File) { f.BandBoxes = nil },
		"inf end":          func(f *File) { f.BandBoxes[0][2] = "-inf" },
		"bad s1":           func(f *File) { f.BandS1 = "x" },
		"another kind":     func(f *File) { f.Kind = KindRanges; f.Groups = []Group{{N: 1, C: "0.4"}}; f.C = "" },
		"too many boxes":   func(f *File) { f.BandBoxes = make([][4]string, MaxBandBoxes+1) },
		"beta without box": func(f *File) { f.BandBoxes, f.BandS1, f.BandS2 = nil, "", "" },
	} {
		h := New(pt)
		edit(h)
		if err := h.Validate(); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: validated (%v)", name, err)
		}
	}
}
