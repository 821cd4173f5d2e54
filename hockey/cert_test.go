package hockey_test

import (
	"context"
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/hockey"
	"github.com/bernamp/bernamp/verify"
)

var updateDelta = flag.Bool("update-delta", false, "rewrite ../testdata/verify/delta from hockey.Delta")

// deltaTestdata are the points of ../testdata/verify/delta (the checker's
// fixed inputs, with 60-digit references from gen_delta.py).
var deltaTestdata = []hockey.Params{
	{D: 1, K: 20, C: 0.1, Eps: 1, Delta: 0.01, EpsOut: 1},
	{D: 1, K: 20, C: 0.1, Eps: 1, Delta: 0.01, EpsOut: 0.2},
	{D: 1, K: 20, C: 0.3, Eps: 1, Delta: 0.01, EpsOut: 0},
	{D: 2, K: 30, C: 0.3, Eps: 2, Delta: 1e-6, EpsOut: 0.5},
	{D: 1, K: 1000, C: 0.45, Eps: 2, Delta: 1e-6, EpsOut: 0.01},
	{D: 1, K: 100_000, C: 0.499, Eps: 2, Delta: 1e-6, EpsOut: 0.01},
	{D: 1, K: 50, C: 1e-6, Eps: 1, Delta: 1e-12, EpsOut: 0.5},
	{D: 1, K: 50, C: 1e-6, Eps: 1, Delta: 1e-12, EpsOut: 1.5},
	{D: 1, K: 100, C: 0.001, Eps: 0.1, Delta: 1e-12, EpsOut: 0.05},
	{D: 1, K: 30, C: 0.2, Eps: 0, Delta: 0.1, EpsOut: 0},
}

// TestWriteDeltaTestdata writes the certificates of deltaTestdata when run
// with -update-delta (then run testdata/verify/gen_delta.py).
func TestWriteDeltaTestdata(t *testing.T) {
	if !*updateDelta {
		t.Skip("run with -update-delta to rewrite ../testdata/verify/delta")
	}
	dir := filepath.Join("..", "testdata", "verify", "delta")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range deltaTestdata {
		r, err := hockey.Delta(context.Background(), p)
		if err != nil || r.Certificate == nil {
			t.Fatalf("%+v: %v, method %s", p, err, r.Method)
		}
		if _, err := r.Certificate.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeltaCertificates: the certificate of every MethodPieces result is
// accepted by the independent checker (package verify), at random points
// and at the extremes (c down to 1e-6, eps and eps' up to 50, delta down
// to 1e-12, n up to 10^5); its claim is Upper, its LB Lower. Where Lower
// is within 1e-12 of Upper, the true delta' is within that gap, and a claim
// 2e-12 below Lower is false: it is rejected, with the multipliers as
// computed and with l0 lowered to make the arithmetic of the claim fit.
func TestDeltaCertificates(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 2))
	points := append([]hockey.Params(nil), deltaTestdata[:5]...)
	points = append(points,
		hockey.Params{D: 1, K: 17, C: 1e-6, Eps: 50, Delta: 1e-12, EpsOut: 50},
		hockey.Params{D: 1, K: 1000, C: 0.49, Eps: 50, Delta: 1e-12, EpsOut: 0.5},
		hockey.Params{D: 1, K: 40, C: 0.4999, Eps: 1e-9, Delta: 0.5, EpsOut: 1e-9},
		hockey.Params{D: 3, K: 7, C: 0.01, Eps: 0.3, Delta: 1e-12, EpsOut: 50},
	)
	if !testing.Short() {
		points = append(points, deltaTestdata[5])
	}
	for range 40 {
		d := 1 + rng.IntN(2)
		k := 17 + rng.IntN(200)
		if d == 2 {
			k = 9 + rng.IntN(40)
		}
		points = append(points, randomPoint(rng, d, k))
	}
	tight := 0
	for _, p := range points {
		r, err := hockey.Delta(ctx, p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		f := r.Certificate
		if r.Method != hockey.MethodPieces || f == nil || f.Kind != certfile.KindDeltaPieces {
			t.Fatalf("%+v: method %s, certificate %v", p, r.Method, f)
		}
		if f.Claim != certfile.Exact(r.Upper) || f.LB != certfile.Num(r.Lower) || f.EpsOut != certfile.Exact(p.EpsOut) {
			t.Errorf("%+v: claim %s lb %s eps_out %s, want Upper %v, Lower %v", p, f.Claim, f.LB, f.EpsOut, r.Upper, r.Lower)
		}
		rep, err := verify.Check(ctx, f, nil)
		if err != nil || !rep.Accepted {
			t.Errorf("%+v (upper %v): %+v, %v", p, r.Upper, rep, err)
			continue
		}
		if !(r.Upper-r.Lower <= 1e-12) {
			continue
		}
		tight++
		claim := r.Lower - 2e-12
		g := *f
		g.Claim = certfile.Exact(claim)
		if rep, err := verify.Check(ctx, &g, nil); err != nil || rep.Accepted || !strings.Contains(rep.Failure, "below the checked bound") {
			t.Errorf("%+v: claim %v below Lower %v: %+v, %v", p, claim, r.Lower, rep, err)
		}
		// l0 = claim - (l1 + l2) delta, exactly: the claim's arithmetic fits,
		// the vertex check must fail.
		l0 := rat(t, g.Claim)
		l0.Sub(l0, new(big.Rat).Mul(new(big.Rat).Add(rat(t, f.L1), rat(t, f.L2)), rat(t, f.Delta)))
		g.L0 = l0.FloatString(400) // exact: every number is a finite decimal
		if rep, err := verify.Check(ctx, &g, nil); err != nil || rep.Accepted || !strings.Contains(rep.Failure, "Phi is not proved") {
			t.Errorf("%+v: claim %v below Lower %v with l0 lowered to fit: %+v, %v", p, claim, r.Lower, rep, err)
		}
	}
	if tight < 4 {
		t.Errorf("only %d points with Upper - Lower <= 1e-12: the false-claim check ran too rarely", tight)
	}
}

func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a number: %q", s)
	}
	return r
}

// TestPiecesSimplexPanic: gonum's simplex panicked on the pieces LP here
// ("subcolumns of A for supplied initial basic singular"); the panic is
// recovered and the bound falls back to l1 = l2 = 0 (valid, here 1).
func TestPiecesSimplexPanic(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 10^5")
	}
	p := hockey.Params{D: 1, K: 100_000, C: 1e-6, Eps: 50, Delta: 1e-12, EpsOut: 50}
	r, err := hockey.Delta(context.Background(), p)
	if err != nil || r.Method != hockey.MethodPieces || !(r.Lower <= r.Upper && r.Upper <= 1) {
		t.Fatalf("%+v: %+v, %v", p, r, err)
	}
	if rep, err := verify.Check(context.Background(), r.Certificate, nil); err != nil || !rep.Accepted {
		t.Errorf("certificate: %+v, %v", rep, err)
	}
}

// TestDeltaCornersCertificates: the certificate of every MethodExact and
// MethodLifted result with n = D K <= verify.MaxCornerN is accepted by the
// checker (which recomputes the k = 1 corner program at n on its own),
// at random points and extremes; where Upper - Lower <= 1e-12, a claim
// 2e-12 below Lower is rejected.
func TestDeltaCornersCertificates(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 3))
	points := []hockey.Params{
		{D: 1, K: 1, C: 1e-6, Eps: 50, Delta: 1e-12, EpsOut: 50},
		{D: 4, K: 2, C: 1e-6, Eps: 50, Delta: 1e-12, EpsOut: 50},
		{D: 2, K: 3, C: 0.4999, Eps: 1e-9, Delta: 0.5, EpsOut: 0},
		{D: 5, K: 1, C: 0.01, Eps: 0, Delta: 1e-12, EpsOut: 2},
	}
	for range 16 {
		d := 1 + rng.IntN(4)
		k := 1 + rng.IntN(verify.MaxCornerN/d)
		points = append(points, randomPoint(rng, d, k))
	}
	tight := 0
	for _, p := range points {
		r, err := hockey.Delta(ctx, p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		f := r.Certificate
		if f == nil || f.Kind != certfile.KindDeltaCorners || f.Claim != certfile.Exact(r.Upper) || f.N != p.D*p.K {
			t.Fatalf("%+v: method %s, certificate %+v", p, r.Method, f)
		}
		rep, err := verify.Check(ctx, f, nil)
		if err != nil || !rep.Accepted {
			t.Errorf("%+v (%s, upper %v): %+v, %v", p, r.Method, r.Upper, rep, err)
			continue
		}
		if !(rep.Bound <= r.Upper && rep.Bound >= r.Lower*(1-1e-12)) {
			t.Errorf("%+v: checked maximum %v outside hockey's [%v, %v]", p, rep.Bound, r.Lower, r.Upper)
		}
		if r.Upper-r.Lower <= 1e-12 && r.Lower > 2e-12 {
			tight++
			g := *f
			g.Claim = certfile.Exact(r.Lower - 2e-12)
			if rep, err := verify.Check(ctx, &g, nil); err != nil || rep.Accepted || !strings.Contains(rep.Failure, "below the corner program") {
				t.Errorf("%+v: claim below Lower %v: %+v, %v", p, r.Lower, rep, err)
			}
		}
	}
	if tight < 4 {
		t.Errorf("only %d points with Upper - Lower <= 1e-12", tight)
	}
}

// randomPoint draws c log-uniform in [1e-6, 0.49], eps and eps' as 50 u^3
// (most small, some near 50), delta log-uniform in [1e-12, 1].
func randomPoint(rng *rand.Rand, d, k int) hockey.Params {
	return hockey.Params{D: d, K: k, C: math.Exp(math.Log(1e-6) + rng.Float64()*(math.Log(0.49)-math.Log(1e-6))),
		Eps: 50 * math.Pow(rng.Float64(), 3), Delta: math.Pow(10, -12*rng.Float64()), EpsOut: 50 * math.Pow(rng.Float64(), 3)}
}
