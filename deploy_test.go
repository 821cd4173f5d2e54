package bernamp_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeployShown: docs/grids.md shows every file of deploy/ (the batch
// scripts that CI runs on Slurm and checks for Kubernetes) byte for byte,
// each in the fenced block after the line that names it, "`deploy/NAME`:",
// so the page and the tested files are one source.
func TestDeployShown(t *testing.T) {
	doc, err := os.ReadFile("docs/grids.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("deploy/*")
	if err != nil || len(files) < 3 {
		t.Fatalf("deploy/: %v, %v", files, err)
	}
	named := regexp.MustCompile("(?m)^`(deploy/[^`]+)`:\n\n```[a-z]*\n")
	shown := map[string]int{}
	for _, m := range named.FindAllSubmatchIndex(doc, -1) {
		name := string(doc[m[2]:m[3]])
		body, _, ok := strings.Cut(string(doc[m[1]:]), "```")
		if !ok {
			t.Fatalf("docs/grids.md: the block of %s is not closed", name)
		}
		shown[name]++
		want, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("docs/grids.md shows %s: %v", name, err)
			continue
		}
		if body != string(want) {
			t.Errorf("docs/grids.md shows %s other than the file is: copy the file into the page\n page:\n%s\n file:\n%s", name, body, want)
		}
	}
	for _, f := range files {
		if shown[f] != 1 {
			t.Errorf("docs/grids.md shows %s %d times, want once", f, shown[f])
		}
	}
}
