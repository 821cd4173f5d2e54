package verify

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certfile"
)

// fuzzTimeout bounds one Check in the fuzz targets; fuzzOptions keep the
// splitting budget small (a mutated tile that does not close fails fast).
const fuzzTimeout = 300 * time.Millisecond

var fuzzOptions = &Options{MaxDepth: 2, MaxExtra: 4}

// fuzzSeeds returns the honest certificates of testdata/verify, as files
// and as bytes.
func fuzzSeeds(f *testing.F) ([]*certfile.File, [][]byte) {
	paths, err := filepath.Glob("../testdata/verify/*.json")
	if err != nil || len(paths) == 0 {
		f.Fatalf("testdata: %v, %d files", err, len(paths))
	}
	var files []*certfile.File
	var raw [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		cf, err := certfile.Decode(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, cf)
		raw = append(raw, b)
	}
	// Closed-form files with groups ({n, c} and {n, lo, hi}; no testdata
	// file: no proof data), their claims the references above 1e-14.
	for _, i := range []int{0, 3, 4} {
		tc := closedGroupRefs[i]
		ref, _ := strconv.ParseFloat(tc.ref, 64)
		cf := &certfile.File{Format: certfile.Format, Version: certfile.Version, Kind: certfile.KindClosedForm,
			D: tc.d, K: tc.k, N: tc.d * tc.k, Alpha: tc.alpha, Eps: "50", Claim: certfile.Num(ref * (1 + 1e-14)), LB: "0",
			Groups: slices.Clone(tc.groups)}
		var buf bytes.Buffer
		if err := cf.Encode(&buf); err != nil {
			f.Fatal(err)
		}
		files = append(files, cf)
		raw = append(raw, buf.Bytes())
	}
	return files, raw
}

// checkInvariants runs Check on f and asserts what must hold for any input:
// no panic (the fuzzer reports it), an error only if it wraps ErrMalformed
// or is the context's, and an accepted file's claim at least the bound
// Check proved (Report.Bound is that bound rounded up to float64, so the
// claim may sit below it by the rounding: compared exactly, claim >=
// Bound less one ulp). When the point (d, k, c, alpha, eps) is the honest
// file's, lb is that file's Theorem 4 lower bound (below Post, computed by
// package bounds to about 1e-15 relative), and an accepted claim below it
// (less 1e-12 relative) would be a false accept.
func checkInvariants(t *testing.T, f *certfile.File, lb float64) {
	ctx, cancel := context.WithTimeout(context.Background(), fuzzTimeout)
	defer cancel()
	rep, err := Check(ctx, f, fuzzOptions)
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("Check error %v wraps neither ErrMalformed nor a context error", err)
		}
		if rep.Accepted {
			t.Fatalf("Check accepted and returned the error %v", err)
		}
		return
	}
	if !rep.Accepted {
		if rep.Failure == "" {
			t.Fatalf("Check rejected without a failure: %+v", rep)
		}
		return
	}
	claim, ok := new(big.Rat).SetString(f.Claim)
	if !ok {
		t.Fatalf("accepted a claim %q that is not a number", f.Claim)
	}
	if math.IsNaN(rep.Bound) || math.IsInf(rep.Bound, 0) {
		t.Fatalf("accepted with bound %v", rep.Bound)
	}
	if claim.Cmp(new(big.Rat).SetFloat64(math.Nextafter(rep.Bound, math.Inf(-1)))) < 0 {
		t.Fatalf("accepted claim %s below the checked bound %v", f.Claim, rep.Bound)
	}
	if !math.IsNaN(lb) && claim.Cmp(new(big.Rat).SetFloat64(lb*(1-1e-12))) < 0 {
		t.Fatalf("FALSE ACCEPT: claim %s below the honest lower bound %v (bound %v)", f.Claim, lb, rep.Bound)
	}
}

// FuzzCheck mutates the honest certificates through their parsed fields:
// one scalar field (c, alpha, eps, claim, l0, l1, l2, tau, log_u, d, k or
// n; those of its kind; for a ranges or closed-form certificate with groups also its first two
// groups' c (or lo and hi) and n) scaled by 1+rel and shifted by abs, and one end of one tile replaced
// by a value (NaN leaves it, ±Inf gives "inf" or "-inf"). d, k and n stay
// in [1, 64] so that a call stays fast (Check's work is O(n) before its
// first context check; MaxN caps it at 10^7 for real inputs).
func FuzzCheck(f *testing.F) {
	files, _ := fuzzSeeds(f)
	for i := range files {
		f.Add(uint8(i), uint8(0), 0.0, 0.0, uint16(0), uint8(0), math.NaN())   // honest
		f.Add(uint8(i), uint8(3), -1e-6, 0.0, uint16(0), uint8(0), math.NaN()) // claim lowered
		f.Add(uint8(i), uint8(5), 0.0, -1e-3, uint16(0), uint8(0), math.NaN()) // l1 lowered
		f.Add(uint8(i), uint8(4), -0.01, 0.0, uint16(3), uint8(1), 0.5)        // l0 and a tile end
		f.Add(uint8(i), uint8(12), 0.0, 0.0, uint16(7), uint8(2), math.Inf(1)) // a tile end to inf
	}
	f.Fuzz(func(t *testing.T, which, field uint8, rel, abs float64, tile uint16, end uint8, val float64) {
		honest := files[int(which)%len(files)]
		g := *honest
		g.Tiles = append([][4]string(nil), honest.Tiles...)
		g.BandBoxes = append([][4]string(nil), honest.BandBoxes...)
		g.Groups = slices.Clone(honest.Groups)
		strs := []*string{&g.C, &g.Alpha, &g.Eps, &g.Claim, &g.L0, &g.L1, &g.L2, &g.Tau, &g.LogU}
		ints := []*int{&g.D, &g.K, &g.N}
		none, nint := "", 0 // the group fields of a file with fewer groups: left as they are
		for i := range 2 {
			if i < len(g.Groups) {
				strs, ints = append(strs, &g.Groups[i].C, &g.Groups[i].Lo, &g.Groups[i].Hi), append(ints, &g.Groups[i].N)
			} else {
				strs, ints = append(strs, &none, &none, &none), append(ints, &nint)
			}
		}
		strs = append(strs, &g.BandBeta, &g.BandS1, &g.BandS2) // "" without a band

		switch fi := int(field) % (len(strs) + len(ints) + 1); {
		case fi < len(strs) && *strs[fi] == "":
			// A field this kind does not have (closed-form, pure-dp): the
			// honest file is checked as it is.
		case fi < len(strs):
			x, err := strconv.ParseFloat(*strs[fi], 64)
			if err != nil {
				t.Fatal(err)
			}
			y := x*(1+rel) + abs
			if math.IsNaN(y) {
				t.Skip() // nothing to write: certificates hold no NaN
			}
			*strs[fi] = certfile.Num(y)
		case fi < len(strs)+len(ints) && *ints[fi-len(strs)] == 0:
			// A group this file does not have.
		case fi < len(strs)+len(ints):
			p := ints[fi-len(strs)]
			y := float64(*p)*(1+rel) + abs
			if !(y >= 1 && y <= 64) {
				t.Skip() // see the doc: keep each call fast
			}
			*p = int(y)
		}
		switch {
		case math.IsNaN(val):
		case end&4 != 0 && len(g.BandBoxes) > 0: // a band box's end
			g.BandBoxes[int(tile)%len(g.BandBoxes)][int(end)%4] = certfile.Num(val)
		case len(g.Tiles) > 0:
			ti := int(tile) % len(g.Tiles)
			g.Tiles[ti][int(end)%4] = certfile.Num(val)
		}
		lb := math.NaN()
		if g.D == honest.D && g.K == honest.K && g.C == honest.C && g.Alpha == honest.Alpha && g.Eps == honest.Eps &&
			slices.Equal(g.Groups, honest.Groups) {
			lb, _ = strconv.ParseFloat(honest.LB, 64)
		}
		checkInvariants(t, &g, lb)
	})
}

// FuzzCheckBytes is the byte-level variant: arbitrary bytes (seeded with
// the honest files) through certfile's reader, then Check. Files with n
// above 64 are skipped to keep each call fast.
func FuzzCheckBytes(f *testing.F) {
	files, raw := fuzzSeeds(f)
	for _, b := range raw {
		f.Add(b)
	}
	// The delta certificates (testdata/verify/delta) at n <= 64.
	delta, _ := filepath.Glob("../testdata/verify/delta/delta-d*-k[0-9]-*.json")
	more, _ := filepath.Glob("../testdata/verify/delta/delta-d*-k[0-9][0-9]-*.json")
	for _, p := range append(delta, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var corners bytes.Buffer // a delta-corners certificate (no testdata file: no proof data)
	if err := certfile.NewDeltaCorners(2, 2, 0.3, 2, 1e-6, 0.5, 0.33436455000917028, 0.33).Encode(&corners); err != nil {
		f.Fatal(err)
	}
	f.Add(corners.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := certfile.Decode(bytes.NewReader(data))
		if err != nil {
			return // certfile's FuzzRead covers the reader
		}
		if g.N > 64 || g.D > 64 || g.K > 64 || len(g.Tiles) > 4096 {
			t.Skip("n, d, k or tiles past the fuzz budget: each call must stay fast")
		}
		lb := math.NaN()
		for _, h := range files {
			if g.D == h.D && g.K == h.K && g.C == h.C && g.Alpha == h.Alpha && g.Eps == h.Eps && slices.Equal(g.Groups, h.Groups) {
				lb, _ = strconv.ParseFloat(h.LB, 64)
			}
		}
		checkInvariants(t, g, lb)
	})
}
