package main

import (
	"bytes"
	"strings"
	"testing"
)

// A smoke run of the harness: the quick suite with one repetition writes a
// report with every quick case.
func TestQuickReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick suite")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-quick", "-runs", "1"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, c := range suite() {
		if !c.long && !strings.Contains(out.String(), "| "+c.name+" |") {
			t.Errorf("report lacks %q:\n%s", c.name, out.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-runs", "0"}, &out, &errb); code != 2 {
		t.Errorf("-runs 0: exit %d, want 2", code)
	}
}
