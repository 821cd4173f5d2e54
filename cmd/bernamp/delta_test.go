package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestDeltaUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		flag string // named in the message
	}{
		{[]string{"--delta", "0.1"}, "--eps"},
		{[]string{"--eps", "1"}, "--delta"},
		{[]string{"--eps", "1", "--delta", "1"}, "--delta"},
		{[]string{"--eps", "1", "--delta", "-0.1"}, "--delta"},
		{[]string{"--eps", "1", "--delta", "NaN"}, "--delta"},
		{[]string{"--eps", "-1", "--delta", "0.1"}, "--eps"},
		{[]string{"--eps", "1", "--delta", "0.1", "--c", "0.5"}, "--c"},
		{[]string{"--eps", "1", "--delta", "0.1", "--c", "0"}, "--c"},
		{[]string{"--eps", "1", "--delta", "0.1", "--d", "0"}, "--d"},
		{[]string{"--eps", "1", "--delta", "0.1", "--k", "0"}, "--k"},
		{[]string{"--eps", "1", "--delta", "0.1", "--d", "12", "--k", "2"}, "--d"},
		{[]string{"--eps", "1", "--delta", "0.1", "--gaussian", "1"}, "--delta"},
		{[]string{"--eps", "1", "--gaussian", "0"}, "--gaussian"},
		{[]string{"--eps", "1", "--delta", "0.1", "--eps-out", "-1"}, "--eps-out"},
		{[]string{"--eps", "1", "--delta", "0.1", "--eps-out", "a"}, "--eps-out"},
		{[]string{"--eps", "1", "--delta", "0.1", "--format", "table"}, "--format"},
		{[]string{"--eps", "1", "--delta", "0.1", "--conversion", "mironov2017"}, "--conversion"},
		{[]string{"--eps", "1", "--delta", "0.1", "--workers", "0"}, "--workers"},
		{[]string{"--eps", "1", "--delta", "0.1", "extra"}, "extra"},
	} {
		var out, errb bytes.Buffer
		err := runDelta(context.Background(), tc.args, &out, &errb)
		var uerr usageError
		if !errors.As(err, &uerr) {
			t.Errorf("%v: error %v, want a usage error", tc.args, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.flag) || strings.Contains(msg, "\n") {
			t.Errorf("%v: message %q should be one line naming %s", tc.args, msg, tc.flag)
		}
	}
}

func runDeltaCSV(t *testing.T, args ...string) []map[string]string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := runDelta(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errb.String())
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(deltaHeader, ",") {
		t.Fatalf("header %v", recs[0])
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// TestDeltaCSV checks rows against testdata/hockey/delta_ref.csv (mpmath
// vertex enumeration) and the comparator columns.
func TestDeltaCSV(t *testing.T) {
	t.Parallel()
	rows := runDeltaCSV(t, "--d", "1", "--k", "2", "--c", "0.1", "--eps", "1", "--delta", "0.05", "--eps-out", "0.3,1,2", "--no-timing")
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	r := rows[0]
	const ref = 3.16200892450737947471579576128e-1 // delta_ref.csv: 1,2,0.1,1,0.05,0.3
	if lo, hi := num(t, r["delta_out"]), num(t, r["delta_out_upper"]); !(lo <= ref && ref <= hi) {
		t.Errorf("eps_out 0.3: [%v, %v] misses the reference %v", lo, hi, ref)
	}
	if r["method"] != "lifted-canonical-pair" || r["seconds"] != "0.0000" || r["rdp_route"] != "" {
		t.Errorf("row %v", r)
	}
	// Items 1 and 2 keep eps: empty below eps_out = eps, present at it;
	// eps' = eps: delta' <= delta.
	if r["dobrushin"] != "" || r["dobrushin_hs"] != "" {
		t.Errorf("eps_out 0.3 < eps: dobrushin %q dobrushin_hs %q, want empty", r["dobrushin"], r["dobrushin_hs"])
	}
	r = rows[1]
	if r["dobrushin"] == "" || num(t, r["dobrushin"]) < num(t, r["delta_out"]) || num(t, r["delta_out"]) > 0.05 {
		t.Errorf("eps_out = eps: %v", r)
	}
}

// TestDeltaGaussian runs the Gaussian comparison at d = 1 (156 orders of
// bernamp.Post, about a second).
func TestDeltaGaussian(t *testing.T) {
	if testing.Short() {
		t.Skip("amplifies 156 orders")
	}
	t.Parallel()
	var out, errb bytes.Buffer
	args := []string{"--gaussian", "1", "--eps", "1", "--c", "0.1", "--k", "1", "--eps-out", "0.25,0.5", "--format", "json", "--no-timing"}
	if err := runDelta(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rows []deltaRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	const ref = 1.26936737506643945800829624758e-1 // gaussian_ref.csv: sigma 1, eps 1
	for _, r := range rows {
		if !(r.Delta >= ref && r.Delta <= ref*(1+1e-12)) {
			t.Errorf("delta %v, Gaussian reference %v", r.Delta, ref)
		}
		if r.RDPRoute == nil || !(*r.RDPRoute > 0 && *r.RDPRoute <= 1) || r.RDPOrder == nil {
			t.Errorf("eps_out %v: rdp_route %v", r.EpsOut, r.RDPRoute)
		}
		if r.Method != "canonical-pair" || math.IsNaN(r.DeltaOut) {
			t.Errorf("row %+v", r)
		}
	}
}
