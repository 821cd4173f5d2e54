// Package figure draws amplification curves from the CSV rows of bernamp
// post and bernamp bounds: one panel per (d, k, c, alpha), with eps on the
// x axis, in a grid of panels in one image (PNG, SVG or PDF).
//
// The curves view shows, against eps in nats,
//
//	LB           the lower bound of Theorem 4 (a lower bound on Post),
//	post         the verified witness value (a lower bound on Post; Post
//	             itself within tol where the row is certified),
//	post_upper   the proved upper bound, where the row is not certified,
//	eps          the post-processing upper bound Post <= eps,
//	d k r_α(c)   the asymptote upper bound Post <= d k r_alpha(c),
//
// so the three regimes of the paper can be read off: where the curve leaves
// y = eps (Regime I), how long it bends (Regime II) and where it meets the
// asymptote (Regime III). Certified points are filled markers; uncertified
// ones (status witness) are hollow, with the proved interval [post,
// post_upper] drawn as a red bar up to a cap at post_upper, so a witness is
// never mistaken for a proof. Rows of status bounds (no solver run: post =
// LB and post_upper = UB by definition) add no post points. Each panel
// title gives its parameters and the value of d k r_alpha(c), also when it
// lies above the plotted range [0, largest eps].
//
// The gap view shows post_upper - post (what the solver leaves open) and
// ub - lb (what the closed-form bounds leave open) on a log scale; gaps
// below GapFloor, zero included, are drawn at GapFloor.
//
// Prepare does the data preparation (panels, series, x and y values) and
// Write and WriteFile render it.
package figure

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
)

// Row is one row of the CSV written by bernamp post or bernamp bounds. All
// values are in nats, and LB <= Post <= PostUpper <= UB is a proved
// interval for the amplified level Post_{alpha,k}(eps).
type Row struct {
	D     int     // dimension of theta, >= 1
	K     int     // Bernoulli samples released, >= 1
	C     float64 // range constant: theta in [C, 1-C]^D, 0 < C < 1/2
	Alpha float64 // Rényi order, > 1 and finite
	Eps   float64 // RDP level of the mechanism, >= 0 and finite

	LB        float64 // lower bound of Theorem 4
	UB        float64 // upper bound min(eps, d k r_alpha(c))
	Post      float64 // value of a verified witness: a lower bound on Post
	PostUpper float64 // proved upper bound on Post
	Status    string  // bernamp.StatusCertified, StatusWitness or StatusBounds
}

// columns are the CSV columns that ReadCSV needs, a subset of the header
// of bernamp post; the seconds column and any others are ignored.
var columns = []string{"d", "k", "c", "alpha", "eps", "lb", "ub", "post", "post_upper", "status"}

// ReadCSV reads rows in the CSV format of bernamp post and bernamp bounds:
// a header naming at least the columns d, k, c, alpha, eps, lb, ub, post,
// post_upper and status, in any order, then one record per row. It returns
// an error naming the line and column for a missing column, an empty input,
// a header without rows, a value that does not parse, NaN or ±Inf, a point
// outside the domain of bernamp.Params and an unknown status.
func ReadCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("figure: empty input: no CSV header")
	}
	if err != nil {
		return nil, fmt.Errorf("figure: %w", err)
	}
	at := make(map[string]int, len(head))
	for i, name := range head {
		if _, dup := at[name]; dup {
			return nil, fmt.Errorf("figure: line 1: column %q appears twice", name)
		}
		at[name] = i
	}
	for _, name := range columns {
		if _, ok := at[name]; !ok {
			return nil, fmt.Errorf("figure: line 1: missing column %q (want %s)", name, strings.Join(columns, ","))
		}
	}
	var rows []Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("figure: %w", err)
		}
		line, _ := cr.FieldPos(0)
		row, err := parseRow(rec, at)
		if err != nil {
			return nil, fmt.Errorf("figure: line %d: %w", line, err)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, errors.New("figure: no rows after the CSV header")
	}
	return rows, nil
}

// parseRow converts one CSV record; at maps column names to indices.
func parseRow(rec []string, at map[string]int) (Row, error) {
	var (
		r   Row
		err error
	)
	integer := func(name string, dst *int) {
		if err != nil {
			return
		}
		s := rec[at[name]]
		if *dst, err = strconv.Atoi(s); err != nil {
			err = fmt.Errorf("column %s: %q is not an integer", name, s)
		}
	}
	float := func(name string, dst *float64) {
		if err != nil {
			return
		}
		s := rec[at[name]]
		*dst, err = strconv.ParseFloat(s, 64)
		switch {
		case err != nil:
			err = fmt.Errorf("column %s: %q is not a number", name, s)
		case math.IsNaN(*dst) || math.IsInf(*dst, 0):
			err = fmt.Errorf("column %s: %v, must be finite", name, *dst)
		}
	}
	integer("d", &r.D)
	integer("k", &r.K)
	float("c", &r.C)
	float("alpha", &r.Alpha)
	float("eps", &r.Eps)
	float("lb", &r.LB)
	float("ub", &r.UB)
	float("post", &r.Post)
	float("post_upper", &r.PostUpper)
	if err != nil {
		return Row{}, err
	}
	r.Status = rec[at["status"]]
	if _, err := r.validate(); err != nil {
		return Row{}, err
	}
	return r, nil
}

// validate returns the row's point, or an error unless the point is in the
// domain of bernamp.Params, the values are finite and the status is known.
func (r Row) validate() (check.ValidPoint, error) {
	pt, err := check.NewValidPoint(r.D, r.K, r.C, r.Alpha, r.Eps)
	if err != nil {
		return check.ValidPoint{}, err
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"lb", r.LB}, {"ub", r.UB}, {"post", r.Post}, {"post_upper", r.PostUpper}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return check.ValidPoint{}, fmt.Errorf("%s is %v, must be finite", v.name, v.x)
		}
	}
	switch r.Status {
	case bernamp.StatusCertified, bernamp.StatusWitness, bernamp.StatusBounds:
		return pt, nil
	}
	return check.ValidPoint{}, fmt.Errorf("status is %q, must be %s, %s or %s", r.Status,
		bernamp.StatusCertified, bernamp.StatusWitness, bernamp.StatusBounds)
}

// solved reports whether the row comes from the solver: its post and
// post_upper carry information beyond LB and UB. For status bounds they are
// LB and UB by definition and are not drawn again.
func (r Row) solved() bool { return r.Status != bernamp.StatusBounds }

// ReadFile reads rows with ReadCSV from the file at path.
func ReadFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// View selects what the panels show.
type View string

const (
	Curves View = "curves" // values against eps: LB, post, post_upper and the two upper bounds
	Gap    View = "gap"    // gaps post_upper - post and ub - lb against eps, log scale
)

// PanelBy selects the parameter that varies across the columns of the panel
// grid; each row of the grid holds one value of d and of the remaining
// parameters.
type PanelBy string

const (
	ByC PanelBy = "c" // (d, c) panels: a column per c, a row per (d, k, alpha)
	ByK PanelBy = "k" // (d, k) panels: a column per k, a row per (d, c, alpha)
)

// Default panel size when Options.Width or Height is 0.
const (
	PanelWidth  = 4 * vg.Inch
	PanelHeight = 3 * vg.Inch
)

// MaxPanels is the largest number of cells, Rows x Cols, of a figure.
const MaxPanels = 100

// GapFloor is the smallest gap the gap view draws, in nats: gaps below it,
// zero and the tiny negative values of rounding included, are drawn at
// GapFloor, and the legend says so. Values near 1 carry an absolute
// rounding error of about 1e-16, so smaller gaps are not resolved anyway.
const GapFloor = 1e-15

// Options are the settings of Prepare, Write and WriteFile; nil means the
// zero Options.
type Options struct {
	View    View    // Curves or Gap; "" means Curves
	PanelBy PanelBy // ByC or ByK; "" picks whichever of c and k takes more than one value, ByC when both or neither do

	// Width and Height are the size of the whole image; 0 means PanelWidth
	// per column and PanelHeight per row plus the legend. PNG is drawn at
	// 96 dots per inch.
	Width, Height vg.Length
}

// Kind identifies a series.
type Kind int

const (
	// Curves view.
	PostProcessing Kind = iota // y = eps: upper bound on Post
	Asymptote                  // y = d k r_alpha(c), rounded up: upper bound on Post
	LowerBound                 // LB of Theorem 4: lower bound on Post
	Post                       // post at rows of status certified or witness: a line through both
	PostCertified              // post at certified rows: Post within tol
	PostWitness                // post at witness rows: a lower bound on Post only
	PostUpper                  // post_upper at witness rows: proved upper bound on Post

	// Gap view; gaps below GapFloor are drawn at GapFloor.
	GapBounds    // ub - lb at every row
	GapPost      // post_upper - post at rows of status certified or witness: a line through both
	GapCertified // post_upper - post at certified rows
	GapWitness   // post_upper - post at witness rows
	Floor        // y = GapFloor
)

var kindNames = [...]string{
	PostProcessing: "eps", Asymptote: "asymptote", LowerBound: "lb",
	Post: "post", PostCertified: "post_certified", PostWitness: "post_witness", PostUpper: "post_upper",
	GapBounds: "gap_bounds", GapPost: "gap_post", GapCertified: "gap_certified", GapWitness: "gap_witness", Floor: "floor",
}

// String returns a short name of k, such as "post_certified".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Series is one drawn series of a panel.
type Series struct {
	Kind Kind
	X, Y []float64 // eps and the value, in nats, in increasing eps
}

// Panel is one plot of the grid: the rows of one (d, k, c, alpha).
type Panel struct {
	D, K     int
	C, Alpha float64
	Row, Col int     // position in the grid, from the top left
	Title    string  // the parameters and the asymptote
	Asym     float64 // d k r_alpha(c), rounded up, in nats
	XMin     float64 // x range drawn: [0, largest eps] for Curves and
	XMax     float64 // [smallest eps, largest eps] for Gap
	YMin     float64 // y range drawn: [0, largest eps or 1 if that is 0] for Curves and
	YMax     float64 // [GapFloor/2, max(2 * largest gap, 10 GapFloor)] for Gap
	Series   []Series
}

// Figure is the prepared data of an image: panels in a grid.
type Figure struct {
	View          View
	PanelBy       PanelBy   // resolved: never ""
	Rows, Cols    int       // grid size; cells without rows are empty
	Panels        []Panel   // sorted by Row, then Col
	Legend        []Kind    // kinds drawn in some panel, in Kind order
	Width, Height vg.Length // size of the image
}

// key identifies a panel.
type key struct {
	d, k     int
	c, alpha float64
}

// Prepare groups rows into panels, builds their series and lays the panels
// out in a grid. It returns an error for no rows, a row that fails the
// checks of ReadCSV, two rows at the same point, more than MaxPanels cells,
// an unknown View or PanelBy, or a negative or infinite size in opts.
func Prepare(rows []Row, opts *Options) (*Figure, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch o.View {
	case "":
		o.View = Curves
	case Curves, Gap:
	default:
		return nil, fmt.Errorf("figure: view is %q, must be %s or %s", o.View, Curves, Gap)
	}
	switch o.PanelBy {
	case "", ByC, ByK:
	default:
		return nil, fmt.Errorf("figure: panels by %q, must be %s or %s", o.PanelBy, ByC, ByK)
	}
	if !(o.Width >= 0 && o.Height >= 0) || math.IsInf(float64(o.Width), 0) || math.IsInf(float64(o.Height), 0) {
		return nil, fmt.Errorf("figure: size %v x %v, must be >= 0 and finite", o.Width, o.Height)
	}
	if len(rows) == 0 {
		return nil, errors.New("figure: no rows")
	}

	groups := make(map[key][]Row)
	points := make(map[key]check.ValidPoint) // a row's point per panel (the asymptote does not depend on eps)
	var keys []key
	for i, r := range rows {
		pt, err := r.validate()
		if err != nil {
			return nil, fmt.Errorf("figure: row %d: %w", i+1, err)
		}
		kk := key{r.D, r.K, r.C, r.Alpha}
		if _, ok := groups[kk]; !ok {
			keys = append(keys, kk)
			points[kk] = pt
		}
		groups[kk] = append(groups[kk], r)
	}
	cs, ks := distinct(keys, func(kk key) float64 { return kk.c }), distinct(keys, func(kk key) float64 { return float64(kk.k) })
	if o.PanelBy == "" {
		o.PanelBy = ByC
		if len(cs) == 1 && len(ks) > 1 {
			o.PanelBy = ByK
		}
	}
	// col is the parameter across columns, other the one of c and k that
	// joins d and alpha in the row key.
	col, other := func(kk key) float64 { return kk.c }, func(kk key) float64 { return float64(kk.k) }
	if o.PanelBy == ByK {
		col, other = other, col
	}
	cols := distinct(keys, col)
	type rowKey struct{ d, other, alpha float64 }
	rk := func(kk key) rowKey { return rowKey{float64(kk.d), other(kk), kk.alpha} }
	var rowKeys []rowKey
	for _, kk := range keys {
		if !slices.Contains(rowKeys, rk(kk)) {
			rowKeys = append(rowKeys, rk(kk))
		}
	}
	slices.SortFunc(rowKeys, func(a, b rowKey) int {
		return cmpFloats([]float64{a.d, a.other, a.alpha}, []float64{b.d, b.other, b.alpha})
	})

	f := &Figure{View: o.View, PanelBy: o.PanelBy, Rows: len(rowKeys), Cols: len(cols)}
	if f.Rows*f.Cols > MaxPanels {
		return nil, fmt.Errorf("figure: %d x %d panels, at most %d: select fewer rows", f.Rows, f.Cols, MaxPanels)
	}
	used := make(map[Kind]bool)
	for _, kk := range keys {
		rs := groups[kk]
		slices.SortStableFunc(rs, func(a, b Row) int { return cmpFloats([]float64{a.Eps}, []float64{b.Eps}) })
		for i := 1; i < len(rs); i++ {
			if rs[i].Eps == rs[i-1].Eps {
				return nil, fmt.Errorf("figure: two rows at d=%d k=%d c=%v alpha=%v eps=%v", kk.d, kk.k, kk.c, kk.alpha, rs[i].Eps)
			}
		}
		p := Panel{
			D: kk.d, K: kk.k, C: kk.c, Alpha: kk.alpha,
			Row:  slices.Index(rowKeys, rk(kk)),
			Col:  slices.Index(cols, col(kk)),
			Asym: bounds.UpperAt(points[kk]).Asymptote,
			XMin: rs[0].Eps,
			XMax: rs[len(rs)-1].Eps,
		}
		if o.View == Curves {
			p.curves(rs)
		} else {
			p.gaps(rs)
		}
		for _, s := range p.Series {
			used[s.Kind] = true
		}
		f.Panels = append(f.Panels, p)
	}
	slices.SortFunc(f.Panels, func(a, b Panel) int {
		return cmpFloats([]float64{float64(a.Row), float64(a.Col)}, []float64{float64(b.Row), float64(b.Col)})
	})
	for k := range Floor + 1 {
		if used[k] {
			f.Legend = append(f.Legend, k)
		}
	}
	f.Width, f.Height = o.Width, o.Height
	if f.Width == 0 {
		f.Width = vg.Length(f.Cols) * PanelWidth
	}
	if f.Height == 0 {
		f.Height = vg.Length(f.Rows)*PanelHeight + f.legendHeight()
	}
	return f, nil
}

// distinct returns the sorted distinct values of v over keys.
func distinct(keys []key, v func(key) float64) []float64 {
	var vs []float64
	for _, kk := range keys {
		vs = append(vs, v(kk))
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

// cmpFloats compares a and b lexicographically; neither holds NaN.
func cmpFloats(a, b []float64) int {
	for i := range a {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}

// curves sets the title, ranges and series of the curves view from rs,
// sorted by eps.
func (p *Panel) curves(rs []Row) {
	p.XMin = 0
	p.YMin, p.YMax = 0, p.XMax
	if p.YMax == 0 {
		p.YMax = 1 // eps = 0 only: every value is 0
	}
	asym := fmt.Sprintf("d k r_α(c) = %.4g nats", p.Asym)
	if p.Asym > p.YMax {
		asym += " (above the plotted range)"
	}
	p.Title = fmt.Sprintf("d = %d, k = %d, c = %s, α = %s\n%s", p.D, p.K, fmtFloat(p.C), fmtFloat(p.Alpha), asym)
	s := make(map[Kind]*Series)
	add := func(k Kind, x, y float64) {
		if s[k] == nil {
			s[k] = &Series{Kind: k}
		}
		s[k].X = append(s[k].X, x)
		s[k].Y = append(s[k].Y, y)
	}
	add(Asymptote, p.XMin, p.Asym)
	add(Asymptote, p.XMax, p.Asym)
	for _, r := range rs {
		add(PostProcessing, r.Eps, r.Eps)
		add(LowerBound, r.Eps, r.LB)
		if !r.solved() {
			continue
		}
		add(Post, r.Eps, r.Post)
		if r.Status == bernamp.StatusCertified {
			add(PostCertified, r.Eps, r.Post)
		} else {
			add(PostWitness, r.Eps, r.Post)
			add(PostUpper, r.Eps, r.PostUpper)
		}
	}
	p.setSeries(s)
}

// gaps sets the title, ranges and series of the gap view from rs, sorted
// by eps.
func (p *Panel) gaps(rs []Row) {
	p.Title = fmt.Sprintf("d = %d, k = %d, c = %s, α = %s\nd k r_α(c) = %.4g nats", p.D, p.K, fmtFloat(p.C), fmtFloat(p.Alpha), p.Asym)
	s := make(map[Kind]*Series)
	top := 0.0
	add := func(k Kind, x, y float64) {
		if s[k] == nil {
			s[k] = &Series{Kind: k}
		}
		y = math.Max(y, GapFloor)
		top = math.Max(top, y)
		s[k].X = append(s[k].X, x)
		s[k].Y = append(s[k].Y, y)
	}
	add(Floor, p.XMin, GapFloor)
	add(Floor, p.XMax, GapFloor)
	for _, r := range rs {
		add(GapBounds, r.Eps, r.UB-r.LB)
		if !r.solved() {
			continue
		}
		g := r.PostUpper - r.Post
		add(GapPost, r.Eps, g)
		if r.Status == bernamp.StatusCertified {
			add(GapCertified, r.Eps, g)
		} else {
			add(GapWitness, r.Eps, g)
		}
	}
	p.YMin, p.YMax = GapFloor/2, math.Max(2*top, 10*GapFloor)
	p.setSeries(s)
}

// setSeries stores the series of s in Kind order.
func (p *Panel) setSeries(s map[Kind]*Series) {
	for k := range Floor + 1 {
		if s[k] != nil {
			p.Series = append(p.Series, *s[k])
		}
	}
}

// fmtFloat is the shortest decimal that parses back to v.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// style is how a Kind is drawn.
type style struct {
	label string
	line  *draw.LineStyle  // nil: no line
	glyph *draw.GlyphStyle // nil: no markers
	bar   bool             // PostUpper: a bar down to post
}

var (
	black     = color.RGBA{A: 255}
	gray      = color.RGBA{R: 120, G: 120, B: 120, A: 255}
	blue      = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	lightBlue = color.RGBA{R: 158, G: 202, B: 225, A: 255}
	green     = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	red       = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	orange    = color.RGBA{R: 255, G: 127, B: 14, A: 255}
)

func lineStyle(c color.Color, width vg.Length, dashes ...vg.Length) *draw.LineStyle {
	return &draw.LineStyle{Color: c, Width: width, Dashes: dashes}
}

func glyphStyle(c color.Color, shape draw.GlyphDrawer) *draw.GlyphStyle {
	return &draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: shape}
}

// styles gives the legend text and look of each Kind.
var styles = map[Kind]style{
	PostProcessing: {label: "ε: post-processing upper bound", line: lineStyle(gray, vg.Points(1), vg.Points(4), vg.Points(3))},
	Asymptote:      {label: "d k r_α(c): asymptote upper bound", line: lineStyle(green, vg.Points(1), vg.Points(6), vg.Points(2))},
	LowerBound:     {label: "LB: lower bound of Theorem 4", line: lineStyle(lightBlue, vg.Points(4))},
	Post:           {label: "post: witness value, a lower bound", line: lineStyle(black, vg.Points(0.75))},
	PostCertified:  {label: "post, certified: exact within tol", glyph: glyphStyle(black, draw.CircleGlyph{})},
	PostWitness:    {label: "post, not certified: lower bound only", glyph: glyphStyle(black, draw.RingGlyph{})},
	PostUpper:      {label: "post_upper: proved upper bound (not certified)", glyph: glyphStyle(red, capGlyph{}), bar: true},
	GapBounds:      {label: "ub − lb: gap of the closed-form bounds", line: lineStyle(blue, vg.Points(1)), glyph: glyphStyle(blue, draw.SquareGlyph{})},
	GapPost:        {label: "post_upper − post: gap left by the solver", line: lineStyle(black, vg.Points(0.75))},
	GapCertified:   {label: "post_upper − post, certified", glyph: glyphStyle(black, draw.CircleGlyph{})},
	GapWitness:     {label: "post_upper − post, not certified", glyph: glyphStyle(black, draw.RingGlyph{})},
	Floor:          {label: fmt.Sprintf("floor: gaps < %.0e nats (0 too) drawn at %.0e", GapFloor, GapFloor), line: lineStyle(orange, vg.Points(1), vg.Points(2), vg.Points(2))},
}

// Label returns the legend text of k.
func (k Kind) Label() string { return styles[k].label }

// Layout constants of the shared legend above the panels.
const (
	legendFont    = 8 // points
	legendColumns = 2
	legendPad     = 6 // points, around the legend strip
)

// legendHeight returns the height of the legend strip above the panels.
func (f *Figure) legendHeight() vg.Length {
	rows := (len(f.Legend) + legendColumns - 1) / legendColumns
	return vg.Length(rows)*vg.Points(legendFont*1.25) + 2*vg.Points(legendPad)
}

// plot returns the gonum plot of p.
func (f *Figure) plot(p *Panel) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Title.TextStyle.Font.Size = vg.Points(10)
	pl.X.Label.Text = "ε: RDP level of the mechanism (nats)"
	pl.X.Label.TextStyle.Font.Size = vg.Points(9)
	pl.Y.Label.TextStyle.Font.Size = vg.Points(9)
	if f.View == Curves {
		pl.Y.Label.Text = "amplified RDP level (nats)"
	} else {
		// The y axis holds log10 of the values, with ticks at the powers
		// of ten: gonum's LogScale pads the plot for the axis label as if
		// the scale were linear.
		pl.Y.Label.Text = "gap (nats, log scale)"
		pl.Y.Tick.Marker = decades{}
	}
	pl.Add(plotter.NewGrid())
	for _, s := range p.Series {
		xys := make(plotter.XYs, len(s.X))
		for i := range s.X {
			xys[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
			if f.View == Gap {
				xys[i].Y = math.Log10(s.Y[i])
			}
		}
		st := styles[s.Kind]
		if st.bar {
			bars, err := plotter.NewYErrorBars(intervals(p, xys))
			if err != nil {
				return nil, err
			}
			bars.LineStyle = draw.LineStyle{Color: red, Width: vg.Points(0.75)}
			bars.CapWidth = 0
			pl.Add(bars)
		}
		if st.line != nil {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.LineStyle = *st.line
			pl.Add(l)
		}
		if st.glyph != nil {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = *st.glyph
			pl.Add(sc)
		}
	}
	pl.X.Min, pl.X.Max = p.XMin, p.XMax
	pl.Y.Min, pl.Y.Max = p.YMin, p.YMax
	if f.View == Gap {
		pl.Y.Min, pl.Y.Max = math.Log10(p.YMin), math.Log10(p.YMax)
	}
	return pl, nil
}

// intervalBars are error bars from post_upper down to post.
type intervalBars struct {
	plotter.XYs
	low []float64
}

func (b intervalBars) YError(i int) (float64, float64) { return b.low[i], 0 }

// intervals returns the proved intervals [post, post_upper] at the points
// upper of the PostUpper series of p.
func intervals(p *Panel, upper plotter.XYs) intervalBars {
	var post *Series
	for i := range p.Series {
		if p.Series[i].Kind == PostWitness {
			post = &p.Series[i]
		}
	}
	b := intervalBars{XYs: upper, low: make([]float64, len(upper))}
	for i := range upper {
		// PostWitness and PostUpper come from the same rows, in order.
		b.low[i] = math.Max(0, upper[i].Y-post.Y[i])
	}
	return b
}

// capGlyph is a horizontal bar, the mark of an upper bound.
type capGlyph struct{}

func (capGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X - 1.5*sty.Radius, Y: pt.Y})
	p.Line(vg.Point{X: pt.X + 1.5*sty.Radius, Y: pt.Y})
	c.Stroke(p)
}

// decades marks the integers of an axis of log10 values as powers of ten,
// labelling at most maxDecadeLabels of them.
type decades struct{}

const maxDecadeLabels = 6

func (decades) Ticks(lo, hi float64) []plot.Tick {
	// Only ticks in [lo, hi]: the axis would pad for labels outside.
	elo, ehi := int(math.Ceil(lo)), int(math.Floor(hi))
	step := max(1, (ehi-elo+maxDecadeLabels-1)/maxDecadeLabels)
	var ticks []plot.Tick
	for e := elo; e <= ehi; e++ {
		t := plot.Tick{Value: float64(e)}
		if e%step == 0 {
			switch e {
			case 0:
				t.Label = "1"
			case 1:
				t.Label = "10"
			default:
				t.Label = fmt.Sprintf("1e%d", e)
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// thumbnails returns the legend thumbnails of k.
func thumbnails(k Kind) []plot.Thumbnailer {
	st := styles[k]
	var th []plot.Thumbnailer
	if st.line != nil {
		th = append(th, &plotter.Line{LineStyle: *st.line})
	}
	if st.glyph != nil {
		th = append(th, &plotter.Scatter{GlyphStyle: *st.glyph})
	}
	return th
}

// draw draws the legend strip and the panel grid on c.
func (f *Figure) draw(c draw.Canvas) error {
	lh := f.legendHeight()
	pad := vg.Points(legendPad)
	strip := draw.Crop(c, pad, -pad, c.Size().Y-lh+pad, -pad)
	perCol := (len(f.Legend) + legendColumns - 1) / legendColumns
	for j := range legendColumns {
		l := plot.NewLegend()
		l.TextStyle.Font.Size = vg.Points(legendFont)
		l.Top, l.Left = true, true
		l.ThumbnailWidth = vg.Points(24)
		for _, k := range f.Legend[min(j*perCol, len(f.Legend)):min((j+1)*perCol, len(f.Legend))] {
			l.Add(k.Label(), thumbnails(k)...)
		}
		w := strip.Size().X / legendColumns
		l.Draw(draw.Crop(strip, vg.Length(j)*w, -(strip.Size().X - vg.Length(j+1)*w), 0, 0))
	}

	plots := make([][]*plot.Plot, f.Rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, f.Cols)
	}
	for i := range f.Panels {
		p := &f.Panels[i]
		pl, err := f.plot(p)
		if err != nil {
			return err
		}
		plots[p.Row][p.Col] = pl
	}
	grid := draw.Crop(c, 0, 0, 0, -lh)
	tiles := draw.Tiles{
		Rows: f.Rows, Cols: f.Cols,
		PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(4), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12),
	}
	canvases := plot.Align(plots, tiles, grid)
	for i := range plots {
		for j, pl := range plots[i] {
			if pl != nil {
				pl.Draw(canvases[i][j])
			}
		}
	}
	return nil
}

// Formats are the image formats of Write, named as file extensions.
var Formats = []string{"png", "svg", "pdf"}

// FormatOf returns the format of path from its extension (case ignored),
// or an error when the extension is not one of Formats.
func FormatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if !slices.Contains(Formats, ext) {
		return "", fmt.Errorf("figure: %q: extension must be .png, .svg or .pdf", path)
	}
	return ext, nil
}

// Write prepares rows with Prepare and writes the image in format (one of
// Formats) to w. Nothing is written when preparing or drawing fails.
func Write(w io.Writer, format string, rows []Row, opts *Options) error {
	f, err := Prepare(rows, opts)
	if err != nil {
		return err
	}
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(f.Width, f.Height)}
	case "svg":
		c = vgsvg.New(f.Width, f.Height)
	case "pdf":
		c = vgpdf.New(f.Width, f.Height)
	default:
		return fmt.Errorf("figure: format is %q, must be png, svg or pdf", format)
	}
	if err := f.draw(draw.New(c)); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// WriteFile writes the image of rows to path, in the format of its
// extension (see FormatOf). The file is created only when the image was
// drawn.
func WriteFile(path string, rows []Row, opts *Options) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Write(&buf, format, rows, opts); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o666)
}
