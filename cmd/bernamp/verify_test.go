package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/certify"
)

// TestPostCertificateOutVerify runs post with --certificate-out at two
// points of Figure 2 and verify on the files written: exit 0 and one
// accept line per file; a file with its claim lowered is rejected (exit 1,
// the reason on stdout); a malformed file is a usage error (exit 2), a
// missing one a runtime failure (exit 1); --timeout rejects a file not
// re-proved within it.
func TestPostCertificateOutVerify(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runArgs(t, "post", "--d", "1", "--c", "0.1", "--alpha", "5", "--eps", "1,2", "--certificate-out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("post: exit %d: %s", code, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 2 {
		t.Fatalf("%d certificate files, want 2: %v", len(files), files)
	}
	code, out, errs := runArgs(t, append([]string{"verify", "--workers", "2"}, files...)...)
	if code != 0 || strings.Count(out, ": accept (") != 2 {
		t.Fatalf("verify: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lowered := strings.Replace(string(b), `"claim": "7.`, `"claim": "6.`, 1)
	if lowered == string(b) {
		t.Fatalf("the claim of %s does not start with 7. (0.7 written exactly, 7.3...e-01)", files[0])
	}
	bad := filepath.Join(dir, "lowered.json")
	if err := os.WriteFile(bad, []byte(lowered), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runArgs(t, "verify", files[1], bad)
	if code != 1 || !strings.Contains(out, "lowered.json: reject (pieces at d 1, k 1, c 0.1, alpha 5, eps 1, claim 0.6") || !strings.Contains(out, ": accept (") {
		t.Errorf("lowered claim: exit %d, stdout %q", code, out)
	}
	// --timeout: a limit the check cannot meet rejects the file (exit 1,
	// the reason on stdout); a generous one accepts it; a negative one is
	// a usage error.
	code, out, _ = runArgs(t, "verify", "--timeout", "1ns", files[0])
	if code != 1 || !strings.Contains(out, ": reject (pieces at d 1, k 1, c 0.1, alpha 5, eps 1, claim 0.7") || !strings.Contains(out, "not re-proved within --timeout 1ns") {
		t.Errorf("--timeout 1ns: exit %d, stdout %q", code, out)
	}
	if code, out, _ = runArgs(t, "verify", "--timeout", "10m", files[0]); code != 0 || !strings.Contains(out, ": accept (") {
		t.Errorf("--timeout 10m: exit %d, stdout %q", code, out)
	}
	if code, _, errs = runArgs(t, "verify", "--timeout", "-1s", files[0]); code != 2 || !strings.Contains(errs, "--timeout") {
		t.Errorf("--timeout -1s: exit %d, stderr %q", code, errs)
	}
	// A row whose post_upper is the closed form gets a closed-form file.
	cf := t.TempDir()
	if code, _, errs := runArgs(t, "post", "--d", "15", "--c", "0.01", "--alpha", "50", "--eps", "0.1", "--certificate-out", cf, "--quiet"); code != 0 {
		t.Fatalf("post: exit %d: %s", code, errs)
	}
	code, out, _ = runArgs(t, "verify", filepath.Join(cf, "d15-k1-c0.01-alpha50-eps0.1.json"))
	if code != 0 || !strings.Contains(out, ": accept (closed-form at d 15, k 1, c 0.01, alpha 50, eps 0.1: claim 0.1 >= bound 0.1)") {
		t.Errorf("closed form: exit %d, stdout %q", code, out)
	}
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"format": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
	}{{[]string{"verify", junk}, 2}, {[]string{"verify"}, 2}, {[]string{"verify", filepath.Join(dir, "missing.json")}, 1}} {
		if code, _, errs := runArgs(t, c.args...); code != c.code || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %d and one line", c.args, code, errs, c.code)
		}
	}
}

// TestVerifyFallbackMethod: a pieces-lp certificate (the fallback, forced
// by certify.Fault at n = 2, c 0.1, alpha 5, eps 1) is written like the
// pieces one and verify says which method it checked; a row whose
// post_upper is a pieces bound with no file is an error.
func TestVerifyFallbackMethod(t *testing.T) {
	c, err := certify.Certify(context.Background(), 2, 0.1, 5, 1, &certify.Settings{Tiling: true, Fault: certify.Fault{MoveL1: 0.01}})
	if err != nil || c.Method != certify.MethodPiecesLP {
		t.Fatalf("method %q, %v: the fault did not force pieces-lp", c.Method, err)
	}
	dir := t.TempDir()
	r := bernamp.Result{Params: bernamp.Params{D: 1, K: 2, C: 0.1, Alpha: 5, Eps: 1}, PostUpper: c.Upper, Method: bernamp.MethodPieces, Certificate: c.File(1, 2)}
	if err := writeCertificate(dir, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "d1-k2-c0.1-alpha5-eps1.json")
	code, out, errs := runArgs(t, "verify", path)
	if code != 0 || !strings.Contains(out, ": accept (pieces (pieces-lp) at d 1, k 2, c 0.1, alpha 5, eps 1: claim ") {
		t.Errorf("verify: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	r.Certificate = nil
	if err := writeCertificate(t.TempDir(), r); err == nil {
		t.Error("a pieces row without its file was written silently")
	}
}

// TestPostRangeClosedFormOut: a --range row whose post_upper is ub (the
// ranges' closed form; --certify=false) says check verified, and
// --certificate-out writes its closed-form file with groups, which verify
// accepts; lowered, it is rejected.
func TestPostRangeClosedFormOut(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs(t, "post", "--range", "0.05:0.5,0.1:0.6,0.05:0.5", "--k", "2", "--alpha", "5", "--eps", "50",
		"--certify=false", "--certificate-out", dir)
	if code != 0 {
		t.Fatalf("post: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], ",check,") {
		t.Fatalf("post: stdout %q", out)
	}
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	col := map[string]string{}
	for i, h := range head {
		col[h] = row[i]
	}
	if col["check"] != "verified" || col["post_upper"] != col["ub"] {
		t.Errorf("post: check %q, post_upper %q, ub %q; want verified on ub", col["check"], col["post_upper"], col["ub"])
	}
	path := filepath.Join(dir, "closed-d3-k2-r0.05_0.5x4-r0.1_0.6x2-alpha5-eps50.json")
	code, out, _ = runArgs(t, "verify", path)
	if code != 0 || !strings.Contains(out, ": accept (closed-form at d 3, k 2, ranges [0.05, 0.5] x 4; [0.1, 0.6] x 2, alpha 5, eps 50: claim 11.8453") {
		t.Errorf("verify: exit %d, stdout %q", code, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lowered := strings.Replace(string(b), `"claim": "1.18`, `"claim": "1.17`, 1)
	if lowered == string(b) {
		t.Fatalf("the claim of %s does not start with 1.18", path)
	}
	bad := filepath.Join(dir, "lowered.json")
	if err := os.WriteFile(bad, []byte(lowered), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ = runArgs(t, "verify", bad); code != 1 || !strings.Contains(out, "below the checked bound") {
		t.Errorf("lowered: exit %d, stdout %q", code, out)
	}
}
