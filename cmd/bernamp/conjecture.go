package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/parallel"
)

// conjectureHeader is the CSV header of conjecture, in column order.
var conjectureHeader = []string{"n", "c", "alpha", "eps", "lb", "upper", "gap", "status", "violation", "vp", "vq", "boxes", "seconds"}

// maxSurveyPoints caps --points (the points are drawn up front).
const maxSurveyPoints = 10_000_000

// surveyRow is the certificate at one point of the survey.
type surveyRow struct {
	r        certify.Result
	timedOut bool    // open because the time limit ended the search
	seconds  float64 // time in Certify, measured here: Result.Seconds is not filled in
}

// gap is Upper - LB in nats: at most Tol where proved.
func (s *surveyRow) gap() float64 { return s.r.Upper - s.r.LB }

func (s *surveyRow) csvFields(timing bool) []string {
	r := s.r
	vp, vq, secs := "", "", 0.0
	if r.Violation {
		vp, vq = fmtFloat(r.ViolationP), fmtFloat(r.ViolationQ)
	}
	if timing {
		secs = s.seconds
	}
	return []string{strconv.Itoa(r.N), fmtFloat(r.C), fmtFloat(r.Alpha), fmtFloat(r.Eps),
		fmtFloat(r.LB), fmtFloat(r.Upper), fmtFloat(s.gap()), r.Status.String(), strconv.FormatBool(r.Violation),
		vp, vq, strconv.Itoa(r.Boxes), strconv.FormatFloat(secs, 'f', 4, 64)}
}

// surveyOptions are the flags of conjecture.
type surveyOptions struct {
	box      certify.SurveyBox
	points   int
	seed     uint64
	maxBoxes int
	tol      float64
	timeout  time.Duration
	memFlag  string // --max-memory
	workers  int
	out      string
	noTiming bool
	quiet    bool
}

// runConjecture certifies the conjecture Post = LB (certify.Certify) at
// --points random points of a box and prints how many were proved, left
// open, or found a point where the inequality of the first-order
// multipliers fails.
func runConjecture(ctx context.Context, args []string, stdout, stderr io.Writer, term tty) error {
	o := surveyOptions{box: certify.DefaultSurveyBox}
	fs := flag.NewFlagSet("conjecture", flag.ContinueOnError)
	fs.IntVar(&o.points, "points", 1000, "random points to certify, 1.."+strconv.Itoa(maxSurveyPoints))
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the points: the same seed draws the same points")
	fs.IntVar(&o.maxBoxes, "max-boxes", 20_000, "boxes bounded per point at most, >= 1")
	fs.Float64Var(&o.tol, "tol", certify.DefaultTol, "gap upper - lb in nats that counts as proved, > 0")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "time limit per point, 0 means none")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "points certified in parallel, >= 1")
	fs.StringVar(&o.memFlag, "max-memory", "1GiB", "memory cap by estimate, e.g. 512MiB: --workers x certify.MemoryBytes(--max-boxes) must fit")
	fs.StringVar(&o.out, "out", "", "CSV file of one row per point, flushed row by row (default none)")
	fs.BoolVar(&o.noTiming, "no-timing", false, "write 0 as seconds and leave the times out of the summary")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress line on stderr")
	fs.IntVar(&o.box.NMin, "n-min", o.box.NMin, "smallest n = d k of the box")
	fs.IntVar(&o.box.NMax, "n-max", o.box.NMax, "largest n = d k of the box, <= "+strconv.Itoa(certify.MaxN))
	fs.Float64Var(&o.box.CMin, "c-min", o.box.CMin, "smallest c of the box, > 0")
	fs.Float64Var(&o.box.CMax, "c-max", o.box.CMax, "largest c of the box, < 0.5")
	fs.Float64Var(&o.box.AlphaMin, "alpha-min", o.box.AlphaMin, "smallest alpha of the box, > 1")
	fs.Float64Var(&o.box.AlphaMax, "alpha-max", o.box.AlphaMax, "largest alpha of the box, finite")
	fs.Float64Var(&o.box.EpsMin, "eps-min", o.box.EpsMin, "smallest eps of the box, > 0")
	fs.Float64Var(&o.box.EpsMax, "eps-max", o.box.EpsMax, "largest eps of the box, finite")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	switch {
	case o.points < 1 || o.points > maxSurveyPoints:
		return usagef("--points: points is %d, must be in 1..%d", o.points, maxSurveyPoints)
	case o.maxBoxes < 1:
		return usagef("--max-boxes: max-boxes is %d, must be >= 1", o.maxBoxes)
	case !(o.tol > 0) || math.IsInf(o.tol, 1):
		return usagef("--tol: tol is %v, must be > 0 and finite", o.tol)
	case o.timeout < 0:
		return usagef("--timeout: timeout is %v, must be >= 0", o.timeout)
	case o.workers < 1:
		return usagef("--workers: workers is %d, must be >= 1", o.workers)
	}
	maxMem, err := parseBytes(o.memFlag)
	if err != nil {
		return usagef("--max-memory: %v", err)
	}
	// Each point in flight may hold --max-boxes boxes: fewer workers run
	// when they do not all fit (the rows do not depend on --workers), and
	// the run is refused when one point alone does not.
	perPoint := float64(certify.MemoryBytes(o.maxBoxes))
	if perPoint > float64(maxMem) {
		return usagef("--max-boxes: %d boxes need about %.3g bytes a point (certify.MemoryBytes), more than --max-memory %s", o.maxBoxes, perPoint, o.memFlag)
	}
	o.workers = max(1, min(o.workers, int(float64(maxMem)/perPoint)))
	pts, err := certify.SurveyPoints(o.box, o.points, o.seed)
	if err != nil {
		// certify's message starts with the quantity: "c range [...]".
		msg := strings.TrimPrefix(err.Error(), certify.ErrInput.Error()+": ")
		name, _, _ := strings.Cut(msg, " ")
		return usagef("--%s-min, --%s-max: %s", name, name, msg)
	}
	return o.survey(ctx, pts, stdout, stderr, term.stderr && !o.quiet)
}

// survey certifies pts on the worker pool, writes the rows in point order
// to --out and prints the summary of the rows finished, also when ctx is
// cancelled (then it returns an error saying so).
func (o *surveyOptions) survey(ctx context.Context, pts []certify.SurveyPoint, stdout, stderr io.Writer, showProgress bool) error {
	var (
		file *os.File
		cw   *csv.Writer
	)
	if o.out != "" {
		var err error
		if file, err = os.Create(o.out); err != nil {
			return err
		}
		defer file.Close()
		cw = csv.NewWriter(file)
		cw.Write(conjectureHeader)
		if cw.Flush(); cw.Error() != nil {
			return cw.Error()
		}
	}
	var prog *progress
	if showProgress {
		stderr = &lockedWriter{w: stderr}
		prog = startProgress(stderr, len(pts), progressEvery)
	}
	settings := &certify.Settings{Tol: o.tol, MaxBoxes: o.maxBoxes}
	start := time.Now()
	do := func(ctx context.Context, i int) (*surveyRow, error) {
		p := pts[i]
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if o.timeout > 0 {
			pctx, cancel = context.WithTimeout(ctx, o.timeout)
		}
		t0 := time.Now()
		res, err := certify.Certify(pctx, p.N, p.C, p.Alpha, p.Eps, settings)
		secs := time.Since(t0).Seconds()
		expired := pctx.Err() != nil
		cancel()
		if err != nil {
			return nil, fmt.Errorf("point %d (%s): %w", i+1, surveyPointString(p), err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err // interrupted: the point is not finished
		}
		prog.add()
		return &surveyRow{r: res, timedOut: expired && res.Status == certify.Open && !res.Violation, seconds: secs}, nil
	}
	sum := surveySummary{timing: !o.noTiming}
	emit := func(i int, row *surveyRow) error {
		if msg := row.check(); msg != "" {
			sum.failed++
			fmt.Fprintf(stderr, "bernamp: cross-check failed at point %d (%s): %s\n", i+1, surveyPointString(pts[i]), msg)
		}
		sum.add(i, row)
		if cw == nil {
			return nil
		}
		cw.Write(row.csvFields(!o.noTiming))
		cw.Flush() // each row is visible as soon as it is known
		return cw.Error()
	}
	err := parallel.Map(ctx, len(pts), o.workers, do, emit)
	prog.finish()
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	sum.wall = time.Since(start)
	sum.print(stdout, o, len(pts))
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("interrupted: %d of %d points done", sum.points, len(pts))
	case err != nil:
		return err
	case sum.failed > 0:
		return fmt.Errorf("%d of %d points failed the cross-check lb <= upper, both finite", sum.failed, len(pts))
	}
	return nil
}

// check returns what is wrong with the row, or "": LB and Upper are finite
// and LB <= Upper (within the slack of leq), Proved means gap <= Tol.
func (s *surveyRow) check() string {
	r := s.r
	switch {
	case math.IsNaN(r.LB) || math.IsInf(r.LB, 0) || math.IsNaN(r.Upper) || math.IsInf(r.Upper, 0):
		return fmt.Sprintf("lb=%v upper=%v not finite", r.LB, r.Upper)
	case !leq(r.LB, r.Upper):
		return fmt.Sprintf("upper %s below lb %s", fmtFloat(r.Upper), fmtFloat(r.LB))
	}
	return ""
}

func surveyPointString(p certify.SurveyPoint) string {
	return fmt.Sprintf("n=%d c=%s alpha=%s eps=%s", p.N, fmtFloat(p.C), fmtFloat(p.Alpha), fmtFloat(p.Eps))
}

// surveySummary counts the rows of a survey. proved, open and violation
// are disjoint: a point with a violation is open and counted only there.
type surveySummary struct {
	timing                         bool
	points, proved, open, violated int
	closed                         int // proved by the closed form alone (no box bounded)
	timedOut, boxLimit             int // open points ended by the time limit, by the box limit
	failed                         int // rows that failed the cross-check
	openGaps, seconds              []float64
	violations                     []string // "point i: ..." lines
	wall                           time.Duration
}

func (s *surveySummary) add(i int, row *surveyRow) {
	r := row.r
	s.points++
	s.seconds = append(s.seconds, row.seconds)
	switch {
	case r.Violation:
		s.violated++
		s.violations = append(s.violations, fmt.Sprintf("point %d: n=%d c=%s alpha=%s eps=%s: fails at p=%s q=%s; upper-lb %.3g nats",
			i+1, r.N, fmtFloat(r.C), fmtFloat(r.Alpha), fmtFloat(r.Eps), fmtFloat(r.ViolationP), fmtFloat(r.ViolationQ), row.gap()))
	case r.Status == certify.Proved:
		s.proved++
		if r.Method == certify.MethodClosed {
			s.closed++
		}
	default:
		s.open++
		s.openGaps = append(s.openGaps, row.gap())
		if row.timedOut {
			s.timedOut++
		} else {
			s.boxLimit++
		}
	}
}

// print writes the summary of the rows added: the counts, the gaps of the
// open points (largest, median, by decade), the times and the violations.
func (s *surveySummary) print(w io.Writer, o *surveyOptions, total int) {
	b := o.box
	fmt.Fprintf(w, "conjecture survey: %d of %d points, seed %d, n %d..%d, c %s..%s, alpha %s..%s, eps %s..%s\n",
		s.points, total, o.seed, b.NMin, b.NMax, fmtFloat(b.CMin), fmtFloat(b.CMax),
		fmtFloat(b.AlphaMin), fmtFloat(b.AlphaMax), fmtFloat(b.EpsMin), fmtFloat(b.EpsMax))
	timeout := "none"
	if o.timeout > 0 {
		timeout = o.timeout.String()
	}
	fmt.Fprintf(w, "certificate: tol %s nats, at most %d boxes, time limit %s per point\n", fmtFloat(o.tol), o.maxBoxes, timeout)
	fmt.Fprintf(w, "proved     %d (%d by the closed form, %d by the pieces inequality)\n", s.proved, s.closed, s.proved-s.closed)
	fmt.Fprintf(w, "open       %d (%d at the box limit, %d at the time limit)\n", s.open, s.boxLimit, s.timedOut)
	fmt.Fprintf(w, "violation  %d\n", s.violated)
	if len(s.openGaps) > 0 {
		fmt.Fprintf(w, "open gap   largest %.3g, median %.3g nats; by decade:%s\n", slices.Max(s.openGaps), median(s.openGaps), decades(s.openGaps))
	}
	if s.timing && s.points > 0 {
		fmt.Fprintf(w, "seconds    per point median %.3g, largest %.3g; wall %s\n", median(s.seconds), slices.Max(s.seconds), s.wall.Round(time.Millisecond))
	}
	if len(s.violations) > 0 {
		fmt.Fprintln(w, "violations (the inequality with the first-order multipliers fails at (p, q)):")
		for _, v := range s.violations {
			fmt.Fprintln(w, "  "+v)
		}
	}
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// decades returns " [1e-9,1e-8) 3, [1e-5,1e-4) 1" for the gaps: how many
// fall in each decade, in increasing order; gaps <= 0 count as "<= 0".
func decades(gaps []float64) string {
	counts := map[int]int{}
	nonPos := 0
	for _, g := range gaps {
		if !(g > 0) {
			nonPos++
			continue
		}
		counts[int(math.Floor(math.Log10(g)))]++
	}
	var b strings.Builder
	if nonPos > 0 {
		fmt.Fprintf(&b, " <=0 %d", nonPos)
	}
	for _, e := range slices.Sorted(maps.Keys(counts)) {
		if b.Len() > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " [1e%d,1e%d) %d", e, e+1, counts[e])
	}
	return b.String()
}
