package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
)

func TestDeltaProfileUsage(t *testing.T) {
	t.Parallel()
	base := []string{"--eps", "1", "--delta", "0.1"}
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		flag string // named in the message
	}{
		{[]string{"--profile-step", "0.01"}, "--profile-step"},
		{[]string{"--profile-max", "1"}, "--profile-max"},
		{[]string{"--profile", "p.json", "--profile-step", "0"}, "--profile-step"},
		{[]string{"--profile", "p.json", "--profile-step", "-1"}, "--profile-step"},
		{[]string{"--profile", "p.json", "--profile-step", "NaN"}, "--profile-step"},
		{[]string{"--profile", "p.json", "--profile-step", "Inf"}, "--profile-step"},
		{[]string{"--profile", "p.json", "--profile-max", "0"}, "--profile-max"},
		{[]string{"--profile", "p.json", "--profile-max", "701"}, "--profile-max"},
		{[]string{"--profile", "p.json", "--profile-max", "NaN"}, "--profile-max"},
		{[]string{"--profile", "p.json", "--profile-max", "699.99", "--profile-step", "3"}, "--profile-max"},
		{[]string{"--profile", "p.json", "--profile-step", "1e-9"}, "--profile-step"},
		{[]string{"--profile", "p.json", "--d", "6", "--k", "4"}, "--profile-step"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{}, base...)
		for _, a := range tc.args {
			if a == "p.json" { // never written into the tree, even when the test fails
				a = filepath.Join(dir, a)
			}
			args = append(args, a)
		}
		err := runDelta(context.Background(), args, &out, &errb)
		var uerr usageError
		if !errors.As(err, &uerr) {
			t.Errorf("%v: error %v, want a usage error", args, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.flag) || strings.Contains(msg, "\n") {
			t.Errorf("%v: message %q should be one line naming %s", args, msg, tc.flag)
		}
		if out.Len() != 0 {
			t.Errorf("%v: output on a usage error: %q", args, out.String())
		}
	}
}

// TestDeltaProfile writes profiles on the grid i/64 and checks them against
// testdata/hockey/profile_ref.csv (mpmath vertex enumeration, d = 1): each
// delta at a reference eps' is on the upper side of the reference, within
// 1e-12; the file's grid, monotonicity and connect-the-dots masses.
func TestDeltaProfile(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../../testdata/hockey/profile_ref.csv", 7, 108)
	dir := t.TempDir()
	for _, tc := range []struct {
		args   []string
		method string
	}{
		{[]string{"--k", "1", "--c", "0.1", "--eps", "1", "--delta", "0.05"}, "canonical-pair"},
		{[]string{"--k", "2", "--c", "0.1", "--eps", "1", "--delta", "0.05"}, "lifted-canonical-pair"},
		{[]string{"--k", "3", "--c", "0.2", "--eps", "0.5", "--delta", "1e-3"}, "lifted-canonical-pair"},
		{[]string{"--k", "1", "--c", "0.1", "--eps", "2", "--delta", "0"}, "canonical-pair"},
	} {
		path := filepath.Join(dir, "p.json")
		var out, errb bytes.Buffer
		args := append(append([]string{}, tc.args...), "--profile", path, "--profile-step", "0.015625", "--profile-max", "3", "--no-timing")
		if err := runDelta(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if s := errb.String(); !strings.HasPrefix(s, "bernamp: profile: 385 eps' values") || strings.Count(s, "\n") != 1 {
			t.Errorf("%v: stderr %q", args, s)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f profileFile
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		n := len(f.Epsilons)
		if f.Method != tc.method || !f.Proved || !f.Symmetric || f.Lo != -192 || f.Hi != 192 || n != 385 ||
			len(f.Deltas) != n || len(f.Probs) != n || f.Seconds != 0 {
			t.Fatalf("%v: file header %+v", args, f)
		}
		sum := f.InfinityMass
		for i, e := range f.Epsilons {
			if e != float64(f.Lo+i)*f.Disc {
				t.Errorf("%v: epsilons[%d] = %v", args, i, e)
			}
			if i > 0 && f.Deltas[i] > f.Deltas[i-1] {
				t.Errorf("%v: deltas increase at %v", args, e)
			}
			if f.Probs[i] < 0 {
				t.Errorf("%v: negative mass at %v", args, e)
			}
			sum += f.Probs[i]
		}
		if math.Abs(sum-1) > 1e-12 || f.InfinityMass != 0 {
			t.Errorf("%v: masses sum to %v, infinity mass %v (grid beyond log rho: want 0)", args, sum, f.InfinityMass)
		}
		checked := 0
		for _, row := range rows {
			if row[1] != float64(f.K) || row[2] != f.C || row[3] != f.Eps || row[4] != f.Delta {
				continue
			}
			i := int(math.Round(row[5]*64)) + 192
			if f.Epsilons[i] != row[5] {
				continue // 2.19, 2.2: off the grid
			}
			checked++
			if got, want := f.Deltas[i], row[6]; !(got >= want && got <= want+1e-12) {
				t.Errorf("%v eps'=%v: delta %v, reference %v", args, row[5], got, want)
			}
		}
		if checked != 25 {
			t.Errorf("%v: %d reference points checked, want 25", args, checked)
		}
	}
}

// TestDeltaProfileWorkers: the file does not depend on --workers (the grid
// is cut into chunks of 4096; 12001 values make three and a bit).
func TestDeltaProfileWorkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files [2][]byte
	for i, w := range []string{"1", "3"} {
		path := filepath.Join(dir, "p"+w+".json")
		var out, errb bytes.Buffer
		args := []string{"--eps", "1", "--delta", "1e-3", "--k", "2", "--profile", path, "--profile-step", "0.0005", "--profile-max", "3", "--workers", w, "--no-timing"}
		if err := runDelta(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var err error
		if files[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("profile differs between --workers 1 and 3")
	}
}
