package main

import (
	"context"
	"flag"
	"io"
	"os"

	"gonum.org/v1/plot/vg"

	"github.com/bernamp/bernamp/figure"
)

// maxPlotInches bounds --width and --height: 200 inches is 19200 pixels at
// 96 dpi, already a 1.5 GB image when both are at the limit.
const maxPlotInches = 200

// plotOptions are the flags of plot.
type plotOptions struct {
	in, out       string
	view, panels  string
	width, height float64 // inches
	memFlag       string  // --max-memory
}

// runPlot draws the figure of a CSV written by post or bounds (see
// package figure) into the image file --out.
func runPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runPlotIn(ctx, args, os.Stdin, stdout, stderr)
}

// runPlotIn is runPlot reading --in - from stdin.
func runPlotIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o plotOptions
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.StringVar(&o.in, "in", "", "CSV file written by post or bounds; - reads stdin (required)")
	fs.StringVar(&o.out, "out", "", "image file to write; its extension .png, .svg or .pdf picks the format (required)")
	fs.StringVar(&o.view, "view", string(figure.Curves), "curves (values against eps) or gap (post_upper-post and ub-lb, log scale)")
	fs.StringVar(&o.panels, "panels", "", "c: a column of panels per c, k: per k (default: whichever of c and k varies, else c)")
	fs.Float64Var(&o.width, "width", 0, "image width in inches, 0 means 4 per column of panels")
	fs.Float64Var(&o.height, "height", 0, "image height in inches, 0 means 3 per row of panels plus the legend")
	fs.StringVar(&o.memFlag, "max-memory", "1GiB", "memory cap by estimate, e.g. 512MiB: --in may take a sixteenth of it")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	maxMem, err := parseBytes(o.memFlag)
	if err != nil {
		return usagef("--max-memory: %v", err)
	}
	if o.in != "-" {
		if err := checkInputSize("--in", o.in, maxMem); err != nil {
			return err
		}
	}

	var rows []figure.Row
	if o.in == "-" {
		rows, err = figure.ReadCSV(stdin)
	} else {
		rows, err = figure.ReadFile(o.in)
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	opts := &figure.Options{
		View:    figure.View(o.view),
		PanelBy: figure.PanelBy(o.panels),
		Width:   vg.Length(o.width) * vg.Inch,
		Height:  vg.Length(o.height) * vg.Inch,
	}
	return figure.WriteFile(o.out, rows, opts)
}

// check validates the flags of plot.
func (o *plotOptions) check() error {
	if o.in == "" {
		return usagef("--in: missing: the CSV file to draw, or - for stdin")
	}
	if o.out == "" {
		return usagef("--out: missing: the image file to write (.png, .svg or .pdf)")
	}
	if _, err := figure.FormatOf(o.out); err != nil {
		return usagef("--out: %q: extension must be .png, .svg or .pdf", o.out)
	}
	switch figure.View(o.view) {
	case figure.Curves, figure.Gap:
	default:
		return usagef("--view: view is %q, must be %s or %s", o.view, figure.Curves, figure.Gap)
	}
	switch figure.PanelBy(o.panels) {
	case "", figure.ByC, figure.ByK:
	default:
		return usagef("--panels: panels is %q, must be %s or %s", o.panels, figure.ByC, figure.ByK)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"width", o.width}, {"height", o.height}} {
		if !(f.v >= 0 && f.v <= maxPlotInches) {
			return usagef("--%s: %s is %v, must be in [0, %d] inches", f.name, f.name, f.v, maxPlotInches)
		}
	}
	return nil
}
