package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestDemoDir: demo writes its files into --dir (default bernamp-demo),
// made with 0777 less the umask, and nothing else in the current folder:
// the CSV and figure under their default or relative names, the
// certificates of --verify in DIR/certificates/<preset>/ (those of an
// earlier run removed). Absolute names go where they say, and then no
// folder is made. Not parallel: it changes the folder and the umask.
func TestDemoDir(t *testing.T) {
	if testing.Short() {
		t.Skip("demo solves and checks 150 points")
	}
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	work := t.TempDir()
	t.Chdir(work)

	certs := filepath.Join("bernamp-demo", "certificates", "fig3")
	if err := os.MkdirAll(certs, 0o777); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(certs, "d9-k9-c0.1-alpha5-eps1.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs(t, "demo", "--preset", "fig3", "--verify", "--no-timing", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	abs := func(p string) string { return filepath.Join(work, p) }
	for _, want := range []string{"CSV: " + abs("bernamp-demo/fig3.csv"), "Figure: " + abs("bernamp-demo/fig3.png"),
		"verify: 150 of 150 exported certificates"} {
		if !strings.Contains(stdout, want+"\n") && !strings.Contains(stdout, want+" ") {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the certificate of an earlier run is still there: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(certs, "*.json"))
	if len(files) != 150 {
		t.Errorf("%d certificates in %s, want 150", len(files), certs)
	}
	if fi, err := os.Stat("bernamp-demo"); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bernamp-demo: %v, %v; want a folder -rwxr-xr-x", fi, err)
	}
	if names := dirNames(t, "."); !slices.Equal(names, []string{"bernamp-demo"}) {
		t.Errorf("the current folder holds %v, want only bernamp-demo", names)
	}
	if names := dirNames(t, "bernamp-demo"); !slices.Equal(names, []string{"certificates", "fig3.csv", "fig3.png"}) {
		t.Errorf("bernamp-demo holds %v", names)
	}

	// Relative names are in --dir, made with its parents; absolute ones
	// are not, and with no file in it --dir is not made.
	out := filepath.Join(work, "elsewhere.csv")
	code, stdout, stderr = runArgs(t, "demo", "--preset", "fig3", "--dir", "a/b", "--out", "rows.csv", "--figure", out+".svg", "--no-timing", "--quiet", "--timeout", "1ms")
	if code != 0 || !strings.Contains(stdout, "CSV: "+abs("a/b/rows.csv")+"\n") || !strings.Contains(stdout, "Figure: "+out+".svg\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %s", code, stdout, stderr)
	}
	code, _, stderr = runArgs(t, "demo", "--preset", "fig3", "--dir", "never", "--out", out, "--figure", "", "--no-timing", "--quiet", "--timeout", "1ms")
	if _, err := os.Stat("never"); code != 0 || !os.IsNotExist(err) {
		t.Errorf("exit %d (%s); --dir made with no file in it: %v", code, stderr, err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// TestDemoHelpDefaults: demo -h states demo's own defaults (a CSV file in
// --dir, 3 s a point), not post's (stdout, no limit).
func TestDemoHelpDefaults(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runArgs(t, "demo", "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"-dir string", `(default "bernamp-demo")`, "(default <preset>.csv in --dir)",
		"(default <preset>.png in --dir", "(default 3s)", "DIR/certificates/<preset>/"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo -h lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "default stdout") {
		t.Errorf("demo -h says a default of stdout:\n%s", stdout)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
