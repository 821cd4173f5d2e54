package testref

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFloats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(path, []byte("a,b,c\n1,2.5,x\n3,,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, present := Floats(t, path, 2, 2)
	if len(rows) != 2 || rows[0][1] != 2.5 || rows[1][0] != 3 || present[1][1] || !present[0][1] {
		t.Errorf("rows %v, present %v", rows, present)
	}
}
