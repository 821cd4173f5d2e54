package certout

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/verify"
)

// TestExportVerifies writes the solver's proof at two points (Figure 2 and
// Figure 3 of the paper: (d, k) = (1, 1) and (1, 2), c = 0.1, alpha = 5),
// reads it back and has the independent checker accept it; the export is
// deterministic.
func TestExportVerifies(t *testing.T) {
	ctx := context.Background()
	for _, p := range []struct {
		d, k      int
		c, a, eps float64
	}{{1, 1, 0.1, 5, 1}, {1, 2, 0.1, 5, 2.5}} {
		f, err := Pieces(ctx, p.d, p.k, p.c, p.a, p.eps, 1e-9)
		if err != nil || f == nil {
			t.Fatalf("%+v: %v, %v", p, f, err)
		}
		var b bytes.Buffer
		if err := f.Encode(&b); err != nil {
			t.Fatal(err)
		}
		g, err := certfile.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		r, err := verify.Check(ctx, g, nil)
		if err != nil || !r.Accepted {
			t.Errorf("%+v: rejected: %q, %v", p, r.Failure, err)
		}
		again, _ := Pieces(ctx, p.d, p.k, p.c, p.a, p.eps, 1e-9)
		if !reflect.DeepEqual(f, again) {
			t.Errorf("%+v: two runs differ", p)
		}
	}
}

// TestNothingToExport: where the closed form already meets LB (eps = 0:
// Post = 0) there is no tiling and no file.
func TestNothingToExport(t *testing.T) {
	f, err := Pieces(context.Background(), 1, 1, 0.1, 5, 0, 1e-9)
	if err != nil || f != nil {
		t.Errorf("got %v, %v, want no file", f, err)
	}
}
