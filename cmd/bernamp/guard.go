package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Size guards of the commands that do not go through Post's reach check
// (doc.go, "--max-memory"): each estimates its work or memory from its flags
// and input file sizes before it starts and refuses in one line (exit 2)
// past the cap.
const (
	// maxOrders is the most Rényi orders curve and calibrate take: each
	// order is one Post (dp_accounting's default list has 156).
	maxOrders = 10_000
	// inputBytesFactor is how many bytes of memory a byte of an input
	// file (CSV rows, curve, grid or certificate file) costs once parsed,
	// at most, by estimate: an input file may take --max-memory /
	// inputBytesFactor bytes.
	inputBytesFactor = 16
)

// listLen returns how many values the list or start:stop:step range s
// gives, without expanding it: commas + 1 for a list, floor((stop -
// start)/step) + 1 for a range. A malformed s gives 0 and is left to its
// parser, which names the fault.
func listLen(s string) float64 {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, ":") {
		return float64(strings.Count(s, ",") + 1)
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0
	}
	var x [3]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		x[i] = v
	}
	if !(x[2] > 0) || x[1] < x[0] {
		return 0
	}
	return math.Floor((x[1]-x[0])/x[2]) + 1
}

// checkOrders refuses an --orders list or range of more than maxOrders
// values before it is expanded.
func checkOrders(s string) error {
	if n := listLen(s); n > maxOrders {
		return usagef("--orders: %.0f orders, more than %d (each is one Post; dp_accounting's default has 156)", n, maxOrders)
	}
	return nil
}

// checkInputSize refuses an input file larger than maxMem/inputBytesFactor
// (maxMem 0: the default cap, 1 GiB), named by flag in the message. A file
// that cannot be stat'ed (missing, "-" for stdin) passes: its reader
// reports it.
func checkInputSize(flag, path string, maxMem int64) error {
	if maxMem <= 0 {
		maxMem = 1 << 30
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	if limit := maxMem / inputBytesFactor; st.Size() > limit {
		return usagef("%s: %s is %d bytes, more than %d (--max-memory %s / %d)", flag, path, st.Size(), limit, fmtBytes(maxMem), inputBytesFactor)
	}
	return nil
}

// fmtBytes writes n as a whole number of GiB, MiB or KiB where it is one,
// else as bytes.
func fmtBytes(n int64) string {
	for _, u := range []struct {
		s string
		b int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.b == 0 {
			return fmt.Sprintf("%d%s", n/u.b, u.s)
		}
	}
	return strconv.FormatInt(n, 10)
}
