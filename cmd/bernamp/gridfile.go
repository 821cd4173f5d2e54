package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/bernamp/bernamp/solver"
)

// gridFile is the JSON form of a sweep, so that it can be versioned: the
// five axes, each a string in the syntax of the flags ("0.1:5:0.1",
// "1,2,4"), a number or an array of numbers, and the solver settings.
//
//	{"command": "post", "d": [1, 2], "k": 1, "c": "0.01,0.1", "alpha": 50,
//	 "eps": "0.1:5:0.1", "tol": 1e-9, "timeout": "400ms", "certify": true}
type gridFile struct {
	Command string   `json:"command"` // post (default) or bounds
	D       *axis    `json:"d"`
	K       *axis    `json:"k"`
	C       *axis    `json:"c"`
	Alpha   *axis    `json:"alpha"`
	Eps     *axis    `json:"eps"`
	Tol     *float64 `json:"tol"`     // default 1e-9
	Timeout string   `json:"timeout"` // Go duration per point; default none
	Method  string   `json:"method"`  // reduced (default) or full
	Certify *bool    `json:"certify"` // default true
	Comment string   `json:"comment"` // free text, ignored
}

// axis is the value of one axis, as the flag would take it.
type axis string

func (a *axis) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = axis(s)
	case len(b) > 0 && b[0] == '[':
		var vs []json.Number
		if err := json.Unmarshal(b, &vs); err != nil {
			return fmt.Errorf("an axis array must hold numbers: %v", err)
		}
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = v.String()
		}
		*a = axis(strings.Join(parts, ","))
	default:
		var v json.Number
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("an axis must be a string, a number or an array of numbers, not %s", b)
		}
		*a = axis(v.String())
	}
	return nil
}

// readGridFile reads and checks a grid file and returns its command and
// options: the axes and the solver settings, with the defaults of the flags.
func readGridFile(path string) (cmd string, o options, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", o, err
	}
	var f gridFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err == io.EOF {
		return "", o, usagef("%s: empty file, want a JSON object", path)
	} else if err != nil {
		return "", o, usagef("%s: %v", path, err)
	}
	if dec.More() {
		return "", o, usagef("%s: more than one JSON value", path)
	}
	axes := []struct {
		name string
		a    *axis
		dst  *string
	}{{"d", f.D, &o.grid.d}, {"k", f.K, &o.grid.k}, {"c", f.C, &o.grid.c}, {"alpha", f.Alpha, &o.grid.alpha}, {"eps", f.Eps, &o.grid.eps}}
	for _, x := range axes {
		if x.a == nil {
			return "", o, usagef("%s: no %q axis", path, x.name)
		}
		*x.dst = string(*x.a)
	}
	switch f.Command {
	case "", "post":
		cmd = "post"
	case "bounds":
		cmd = "bounds"
	default:
		return "", o, usagef("%s: command is %q, must be post or bounds", path, f.Command)
	}
	o.tol, o.method, o.certify = 1e-9, solver.MethodReduced, true
	if f.Tol != nil {
		o.tol = *f.Tol
	}
	if f.Method != "" {
		o.method = f.Method
	}
	if f.Certify != nil {
		o.certify = *f.Certify
	}
	if f.Timeout != "" {
		if o.timeout, err = time.ParseDuration(f.Timeout); err != nil {
			return "", o, usagef("%s: timeout: %v", path, err)
		}
	}
	return cmd, o, nil
}

// runGridFile runs the sweep of a grid file: bernamp grid [flags] FILE.json.
func runGridFile(ctx context.Context, args []string, stdout, stderr io.Writer, term tty) error {
	// The file may come before or after the flags.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append(args[1:len(args):len(args)], args[0])
	}
	var flags options
	fs := newFlagSet("grid", &flags, gridOpts|runOpts)
	files, err := parseFlagsArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("grid: want one grid file after the flags, got %d arguments", len(files))
	}
	path := files[0]
	cmd, o, err := readGridFile(path)
	if err != nil {
		return err
	}
	// The file fixes the grid and the solver; the flags say how to run it.
	o.format, o.force, o.out, o.resume, o.shard, o.quiet = flags.format, flags.force, flags.out, flags.resume, flags.shard, flags.quiet
	o.workers, o.noTiming = flags.workers, flags.noTiming
	g, err := newGrid(o.grid, o.force)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	groups := gridOpts | runOpts
	if cmd == "post" {
		groups |= solverOpts
	}
	j, err := newJob(cmd, g, &o, groups, term)
	if err != nil {
		return err
	}
	return j.run(ctx, stdout, stderr, nil)
}
