package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxListed is the number of missing points a merge error names.
const maxListed = 5

// runMerge combines the CSV files of the shards of a grid into one file in
// grid order: bernamp merge (--grid FILE.json | axis flags) [--out FILE]
// SHARD.csv... Every point of the grid must appear in exactly one file.
func runMerge(args []string, stdout io.Writer) error {
	var (
		o        options
		gridPath string
	)
	const groups = axisOpts | withoutWorkers | withoutNoTiming // merge copies rows: no work to share, no times
	fs := newFlagSet("merge", &o, groups)
	fs.Lookup("max-memory").Usage = fmt.Sprintf("memory cap, e.g. 512MiB, 4GiB or bytes: a shard or grid file of more than the cap / %d bytes is refused", inputBytesFactor)
	fs.StringVar(&gridPath, "grid", "", "grid file of the sweep (instead of the axis flags)")
	fs.StringVar(&o.out, "out", "", "CSV file to write, replaced atomically (default stdout)")
	fs.BoolVar(&o.force, "force", false, fmt.Sprintf("allow grids of more than %d points", maxGrid))
	files, err := parseFlagsArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("merge: no shard files")
	}
	if err := checkOptions(&o, groups); err != nil {
		return err
	}
	for _, path := range append([]string{gridPath}, files...) {
		if err := checkInputSize("merge", path, o.maxMem); err != nil {
			return err
		}
	}
	if gridPath != "" {
		axisSet := false
		fs.Visit(func(f *flag.Flag) {
			axisSet = axisSet || strings.Contains(" d k c alpha eps ", " "+f.Name+" ")
		})
		if axisSet {
			return usagef("merge: give the grid either by --grid or by the axis flags, not both")
		}
		var fo options
		if _, fo, err = readGridFile(gridPath); err != nil {
			return err
		}
		o.grid = fo.grid
	}
	g, err := newGrid(o.grid, o.force)
	if err != nil {
		return err
	}

	rows := make([][]string, g.n)
	from := make([]string, g.n)
	rank := make(map[string]int, g.n)
	for i := range g.n {
		rank[gridKey(g, i)] = i
	}
	for _, path := range files {
		if _, err := os.Stat(path); err != nil {
			return err // readCSVRows reads a missing file as empty, as --resume needs
		}
		recs, _, err := readCSVRows(path, false)
		if err != nil {
			return err
		}
		for n, r := range recs {
			k := pointKey(r)
			i, ok := rank[k]
			switch {
			case !ok:
				return fmt.Errorf("merge: %s row %d: d,k,c,alpha,eps = %s is not a point of the grid", path, n+1, k)
			case rows[i] != nil:
				return fmt.Errorf("merge: d,k,c,alpha,eps = %s is in both %s and %s", k, from[i], path)
			}
			rows[i], from[i] = r, path
		}
	}
	var missing []string
	for i, r := range rows {
		if r == nil {
			missing = append(missing, gridKey(g, i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("merge: %d of %d points are in no file (a shard not run or not finished; run it again with --resume), first: %s",
			len(missing), g.n, strings.Join(missing[:min(len(missing), maxListed)], "; "))
	}
	if o.out == "" {
		return writeRows(stdout, rows)
	}
	return writeFileAtomic(o.out, func(w io.Writer) error { return writeRows(w, rows) })
}
