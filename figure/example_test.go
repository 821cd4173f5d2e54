package figure_test

import (
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/bernamp/bernamp/figure"
)

// ExamplePrepare shows the panels and series drawn from the output of
//
//	bernamp post --d 1,2 --k 1 --c 0.1,0.3 --alpha 5 --eps 0:3:0.5 --format csv --no-timing
func ExamplePrepare() {
	rows, err := figure.ReadFile("../testdata/figures/small.csv")
	if err != nil {
		log.Fatal(err)
	}
	f, err := figure.Prepare(rows, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d x %d panels, a column per %s\n", f.Rows, f.Cols, f.PanelBy)
	for _, p := range f.Panels {
		fmt.Printf("row %d col %d: d=%d k=%d c=%v alpha=%v, d k r_alpha(c) = %.4g nats\n", p.Row, p.Col, p.D, p.K, p.C, p.Alpha, p.Asym)
		for _, s := range p.Series {
			fmt.Printf("\t%-14s %d points, last (%v, %.4g)\n", s.Kind, len(s.X), s.X[len(s.X)-1], s.Y[len(s.Y)-1])
		}
	}
	// Output:
	// 2 x 2 panels, a column per c
	// row 0 col 0: d=1 k=1 c=0.1 alpha=5, d k r_alpha(c) = 2.171 nats
	// 	eps            7 points, last (3, 3)
	// 	asymptote      2 points, last (3, 2.171)
	// 	lb             7 points, last (3, 1.799)
	// 	post           7 points, last (3, 1.799)
	// 	post_certified 7 points, last (3, 1.799)
	// row 0 col 1: d=1 k=1 c=0.3 alpha=5, d k r_alpha(c) = 0.7583 nats
	// 	eps            7 points, last (3, 3)
	// 	asymptote      2 points, last (3, 0.7583)
	// 	lb             7 points, last (3, 0.6638)
	// 	post           7 points, last (3, 0.6638)
	// 	post_certified 7 points, last (3, 0.6638)
	// row 1 col 0: d=2 k=1 c=0.1 alpha=5, d k r_alpha(c) = 4.342 nats
	// 	eps            7 points, last (3, 3)
	// 	asymptote      2 points, last (3, 4.342)
	// 	lb             7 points, last (3, 2.724)
	// 	post           7 points, last (3, 2.724)
	// 	post_certified 7 points, last (3, 2.724)
	// row 1 col 1: d=2 k=1 c=0.3 alpha=5, d k r_alpha(c) = 1.517 nats
	// 	eps            7 points, last (3, 3)
	// 	asymptote      2 points, last (3, 1.517)
	// 	lb             7 points, last (3, 1.279)
	// 	post           7 points, last (3, 1.279)
	// 	post_certified 7 points, last (3, 1.279)
}

// ExampleWriteFile draws the gap view of a CSV file as a PNG of 5 by 4
// inches (480 x 384 pixels at 96 dpi).
func ExampleWriteFile() {
	rows, err := figure.ReadFile("../testdata/figures/kpanels.csv")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "figure")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "gap.png")
	opts := &figure.Options{View: figure.Gap, Width: 5 * 72, Height: 4 * 72} // in points
	if err := figure.WriteFile(path, rows, opts); err != nil {
		log.Fatal(err)
	}

	r, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	cfg, err := png.DecodeConfig(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d x %d pixels\n", cfg.Width, cfg.Height)
	// Output:
	// 480 x 384 pixels
}
