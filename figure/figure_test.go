package figure

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"

	"gonum.org/v1/plot/vg"
)

// The CSV files of testdata/figures were written by the bernamp CLI; see
// testdata/figures/README.md.
const (
	smallCSV  = "../testdata/figures/small.csv"   // post: d 1,2 × c 0.1,0.3, all certified, eps 0 included
	kCSV      = "../testdata/figures/kpanels.csv" // post: k 1,2, certified and witness rows
	boundsCSV = "../testdata/figures/bounds.csv"  // bounds: status bounds only, eps 0 included
)

// csvRow is a row of a test CSV, parsed here independently of ReadCSV.
type csvRow struct {
	d, k                             int
	c, alpha, eps, lb, ub, post, pup float64
	status                           string
}

// loadCSV parses path by column name with encoding/csv and strconv.
func loadCSV(t *testing.T, path string) []csvRow {
	t.Helper()
	recs := testref.Records(t, path)
	col := make(map[string]int)
	for i, name := range recs[0] {
		col[name] = i
	}
	num := func(rec []string, name string) float64 {
		v, err := strconv.ParseFloat(rec[col[name]], 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	var rows []csvRow
	for _, rec := range recs[1:] {
		rows = append(rows, csvRow{
			d: int(num(rec, "d")), k: int(num(rec, "k")),
			c: num(rec, "c"), alpha: num(rec, "alpha"), eps: num(rec, "eps"),
			lb: num(rec, "lb"), ub: num(rec, "ub"), post: num(rec, "post"), pup: num(rec, "post_upper"),
			status: rec[col["status"]],
		})
	}
	return rows
}

// prepareFile reads path with ReadFile and prepares it.
func prepareFile(t *testing.T, path string, opts *Options) *Figure {
	t.Helper()
	rows, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Prepare(rows, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// renyi is r_alpha(c) from its definition,
//
//	log(c^a (1-c)^(1-a) + (1-c)^a c^(1-a)) / (a-1),
//
// evaluated directly (no log-space tricks), fine for the moderate c and
// alpha of the test files.
func renyi(alpha, c float64) float64 {
	s := math.Pow(c, alpha)*math.Pow(1-c, 1-alpha) + math.Pow(1-c, alpha)*math.Pow(c, 1-alpha)
	return math.Log(s) / (alpha - 1)
}

// want returns the expected points (eps, y) of kind k in the panel of
// (d, k, c, alpha), built from the CSV rows by the rules of the package
// doc, in CSV order (the files are written in increasing eps).
func want(rows []csvRow, p Panel, kind Kind) (x, y []float64) {
	floor := func(v float64) float64 { return math.Max(v, GapFloor) }
	for _, r := range rows {
		if r.d != p.D || r.k != p.K || r.c != p.C || r.alpha != p.Alpha {
			continue
		}
		solved := r.status == "certified" || r.status == "witness"
		var v float64
		switch {
		case kind == PostProcessing:
			v = r.eps
		case kind == LowerBound:
			v = r.lb
		case kind == Post && solved:
			v = r.post
		case kind == PostCertified && r.status == "certified":
			v = r.post
		case kind == PostWitness && r.status == "witness":
			v = r.post
		case kind == PostUpper && r.status == "witness":
			v = r.pup
		case kind == GapBounds:
			v = floor(r.ub - r.lb)
		case kind == GapPost && solved:
			v = floor(r.pup - r.post)
		case kind == GapCertified && r.status == "certified":
			v = floor(r.pup - r.post)
		case kind == GapWitness && r.status == "witness":
			v = floor(r.pup - r.post)
		default:
			continue
		}
		x, y = append(x, r.eps), append(y, v)
	}
	return x, y
}

func TestPrepareSeries(t *testing.T) {
	t.Parallel()
	// Relative tolerance of the asymptote against renyi: both are float64
	// evaluations of the same closed form, a few ulps apart, and
	// UpperBound rounds up by renyiUlps (about 1e-14 at these points).
	const asymTol = 1e-13
	for _, tc := range []struct {
		path  string
		view  View
		kinds []Kind // series every panel must have
	}{
		{smallCSV, Curves, []Kind{PostProcessing, Asymptote, LowerBound, Post, PostCertified}},
		{smallCSV, Gap, []Kind{GapBounds, GapPost, GapCertified, Floor}},
		{kCSV, Curves, []Kind{PostProcessing, Asymptote, LowerBound, Post}},
		{kCSV, Gap, []Kind{GapBounds, GapPost, Floor}},
		{boundsCSV, Curves, []Kind{PostProcessing, Asymptote, LowerBound}},
		{boundsCSV, Gap, []Kind{GapBounds, Floor}},
	} {
		rows := loadCSV(t, tc.path)
		f := prepareFile(t, tc.path, &Options{View: tc.view})
		if f.View != tc.view {
			t.Errorf("%s %s: view %s", tc.path, tc.view, f.View)
		}
		points := 0
		for _, p := range f.Panels {
			name := tc.path + " " + string(tc.view) + " " + p.Title
			if got, want := p.Asym, float64(p.D*p.K)*renyi(p.Alpha, p.C); math.Abs(got-want) > asymTol*want {
				t.Errorf("%s: asymptote %v, want %v", name, got, want)
			}
			has := make(map[Kind]Series)
			for _, s := range p.Series {
				if _, dup := has[s.Kind]; dup {
					t.Errorf("%s: two series of kind %d", name, s.Kind)
				}
				has[s.Kind] = s
			}
			for _, k := range tc.kinds {
				if _, ok := has[k]; !ok {
					t.Errorf("%s: no series %q", name, k.Label())
				}
			}
			for _, s := range p.Series {
				if len(s.X) != len(s.Y) {
					t.Fatalf("%s %q: %d x values, %d y values", name, s.Kind.Label(), len(s.X), len(s.Y))
				}
				switch s.Kind {
				case Asymptote:
					if len(s.Y) != 2 || s.Y[0] != p.Asym || s.Y[1] != p.Asym || s.X[0] != p.XMin || s.X[1] != p.XMax {
						t.Errorf("%s: asymptote series %v %v, want y = %v over [%v, %v]", name, s.X, s.Y, p.Asym, p.XMin, p.XMax)
					}
					continue
				case Floor:
					if len(s.Y) != 2 || s.Y[0] != GapFloor || s.Y[1] != GapFloor {
						t.Errorf("%s: floor series %v", name, s.Y)
					}
					continue
				case LowerBound, GapBounds:
					points += len(s.X)
				}
				wx, wy := want(rows, p, s.Kind)
				if len(wx) == 0 {
					t.Errorf("%s: series %q drawn, but no row belongs to it", name, s.Kind.Label())
				}
				if !equal(s.X, wx) || !equal(s.Y, wy) {
					t.Errorf("%s %q:\nx %v\ny %v\nwant\nx %v\ny %v", name, s.Kind.Label(), s.X, s.Y, wx, wy)
				}
			}
			// Every kind with rows must be drawn.
			for k := range Floor + 1 {
				if wx, _ := want(rows, p, k); len(wx) > 0 && (tc.view == Curves) == (k <= PostUpper) {
					if _, ok := has[k]; !ok {
						t.Errorf("%s: %d rows of %q not drawn", name, len(wx), k.Label())
					}
				}
			}
		}
		if points != len(rows) {
			t.Errorf("%s %s: %d points drawn, the CSV has %d rows", tc.path, tc.view, points, len(rows))
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPrepareLayout(t *testing.T) {
	t.Parallel()
	type cell struct {
		row, col int
		d, k     int
		c, alpha float64
	}
	tests := []struct {
		name       string
		path       string
		by         PanelBy
		wantBy     PanelBy
		rows, cols int
		cells      []cell // in order
		legend     []Kind
	}{
		{
			name: "small auto", path: smallCSV, wantBy: ByC, rows: 2, cols: 2,
			cells: []cell{{0, 0, 1, 1, 0.1, 5}, {0, 1, 1, 1, 0.3, 5}, {1, 0, 2, 1, 0.1, 5}, {1, 1, 2, 1, 0.3, 5}},
			// All rows certified: no witness markers, no post_upper.
			legend: []Kind{PostProcessing, Asymptote, LowerBound, Post, PostCertified},
		},
		{
			name: "small by k", path: smallCSV, by: ByK, wantBy: ByK, rows: 4, cols: 1,
			cells: []cell{{0, 0, 1, 1, 0.1, 5}, {1, 0, 1, 1, 0.3, 5}, {2, 0, 2, 1, 0.1, 5}, {3, 0, 2, 1, 0.3, 5}},
		},
		{
			name: "k auto", path: kCSV, wantBy: ByK, rows: 1, cols: 2,
			cells:  []cell{{0, 0, 2, 1, 0.1, 50}, {0, 1, 2, 2, 0.1, 50}},
			legend: []Kind{PostProcessing, Asymptote, LowerBound, Post, PostCertified, PostWitness, PostUpper},
		},
		{
			name: "k by c", path: kCSV, by: ByC, wantBy: ByC, rows: 2, cols: 1,
			cells: []cell{{0, 0, 2, 1, 0.1, 50}, {1, 0, 2, 2, 0.1, 50}},
		},
		{
			name: "bounds auto", path: boundsCSV, wantBy: ByK, rows: 1, cols: 2,
			cells: []cell{{0, 0, 1, 1, 0.1, 5}, {0, 1, 1, 2, 0.1, 5}},
			// bounds reports eps = 0 as certified (Post = 0 exactly), the
			// other rows as bounds, which add no post points.
			legend: []Kind{PostProcessing, Asymptote, LowerBound, Post, PostCertified},
		},
	}
	for _, tc := range tests {
		f := prepareFile(t, tc.path, &Options{PanelBy: tc.by})
		if f.PanelBy != tc.wantBy || f.Rows != tc.rows || f.Cols != tc.cols {
			t.Errorf("%s: by %q, %d x %d; want by %q, %d x %d", tc.name, f.PanelBy, f.Rows, f.Cols, tc.wantBy, tc.rows, tc.cols)
		}
		if len(f.Panels) != len(tc.cells) {
			t.Fatalf("%s: %d panels, want %d", tc.name, len(f.Panels), len(tc.cells))
		}
		for i, p := range f.Panels {
			got := cell{p.Row, p.Col, p.D, p.K, p.C, p.Alpha}
			if got != tc.cells[i] {
				t.Errorf("%s: panel %d is %+v, want %+v", tc.name, i, got, tc.cells[i])
			}
		}
		if tc.legend != nil && !slices.Equal(f.Legend, tc.legend) {
			t.Errorf("%s: legend %v, want %v", tc.name, f.Legend, tc.legend)
		}
		// Default size: PanelWidth per column, PanelHeight per row plus
		// the legend.
		if f.Width != vg.Length(tc.cols)*4*vg.Inch || f.Height <= vg.Length(tc.rows)*3*vg.Inch {
			t.Errorf("%s: size %v x %v", tc.name, f.Width, f.Height)
		}
	}
}

// TestPrepareRanges checks the axis ranges and the title of each view on
// hand-made rows.
func TestPrepareRanges(t *testing.T) {
	t.Parallel()
	rows := []Row{
		// eps out of order on purpose; post_upper - post one ulp below 0
		// (rounding) at eps 2, zero at eps 0. The values are exact in
		// binary, so are their differences.
		{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 2, LB: 1.25, UB: 2, Post: 1.5, PostUpper: math.Nextafter(1.5, 0), Status: "certified"},
		{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 0, Status: "certified"},
		{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1, LB: 0.75, UB: 1, Post: 0.75, PostUpper: 0.875, Status: "witness"},
	}
	f, err := Prepare(rows, &Options{View: Gap})
	if err != nil {
		t.Fatal(err)
	}
	p := f.Panels[0]
	// The largest gap is ub - lb = 0.75 at eps 2.
	if p.XMin != 0 || p.XMax != 2 || p.YMin != GapFloor/2 || p.YMax != 1.5 {
		t.Errorf("gap ranges x [%v, %v] y [%v, %v], want [0, 2] [%v, 1.5]", p.XMin, p.XMax, p.YMin, p.YMax, GapFloor/2)
	}
	got := make(map[Kind][]float64)
	for _, s := range p.Series {
		if !equal(s.X, []float64{0, 1, 2}) && s.Kind != GapCertified && s.Kind != GapWitness && s.Kind != Floor {
			t.Errorf("%q: x %v, want 0, 1, 2", s.Kind.Label(), s.X)
		}
		got[s.Kind] = s.Y
	}
	for k, want := range map[Kind][]float64{
		GapPost:      {GapFloor, 0.125, GapFloor},
		GapCertified: {GapFloor, GapFloor},
		GapWitness:   {0.125},
		GapBounds:    {GapFloor, 0.25, 0.75},
		Floor:        {GapFloor, GapFloor},
	} {
		if !equal(got[k], want) {
			t.Errorf("%q: y %v, want %v", k.Label(), got[k], want)
		}
	}

	f, err = Prepare(rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	p = f.Panels[0]
	if f.View != Curves || p.XMin != 0 || p.XMax != 2 || p.YMin != 0 || p.YMax != 2 {
		t.Errorf("curves %s ranges x [%v, %v] y [%v, %v], want [0, 2] [0, 2]", f.View, p.XMin, p.XMax, p.YMin, p.YMax)
	}
	// r_5(0.1) = 2.17 > 2: the asymptote is above the plotted range.
	if !strings.Contains(p.Title, "d = 1, k = 1, c = 0.1, α = 5") || !strings.Contains(p.Title, "above the plotted range") {
		t.Errorf("title %q", p.Title)
	}
}

func TestPrepareErrors(t *testing.T) {
	t.Parallel()
	ok := Row{D: 1, K: 1, C: 0.1, Alpha: 5, Eps: 1, LB: 0.7, UB: 1, Post: 0.7, PostUpper: 0.8, Status: "witness"}
	with := func(f func(*Row)) []Row {
		r := ok
		f(&r)
		return []Row{r}
	}
	many := func(n int) []Row {
		var rs []Row
		for i := range n {
			r := ok
			r.D = i + 1
			rs = append(rs, r)
		}
		return rs
	}
	tests := []struct {
		name string
		rows []Row
		opts *Options
		want string
	}{
		{"no rows", nil, nil, "no rows"},
		{"duplicate", []Row{ok, ok}, nil, "two rows at d=1 k=1 c=0.1 alpha=5 eps=1"},
		{"view", []Row{ok}, &Options{View: "pixels"}, `view is "pixels"`},
		{"panels", []Row{ok}, &Options{PanelBy: "alpha"}, `panels by "alpha"`},
		{"width", []Row{ok}, &Options{Width: -1}, "size"},
		{"height NaN", []Row{ok}, &Options{Height: vg.Length(math.NaN())}, "size"},
		{"height Inf", []Row{ok}, &Options{Height: vg.Length(math.Inf(1))}, "size"},
		{"NaN post", with(func(r *Row) { r.Post = math.NaN() }), nil, "post is NaN"},
		{"Inf lb", with(func(r *Row) { r.LB = math.Inf(-1) }), nil, "lb is -Inf"},
		{"status", with(func(r *Row) { r.Status = "proved" }), nil, `status is "proved"`},
		{"alpha", with(func(r *Row) { r.Alpha = 1 }), nil, "alpha is 1"},
		{"c", with(func(r *Row) { r.C = 0.5 }), nil, "c is 0.5"},
		{"d", with(func(r *Row) { r.D = 0 }), nil, "d is 0"},
		{"too many", many(MaxPanels + 1), nil, "101 x 1 panels"},
	}
	for _, tc := range tests {
		_, err := Prepare(tc.rows, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "figure: ") {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Prepare(many(MaxPanels), nil); err != nil {
		t.Errorf("MaxPanels panels: %v", err)
	}
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	const head = "d,k,c,alpha,eps,lb,ub,post,post_upper,status,seconds\n"
	const good = "1,1,0.1,5,1,0.7,1,0.7,0.8,witness,0.0100\n"
	// Reordered columns without seconds, plus an unknown column.
	rows, err := ReadCSV(strings.NewReader("status,extra,post_upper,post,ub,lb,eps,alpha,c,k,d\ncertified,x,0.5,0.4,0.6,0.3,2,5,0.25,3,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Row{D: 2, K: 3, C: 0.25, Alpha: 5, Eps: 2, LB: 0.3, UB: 0.6, Post: 0.4, PostUpper: 0.5, Status: "certified"}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("reordered: %+v, want %+v", rows, want)
	}

	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty input"},
		{"header only", head, "no rows"},
		{"missing column", "d,k,c,alpha,eps,lb,ub,post,status\n" + good, `line 1: missing column "post_upper"`},
		{"duplicate column", "d,d,k,c,alpha,eps,lb,ub,post,post_upper,status\n", `column "d" appears twice`},
		{"NaN", head + good + "1,1,0.1,5,2,NaN,1,0.7,0.8,witness,0\n", "line 3: column lb: NaN, must be finite"},
		{"Inf", head + "1,1,0.1,5,2,0.5,1,Inf,0.8,witness,0\n", "line 2: column post: +Inf"},
		{"not a number", head + "1,1,0.1,5,x,0.5,1,0.7,0.8,witness,0\n", `line 2: column eps: "x" is not a number`},
		{"not an integer", head + "1.5,1,0.1,5,1,0.5,1,0.7,0.8,witness,0\n", `line 2: column d: "1.5" is not an integer`},
		{"short record", head + "1,1,0.1\n", "wrong number of fields"},
		{"domain", head + "1,1,0.1,0.5,1,0.5,1,0.7,0.8,witness,0\n", "line 2: alpha is 0.5"},
		{"negative eps", head + "1,1,0.1,5,-1,0.5,1,0.7,0.8,witness,0\n", "line 2: eps is -1"},
		{"status", head + "1,1,0.1,5,1,0.5,1,0.7,0.8,,0\n", `line 2: status is ""`},
	}
	for _, tc := range tests {
		_, err := ReadCSV(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", tc.name, err, tc.want)
		}
	}

	if _, err := ReadFile(filepath.Join(t.TempDir(), "absent.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}

func TestFormatOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, want string }{
		{"a.png", "png"}, {"dir/b.SVG", "svg"}, {"c.Pdf", "pdf"},
		{"d.jpg", ""}, {"e", ""}, {"f.png.txt", ""}, {".png", "png"},
	} {
		got, err := FormatOf(tc.path)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

// TestWritePNG renders each test file in each view and decodes the PNG.
func TestWritePNG(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		path string
		opts Options
		w, h int // pixels at 96 dpi; h = 0: rows panels of 3 inches plus a legend under an inch
		rows int
	}{
		{smallCSV, Options{View: Curves}, 2 * 4 * 96, 0, 2},
		{smallCSV, Options{View: Gap}, 2 * 4 * 96, 0, 2},
		{kCSV, Options{View: Curves, Width: 5 * vg.Inch, Height: 4 * vg.Inch}, 480, 384, 0},
		{kCSV, Options{View: Gap, PanelBy: ByC, Width: 300, Height: 450}, 400, 600, 0}, // vg.Length is in points: 72 per inch
		{boundsCSV, Options{View: Curves}, 2 * 4 * 96, 0, 1},
		{boundsCSV, Options{View: Gap}, 2 * 4 * 96, 0, 1},
	} {
		rows, err := ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "fig.png")
		if err := WriteFile(out, rows, &tc.opts); err != nil {
			t.Fatalf("%s %+v: %v", tc.path, tc.opts, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s %+v: %v", tc.path, tc.opts, err)
		}
		size := img.Bounds().Size()
		okH := size.Y == tc.h || tc.h == 0 && size.Y > tc.rows*3*96 && size.Y < tc.rows*3*96+96
		if size.X != tc.w || !okH {
			t.Errorf("%s %+v: %v x %v pixels, want %v x %v (0: %d rows)", tc.path, tc.opts, size.X, size.Y, tc.w, tc.h, tc.rows)
		}
		// Not blank: a drawn figure has many colours besides the white
		// background.
		colours := make(map[[4]uint32]bool)
		for y := 0; y < size.Y; y += 3 {
			for x := 0; x < size.X; x += 3 {
				r, g, b, a := img.At(x, y).RGBA()
				colours[[4]uint32{r, g, b, a}] = true
			}
		}
		if len(colours) < 10 {
			t.Errorf("%s %+v: %d colours", tc.path, tc.opts, len(colours))
		}
	}
}

func TestWriteSVGPDF(t *testing.T) {
	t.Parallel()
	rows, err := ReadFile(kCSV)
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := Write(&svg, "svg", rows, &Options{View: Gap}); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML with an svg root element of the default size, 2
	// columns of 4 inches = 576 points.
	dec := xml.NewDecoder(&svg)
	root := ""
	width := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
			for _, a := range se.Attr {
				if a.Name.Local == "width" {
					width = a.Value
				}
			}
		}
	}
	if root != "svg" || !strings.HasPrefix(width, "576") {
		t.Errorf("svg root %q width %q, want svg 576pt", root, width)
	}

	var pdf bytes.Buffer
	if err := Write(&pdf, "pdf", rows, nil); err != nil {
		t.Fatal(err)
	}
	if b := pdf.Bytes(); !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[len(b)-16:], []byte("%%EOF")) {
		t.Errorf("pdf: starts %q, ends %q", b[:min(8, len(b))], b[max(0, len(b)-16):])
	}

	var buf bytes.Buffer
	if err := Write(&buf, "gif", rows, nil); err == nil || buf.Len() != 0 {
		t.Errorf("gif: error %v, %d bytes written", err, buf.Len())
	}
	if err := Write(&buf, "png", nil, nil); err == nil || buf.Len() != 0 {
		t.Errorf("no rows: error %v, %d bytes written", err, buf.Len())
	}
	out := filepath.Join(t.TempDir(), "fig.png")
	if err := WriteFile(out, nil, nil); err == nil {
		t.Error("WriteFile without rows: no error")
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteFile without rows created the file: %v", err)
	}
}

// TestPrepareAuto checks the automatic choice of PanelBy when both or
// neither of c and k vary.
func TestPrepareAuto(t *testing.T) {
	t.Parallel()
	row := func(k int, c float64) Row {
		return Row{D: 1, K: k, C: c, Alpha: 5, Eps: 1, LB: 0.5, UB: 1, Post: 0.5, PostUpper: 1, Status: "witness"}
	}
	for _, tc := range []struct {
		name       string
		rows       []Row
		rowsN, col int
	}{
		{"both", []Row{row(2, 0.3), row(1, 0.1), row(2, 0.1), row(1, 0.3)}, 2, 2},
		{"neither", []Row{row(1, 0.1)}, 1, 1},
	} {
		f, err := Prepare(tc.rows, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.PanelBy != ByC || f.Rows != tc.rowsN || f.Cols != tc.col {
			t.Errorf("%s: by %q %d x %d, want by c %d x %d", tc.name, f.PanelBy, f.Rows, f.Cols, tc.rowsN, tc.col)
		}
		for _, p := range f.Panels {
			// By c: columns by c, rows by k.
			if p.Row != p.K-1 || (p.Col == 0) != (p.C == 0.1) {
				t.Errorf("%s: k=%d c=%v at row %d col %d", tc.name, p.K, p.C, p.Row, p.Col)
			}
		}
	}
}
