package web_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/web"
)

// TestStatic checks that the page's own files are embedded and that every
// file it loads is named relative to its directory (no other origin).
func TestStatic(t *testing.T) {
	t.Parallel()
	static := web.Static()
	for _, name := range []string{"index.html", "app.js", "worker.js", "style.css", "presets.json"} {
		b, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatalf("%s not embedded: %v", name, err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(string(b), bad) && !(name == "index.html" || name == "app.js") {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
	// The two absolute URLs the page has are the SVG namespace and none
	// other.
	for _, name := range []string{"index.html", "app.js"} {
		b, _ := fs.ReadFile(static, name)
		s := strings.ReplaceAll(string(b), "http://www.w3.org/2000/svg", "")
		if strings.Contains(s, "http://") || strings.Contains(s, "https://") {
			t.Errorf("%s names another origin", name)
		}
	}
}

// TestPresets checks each preset of the page against its grid file in
// testdata/grids: the same axes and time limit, except that a preset may
// keep only some of the grid's values of d.
func TestPresets(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(web.Static(), "presets.json")
	if err != nil {
		t.Fatal(err)
	}
	var presets []map[string]string
	if err := json.Unmarshal(b, &presets); err != nil {
		t.Fatal(err)
	}
	if len(presets) == 0 {
		t.Fatal("no presets")
	}
	for _, p := range presets {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "grids", p["grid"]+".json"))
		if err != nil {
			t.Fatalf("preset %s: %v", p["name"], err)
		}
		var g map[string]any
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		for _, axis := range []string{"k", "c", "alpha", "eps", "timeout"} {
			if got, want := p[axis], list(g[axis]); got != want {
				t.Errorf("preset %s: %s is %q, grid %s has %q", p["name"], axis, got, p["grid"], want)
			}
		}
		all := strings.Split(list(g["d"]), ",")
		for _, d := range strings.Split(p["d"], ",") {
			if !slices.Contains(all, d) {
				t.Errorf("preset %s: d = %s is not in grid %s (d = %v)", p["name"], d, p["grid"], all)
			}
		}
	}
}

// list writes a grid file's value (a number, a list or a range string) as
// a field of the page.
func list(v any) string {
	switch v := v.(type) {
	case []any:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return strings.Join(s, ",")
	default:
		return fmt.Sprint(v)
	}
}
