package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
)

// readPlan reads the costs of grid --plan-from: the seconds column of an
// earlier run's output (a CSV file of bernamp rows, such as merge's file or
// one shard's), matched to the grid points by d,k,c,alpha,eps. It returns
// the cost of each grid point in seconds, -1 where the file has no row for
// it (the estimate is used there), and how many points it found. Rows of
// points not in the grid are ignored; a point given twice, a file with no
// rows or one whose seconds are all 0 (written with --no-timing) is an
// error, as is a missing or garbled file.
func readPlan(path string, g *grid) (costs []float64, found int, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, 0, fmt.Errorf("--plan-from: %v", err)
	}
	rows, _, err := readCSVRows(path, false)
	if err != nil {
		return nil, 0, fmt.Errorf("--plan-from: %v", err)
	}
	if len(rows) == 0 {
		return nil, 0, fmt.Errorf("--plan-from: %s: no rows", path)
	}
	col := slices.Index(header, "seconds")
	seconds := make(map[string]float64, len(rows))
	timed := false
	for n, rec := range rows {
		k := pointKey(rec)
		if _, ok := seconds[k]; ok {
			return nil, 0, fmt.Errorf("--plan-from: %s: row %d: point %s appears twice", path, n+1, k)
		}
		s, _ := strconv.ParseFloat(rec[col], 64) // checked by readCSVRows
		seconds[k] = s
		timed = timed || s > 0
	}
	if !timed {
		return nil, 0, fmt.Errorf("--plan-from: %s: every seconds value is 0 (a run with --no-timing?): no costs to plan with", path)
	}
	costs = make([]float64, g.n)
	for i := range costs {
		costs[i] = -1
		if s, ok := seconds[gridKey(g, i)]; ok {
			costs[i] = s
			found++
		}
	}
	return costs, found, nil
}
