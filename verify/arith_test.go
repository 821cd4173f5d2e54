package verify

import (
	"encoding/csv"
	"math/big"
	"os"
	"strconv"
	"testing"
)

// TestEnclosures checks exp, log and pow against 60-digit mpmath values
// (testdata/verify/arith.csv, gen_arith.py): each reference must lie in the
// enclosure (up to 1e-55 relative, the reference's own rounding), and the
// enclosure must be narrow: at most 2^-110 relative (the working precision
// is 2^-128), so a loose or a wrong bound both fail.
func TestEnclosures(t *testing.T) {
	f, err := os.Open("../testdata/verify/arith.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	slack := new(big.Float).SetPrec(300).SetMantExp(big.NewFloat(1), -182) // about 1.6e-55
	width := new(big.Float).SetMantExp(big.NewFloat(1), -110)
	for _, row := range rows[1:] {
		x, err1 := strconv.ParseFloat(row[1], 64)
		a, err2 := strconv.ParseFloat(row[2], 64)
		ref, _, err3 := big.ParseFloat(row[3], 10, 300, big.ToNearestEven)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("row %v: %v %v %v", row, err1, err2, err3)
		}
		xv := pointIval(new(big.Float).SetFloat64(x))
		var got ival
		switch row[0] {
		case "exp":
			got = xv.exp()
		case "log":
			got = xv.log()
		case "pow":
			got = xv.pow(pointIval(new(big.Float).SetFloat64(a)))
		default:
			t.Fatalf("row %v: unknown kind", row)
		}
		tol := new(big.Float).SetPrec(300).Mul(new(big.Float).Abs(ref), slack)
		lo := new(big.Float).SetPrec(300).Sub(got.lo, tol)
		hi := new(big.Float).SetPrec(300).Add(got.hi, tol)
		if lo.Cmp(ref) > 0 || hi.Cmp(ref) < 0 {
			t.Errorf("%s(%s, %s): [%s, %s] misses %s", row[0], row[1], row[2], got.lo.Text('g', 45), got.hi.Text('g', 45), row[3])
			continue
		}
		w := new(big.Float).SetPrec(300).Sub(got.hi, got.lo)
		lim := new(big.Float).SetPrec(300).Mul(new(big.Float).Abs(ref), width)
		if ref.Sign() == 0 {
			lim = width
		}
		if w.Cmp(lim) > 0 {
			t.Errorf("%s(%s, %s): width %s is more than 2^-110 relative", row[0], row[1], row[2], w.Text('g', 5))
		}
	}
}

// TestIntervalOps checks the directed rounding of the four operations on
// an inexact case: 1/3 must be strictly enclosed, and products of signed
// intervals take the right corners.
func TestIntervalOps(t *testing.T) {
	third := constIval(1).div(constIval(3))
	r := new(big.Rat).SetFrac64(1, 3)
	lo, _ := third.lo.Rat(nil)
	hi, _ := third.hi.Rat(nil)
	if !(lo.Cmp(r) < 0 && hi.Cmp(r) > 0) {
		t.Errorf("1/3 not strictly enclosed: [%v, %v]", lo, hi)
	}
	m := ival{big.NewFloat(-2), big.NewFloat(3)}.mul(ival{big.NewFloat(-5), big.NewFloat(4)})
	if m.lo.Cmp(big.NewFloat(-15)) != 0 || m.hi.Cmp(big.NewFloat(12)) != 0 {
		t.Errorf("[-2,3]*[-5,4] = [%v, %v], want [-15, 12]", m.lo, m.hi)
	}
	s := ival{big.NewFloat(-2), big.NewFloat(3)}.sqr()
	if s.lo.Sign() != 0 || s.hi.Cmp(big.NewFloat(9)) != 0 {
		t.Errorf("[-2,3]^2 = [%v, %v], want [0, 9]", s.lo, s.hi)
	}
}
