package bernamp

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHouseMap: docs/packages.md lists every package of the module, and
// only those, each on its floor: 0 for a package that imports none of the
// module, else one above the highest floor it imports (go list, on this
// platform and on js/wasm for web/wasm). A package added or removed, or an
// import that moves a floor (or points upward: the floors could not then
// be assigned), fails here until the page is updated. (The page was
// missing: the "22 packages on 7 floors" had no map to check.)
func TestHouseMap(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const module = "github.com/bernamp/bernamp"
	short := func(p string) string {
		if p == module {
			return "."
		}
		return strings.TrimPrefix(p, module+"/")
	}
	imports := map[string][]string{}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %v: %v", env, err)
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			p := short(f[0])
			for _, q := range f[1:] {
				if (q == module || strings.HasPrefix(q, module+"/")) && !slices.Contains(imports[p], short(q)) {
					imports[p] = append(imports[p], short(q))
				}
			}
			if imports[p] == nil {
				imports[p] = []string{}
			}
		}
	}
	floor := map[string]int{}
	var floorOf func(p string, seen []string) int
	floorOf = func(p string, seen []string) int {
		if slices.Contains(seen, p) {
			t.Fatalf("import cycle: %v", append(seen, p))
		}
		if f, ok := floor[p]; ok {
			return f
		}
		f := 0
		for _, q := range imports[p] {
			f = max(f, 1+floorOf(q, append(seen, p)))
		}
		floor[p] = f
		return f
	}
	for p := range imports {
		floorOf(p, nil)
	}

	doc, err := os.Open("docs/packages.md")
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	row := regexp.MustCompile("^\\| (\\d+) \\| `([^`]+)`")
	documented := map[string]int{}
	sc := bufio.NewScanner(doc)
	for sc.Scan() {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		p := m[2]
		f, _ := strconv.Atoi(m[1])
		if _, dup := documented[p]; dup {
			t.Errorf("docs/packages.md lists %s twice", p)
		}
		documented[p] = f
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for p, f := range floor {
		switch df, ok := documented[p]; {
		case !ok:
			t.Errorf("package %s (floor %d, imports %v) is not in docs/packages.md", p, f, imports[p])
		case df != f:
			t.Errorf("docs/packages.md puts %s on floor %d; its imports %v put it on floor %d", p, df, imports[p], f)
		}
	}
	for p := range documented {
		if _, ok := floor[p]; !ok {
			t.Errorf("docs/packages.md lists %s, which go list does not", p)
		}
	}
	if len(floor) < 20 {
		t.Errorf("only %d packages from go list", len(floor))
	}
}
