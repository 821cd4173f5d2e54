package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/parallel"
	"github.com/bernamp/bernamp/verify"
)

// runVerify checks certificate files independently of the solver (package
// verify) and prints one line per file: accept, or reject with the first
// failing item. Exit status 0 when every file is accepted, 1 when one is
// rejected or cannot be read, 2 when one is malformed (not a certificate).
func runVerify(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	const groups = withoutNoTiming // verify prints no times
	fs := newFlagSet("verify", &o, groups)
	fs.Lookup("workers").Usage = "certificates checked in parallel, >= 1"
	fs.Lookup("max-memory").Usage = fmt.Sprintf("memory cap, e.g. 512MiB, 4GiB or bytes: a certificate file of more than the cap / %d bytes is refused", inputBytesFactor)
	var timeout time.Duration
	fs.DurationVar(&timeout, "timeout", 0, "time limit per certificate file, 0 means none: a file not re-proved within it is rejected (the claim is not accepted)")
	files, err := parseFlagsArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := checkOptions(&o, groups); err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("verify: no certificate files given")
	}
	// Read everything first: a malformed file is a usage error, reported
	// before any work.
	certs := make([]*certfile.File, len(files))
	for i, path := range files {
		if err := checkInputSize("verify", path, o.maxMem); err != nil {
			return err
		}
		f, err := certfile.ReadFile(path)
		switch {
		case errors.Is(err, certfile.ErrFormat):
			return usagef("verify: %s: %v", path, err)
		case err != nil:
			return fmt.Errorf("verify: %v", err) // cannot be read: exit 1, as for every command
		}
		certs[i] = f
	}
	rejected := 0
	if timeout < 0 {
		return usagef("--timeout: %v is negative", timeout)
	}
	err = parallel.Map(ctx, len(certs), o.workers, func(ctx context.Context, i int) (verify.Report, error) {
		r, err := checkWithin(ctx, certs[i], timeout)
		if errors.Is(err, verify.ErrMalformed) {
			return r, usagef("verify: %s: %v", files[i], err)
		}
		return r, err
	}, func(i int, r verify.Report) error {
		f := certs[i]
		point := describeCertificate(f)
		if r.Accepted {
			proof := ""
			if f.Kind == certfile.KindPieces || f.Kind == certfile.KindRanges {
				proof = fmt.Sprintf("; %d tiles, %d boxes", r.Tiles, r.Boxes)
			}
			fmt.Fprintf(stdout, "%s: accept (%s: claim %s >= bound %s%s)\n", files[i], point, certfile.Short(f.Claim), certfile.Num(r.Bound), proof)
			return nil
		}
		rejected++
		fmt.Fprintf(stdout, "%s: reject (%s, claim %s): %s\n", files[i], point, certfile.Short(f.Claim), r.Failure)
		return nil
	})
	if err != nil {
		return err
	}
	if rejected > 0 {
		return fmt.Errorf("%d of %d certificates rejected", rejected, len(files))
	}
	return nil
}

// checkWithin is verify.Check with a time limit (0: none). A check cut by
// the limit is a rejection that says so: a file built at the checker's caps
// can take minutes, and an unchecked claim must not be accepted. Ctrl-C
// (the parent ctx) stays an error.
func checkWithin(ctx context.Context, f *certfile.File, timeout time.Duration) (verify.Report, error) {
	if timeout <= 0 {
		return verify.Check(ctx, f, nil)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := verify.Check(cctx, f, nil)
	if ctx.Err() == nil && cctx.Err() != nil && (err != nil || !r.Accepted) {
		return verify.Report{Tiles: r.Tiles, Boxes: r.Boxes, Failure: fmt.Sprintf("not re-proved within --timeout %v (%d boxes checked)", timeout, r.Boxes)}, nil
	}
	return r, err
}

// verifyDir checks every certificate file of dir (demo --verify) and
// prints the count accepted; an error when one is rejected.
func verifyDir(ctx context.Context, dir string, workers int, stdout io.Writer) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	var first string
	accepted := 0
	err = parallel.Map(ctx, len(files), workers, func(ctx context.Context, i int) (verify.Report, error) {
		f, err := certfile.ReadFile(files[i])
		if err != nil {
			return verify.Report{}, err
		}
		return verify.Check(ctx, f, nil)
	}, func(i int, r verify.Report) error {
		if r.Accepted {
			accepted++
		} else if first == "" {
			first = filepath.Base(files[i]) + ": " + r.Failure
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "verify: %d of %d exported certificates (one per row: the pieces proof or the closed form) re-checked and accepted\n", accepted, len(files))
	if accepted < len(files) {
		return fmt.Errorf("verify: %d certificates rejected; first: %s", len(files)-accepted, first)
	}
	return nil
}

// describeCertificate names f's kind (and the method of a pieces file
// other than the first-order multipliers) and point, numbers in their
// short float64 form (the file holds them exactly); for a ranges
// certificate its groups as c_g x n_g (n_g bits sharing c_g), for a
// closed form with groups its ranges as [lo_g, hi_g] x n_g.
func describeCertificate(f *certfile.File) string {
	kind := f.Kind
	if f.Method != "" {
		kind += " (" + f.Method + ")"
	}
	what := "c " + certfile.Short(f.C)
	if len(f.Groups) > 0 {
		var gs []string
		for _, g := range f.Groups {
			if g.C != "" {
				gs = append(gs, fmt.Sprintf("%s x %d", certfile.Short(g.C), g.N))
			} else {
				gs = append(gs, fmt.Sprintf("[%s, %s] x %d", certfile.Short(g.Lo), certfile.Short(g.Hi), g.N))
			}
		}
		what = "c " + strings.Join(gs, "; ")
		if f.Kind == certfile.KindClosedForm {
			what = "ranges " + strings.Join(gs, "; ")
		}
	}
	s := fmt.Sprintf("%s at d %d, k %d, %s", kind, f.D, f.K, what)
	for _, x := range []struct{ name, v string }{{"alpha", f.Alpha}, {"eps", f.Eps}, {"delta", f.Delta}, {"eps_out", f.EpsOut}} {
		if x.v != "" {
			s += fmt.Sprintf(", %s %s", x.name, certfile.Short(x.v))
		}
	}
	return s
}
