package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestPureUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--eps", "-1"}, "--eps: eps is -1, must be >= 0 and finite"},
		{[]string{"--eps", "inf"}, "--eps: eps is +Inf"},
		{[]string{"--c", "0.5"}, "--c: c is 0.5, must be in (0, 0.5)"},
		{[]string{"--d", "0"}, "--d: d is 0"},
		{[]string{"--k", "x"}, "--k: "},
		{[]string{"--method", "simplex"}, `--method: method is "simplex", must be closed or lp`},
		{[]string{"--method", "lp", "--d", "1,7"}, "--method: lp needs d <= 6 and k <= 16"},
		{[]string{"--format", "xml"}, `--format: format is "xml"`},
		{[]string{"extra"}, `pure: unexpected argument "extra"`},
	} {
		code, stdout, stderr := runArgs(t, append([]string{"pure"}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "bernamp: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("pure %v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", tc.args, code, stdout, stderr, "bernamp: "+tc.want)
		}
	}
}

// TestPureCSV checks the rows against the 30-digit values of
// testdata/puredp/ref.csv (mpmath, independent of the Go code) and the
// comparator against its own formula, eps' = log(1 + gamma (e^eps - 1)),
// gamma = 1 - (c/(1-c))^(d k), which must never be below the exact level.
func TestPureCSV(t *testing.T) {
	t.Parallel()
	want := map[string]float64{ // d,k,c,eps -> eps' from testdata/puredp/ref.csv
		"1,1,0.1,1":     0.776136585260737181750390828864,
		"10,10,0.3,0.1": 0.100000000000000005551115123126,
		"2,1,1e-06,50":  27.6310191157346736990250823692,
		"1,7,0.4999,10": 0.00279974580893275630118476346015,
	}
	code, stdout, stderr := runArgs(t, "pure", "--d", "1,2,10", "--k", "1,7,10", "--c", "1e-06,0.1,0.3,0.4999", "--eps", "0.1,1,10,50")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(pureHeader, ",") || len(recs) != 1+3*3*4*4 {
		t.Fatalf("header %v, %d rows", recs[0], len(recs))
	}
	found := 0
	for _, rec := range recs[1:] {
		v := make([]float64, 9)
		for i := range v {
			if v[i], err = strconv.ParseFloat(rec[i], 64); err != nil {
				t.Fatalf("row %v: %v", rec, err)
			}
		}
		d, k, c, eps, out, lo, hi, asym, um := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
		if !(lo <= out && out <= hi && hi <= eps && out <= asym) {
			t.Errorf("row %v: not lower <= eps_out <= upper <= eps, eps_out <= asymptote", rec)
		}
		if w, ok := want[strings.Join(rec[:4], ",")]; ok {
			found++
			if math.Abs(out-w) > 1e-14*w {
				t.Errorf("row %v: eps_out %v, want %v", rec, out, w)
			}
		}
		gamma := -math.Expm1(d * k * math.Log(c/(1-c)))
		if wu := math.Log1p(gamma * math.Expm1(eps)); math.Abs(um-wu) > 1e-12*wu || um < hi*(1-1e-15) {
			t.Errorf("row %v: ultra_mixing %v, its formula %v, exact upper %v", rec, um, wu, hi)
		}
	}
	if found != len(want) {
		t.Errorf("%d of the %d reference rows found", found, len(want))
	}
}

func TestPureLPAndJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runArgs(t, "pure", "--d", "1,3", "--k", "2", "--c", "0.2", "--eps", "0.5,3", "--method", "lp", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		out, hi := r["eps_out"].(float64), r["eps_out_upper"].(float64)
		if r["method"] != "lp" || math.Abs(out-hi) > 1e-9*hi {
			t.Errorf("row %v", r)
		}
	}
	// Beyond mixing.MaxFlips the comparator is null, the rest still there.
	code, stdout, stderr = runArgs(t, "pure", "--d", "5000000", "--eps", "1", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"ultra_mixing": null`) || !strings.Contains(stdout, `"eps_out_upper": 1`) {
		t.Errorf("exit %d, stdout %s, stderr %q", code, stdout, stderr)
	}
}

// TestPureRanges checks --range against the exact rational LP of
// testdata/puredp/lp_ranges.csv and symmetric ranges against --c.
func TestPureRanges(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runArgs(t, "pure", "--range", "0.1:0.3,0.2:0.9", "--eps", "0.6931471805599453")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 2 || recs[0][2] != "ranges" || recs[1][2] != "0.1:0.3;0.2:0.9" {
		t.Fatalf("%v, %v", recs, err)
	}
	got, _ := strconv.ParseFloat(recs[1][4], 64)
	if want := 0.6337237600891445647399859238628642863934; math.Abs(got-want) > 1e-14*want {
		t.Errorf("eps_out %v, exact LP %v", got, want)
	}
	_, sym, _ := runArgs(t, "pure", "--range", "0.2:0.8,0.2:0.8,0.2:0.8", "--k", "2", "--eps", "0.5,3")
	_, plain, _ := runArgs(t, "pure", "--d", "3", "--c", "0.2", "--k", "2", "--eps", "0.5,3")
	s, p := strings.Split(sym, "\n"), strings.Split(plain, "\n")
	for i := 1; i < 3; i++ {
		sf, pf := strings.Split(s[i], ","), strings.Split(p[i], ",")
		for j := 4; j <= 6; j++ {
			a, _ := strconv.ParseFloat(sf[j], 64)
			b, _ := strconv.ParseFloat(pf[j], 64)
			if math.Abs(a-b) > 1e-14*b {
				t.Errorf("column %s: ranges %v, --c %v", pureHeader[j], a, b)
			}
		}
	}
	for _, args := range [][]string{{"--range", "0.1:0.3", "--d", "2"}, {"--range", "0.1:0.3", "--method", "lp"}, {"--range", "0.3:0.1"}} {
		if code, _, stderr := runArgs(t, append([]string{"pure"}, args...)...); code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("pure %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
