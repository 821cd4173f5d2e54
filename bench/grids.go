package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/internal/valuelist"
)

// gridDir is the folder of the paper's grid files, relative to the
// repository root.
const gridDir = "testdata/grids"

// repoRoot returns the repository root: the nearest folder at or above the
// working directory holding go.mod and testdata/grids (go run ./bench runs
// from the root, go test ./bench from bench/).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isDir(filepath.Join(dir, gridDir)) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no repository root (go.mod beside testdata/grids) at or above the working directory")
		}
		dir = up
	}
}

func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && fi.Mode().IsRegular() }
func isDir(p string) bool  { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

// paperGrid is one of the paper's grids, read from testdata/grids/NAME.json.
type paperGrid struct {
	name string
	pts  []bernamp.Params // in the CLI's order: d, k, c, alpha, eps, eps fastest
	neps int              // eps values per panel (d, k, c, alpha)
}

// loadGrid reads testdata/grids/name.json: the fields d, k, c, alpha and
// eps, each a number, an array of numbers or a string list or range as on
// the command line (package valuelist, as the CLI expands it). With every
// > 1 it keeps only every every-th eps of each panel (eps number every,
// 2 every, ... counting from 1), so every = 10 keeps eps = 1, 2, 3, 4, 5 of
// 0.1:5:0.1.
func loadGrid(name string, every int) (paperGrid, error) {
	root, err := repoRoot()
	if err != nil {
		return paperGrid{}, err
	}
	path := filepath.Join(root, gridDir, name+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		return paperGrid{}, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return paperGrid{}, fmt.Errorf("%s: %w", path, err)
	}
	vals := map[string][]float64{}
	for _, f := range []string{"d", "k", "c", "alpha", "eps"} {
		v, err := gridValues(raw[f])
		if err != nil {
			return paperGrid{}, fmt.Errorf("%s: %s: %w", path, f, err)
		}
		vals[f] = v
	}
	for _, f := range []string{"d", "k"} {
		for _, v := range vals[f] {
			if v != math.Trunc(v) || v < 1 {
				return paperGrid{}, fmt.Errorf("%s: %s: %v is not a positive integer", path, f, v)
			}
		}
	}
	every = max(every, 1)
	g := paperGrid{name: name}
	for _, d := range vals["d"] {
		for _, k := range vals["k"] {
			for _, c := range vals["c"] {
				for _, alpha := range vals["alpha"] {
					kept := 0
					for i, eps := range vals["eps"] {
						if (i+1)%every != 0 {
							continue
						}
						g.pts = append(g.pts, bernamp.Params{D: int(d), K: int(k), C: c, Alpha: alpha, Eps: eps})
						kept++
					}
					g.neps = kept
				}
			}
		}
	}
	if len(g.pts) == 0 {
		return paperGrid{}, fmt.Errorf("%s: no points (every %d)", path, every)
	}
	return g, nil
}

// gridValues decodes one field of a grid file.
func gridValues(m json.RawMessage) ([]float64, error) {
	m = bytes.TrimSpace(m)
	switch {
	case len(m) == 0:
		return nil, errors.New("missing")
	case m[0] == '"':
		var s string
		if err := json.Unmarshal(m, &s); err != nil {
			return nil, err
		}
		return valuelist.Floats(s, 100_000)
	case m[0] == '[':
		var vs []float64
		err := json.Unmarshal(m, &vs)
		return vs, err
	}
	var v float64
	err := json.Unmarshal(m, &v)
	return []float64{v}, err
}
