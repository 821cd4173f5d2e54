package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
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
	Tol     *float64 `json:"tol,omitempty"`     // default 1e-9
	Timeout string   `json:"timeout,omitempty"` // Go duration per point; default none
	Method  string   `json:"method,omitempty"`  // reduced (default) or full
	Certify *bool    `json:"certify,omitempty"` // default true
	Comment string   `json:"comment,omitempty"` // free text, ignored
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

// runGridFile runs the sweep of a grid file: bernamp grid [flags] FILE.json;
// with --write FILE it writes the grid file of the axis and solver flags
// instead (writeGridFile).
func runGridFile(ctx context.Context, args []string, stdout, stderr io.Writer, term tty) error {
	// The file may come before or after the flags.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append(args[1:len(args):len(args)], args[0])
	}
	var flags options
	fs := newFlagSet("grid", &flags, gridOpts|runOpts|axisOpts)
	// The flags of --write: the axes above, the command and post's solver
	// settings, as post defines them.
	var write, command string
	fs.StringVar(&write, "write", "", "write the grid file of the axis flags and solver settings to FILE (- for stdout) instead of running one")
	fs.StringVar(&command, "command", "post", "with --write: the command of the grid file, post or bounds")
	fs.StringVar(&flags.planFrom, "plan-from", "", "CSV file of an earlier run of the grid (such as merge's): its seconds column is each point's cost for --shard's split and the run order; points not in it get the estimate")
	var noCheck bool
	fs.BoolVar(&noCheck, "no-check", false, "skip the independent checker of post's certificates (checked by default)")
	solverFlags := newFlagSet("", &flags, solverOpts|withoutWorkers|withoutNoTiming|withoutMaxMemory)
	for _, name := range gridFileSolverFlags {
		f := solverFlags.Lookup(name)
		fs.Var(f.Value, f.Name, "with --write: "+f.Usage)
	}
	for _, name := range []string{"d", "k", "c", "alpha", "eps"} {
		fs.Lookup(name).Usage = "with --write: " + fs.Lookup(name).Usage
	}
	files, err := parseFlagsArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["write"] {
		return writeGridFile(write, command, &flags, files, set, stdout)
	}
	for _, name := range append([]string{"d", "k", "c", "alpha", "eps", "command"}, gridFileSolverFlags...) {
		if set[name] {
			return usagef("grid: --%s goes with --write; to run a grid file, change the file (or run post with the flags)", name)
		}
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
	o.workers, o.noTiming, o.memFlag, o.planFrom = flags.workers, flags.noTiming, flags.memFlag, flags.planFrom
	o.check = !noCheck
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

// gridFileSolverFlags are the solver flags of post that a grid file holds.
var gridFileSolverFlags = []string{"tol", "timeout", "method", "certify"}

// writeGridFile writes the grid file of grid --write: the axes as given
// (the flags' syntax, which the file takes), the command, and for post the
// solver settings, each written out so that the file states them. The
// grid is checked as post or bounds would check it, so a file written is
// a file that runs (with --force for a large grid).
func writeGridFile(path, command string, o *options, args []string, set map[string]bool, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("grid: --write takes no grid file argument, got %q", args[0])
	}
	if path == "" {
		return usagef("--write: empty file name")
	}
	for _, name := range []string{"out", "resume", "shard", "format", "quiet", "workers", "no-timing", "max-memory"} {
		if set[name] {
			return usagef("grid: --%s does not go with --write (it says how to run a grid file)", name)
		}
	}
	f := gridFile{Command: command}
	axes := []struct {
		dst **axis
		v   string
	}{{&f.D, o.grid.d}, {&f.K, o.grid.k}, {&f.C, o.grid.c}, {&f.Alpha, o.grid.alpha}, {&f.Eps, o.grid.eps}}
	for _, x := range axes {
		a := axis(x.v)
		*x.dst = &a
	}
	switch command {
	case "post":
		if err := checkOptions(o, solverOpts|withoutWorkers); err != nil {
			return err
		}
		f.Tol, f.Method, f.Certify = &o.tol, o.method, &o.certify
		if o.timeout > 0 {
			f.Timeout = o.timeout.String()
		}
	case "bounds":
		for _, name := range gridFileSolverFlags {
			if set[name] {
				return usagef("--%s: bounds has no solver settings", name)
			}
		}
	default:
		return usagef("--command: command is %q, must be post or bounds", command)
	}
	g, err := newGrid(o.grid, o.force)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s on %d points; run it with bernamp grid %s\n", path, command, g.n, path)
	return nil
}
