package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Google's dp_accounting (Python) as the compose experiment's anchor: the
// Gaussian's PLD built and composed by dp_accounting, timed in the same run
// (when a Python with dp_accounting is found), and the exact amplified
// profile composed by dp_accounting from testdata/ref/compose_ref.csv
// (values only, computed offline at discretization 1e-4).

// dpaScript composes the Gaussian's pessimistic PLD (connect the dots,
// sensitivity 1) T times at discretization h and prints eps at delta and
// the median time of runs runs (inside Python: no start-up or import).
const dpaScript = `
import sys, time
from dp_accounting.pld import privacy_loss_distribution as P
sigma, T, delta, h, runs = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
ts = []
for _ in range(runs):
    t = time.perf_counter()
    pld = P.from_gaussian_mechanism(sigma, value_discretization_interval=h)
    eps = pld.self_compose(T).get_epsilon_for_delta(delta)
    ts.append(time.perf_counter() - t)
ts.sort()
print(repr(eps), repr(ts[(len(ts) - 1) // 2]))
`

// dpAccounting is a Python interpreter that imports dp_accounting, with
// the PYTHONPATH it needs ("" when installed).
type dpAccounting struct {
	python, path string
}

// findDPAccounting looks for a Python that imports dp_accounting: the
// interpreter $BERNAMP_PYTHON, else python3, else /usr/bin/python3; with
// $BERNAMP_DP_ACCOUNTING on PYTHONPATH, else the installed package, else
// the vendored copy beside the repository (../shared/vendor/dp_accounting,
// as python/tests uses). It returns nil and why when none does.
func findDPAccounting(ctx context.Context) (*dpAccounting, string) {
	pythons := []string{"python3", "/usr/bin/python3"}
	if p := os.Getenv("BERNAMP_PYTHON"); p != "" {
		pythons = []string{p}
	}
	paths := []string{""}
	if p := os.Getenv("BERNAMP_DP_ACCOUNTING"); p != "" {
		paths = []string{p}
	} else if root, err := repoRoot(); err == nil {
		if v := filepath.Join(filepath.Dir(root), "shared", "vendor", "dp_accounting"); isDir(v) {
			paths = append(paths, v)
		}
	}
	for _, py := range pythons {
		if _, err := exec.LookPath(py); err != nil {
			continue
		}
		for _, path := range paths {
			d := &dpAccounting{python: py, path: path}
			cctx, cancel := context.WithTimeout(ctx, time.Minute)
			err := d.command(cctx, "-c", "import dp_accounting.pld.privacy_loss_distribution").Run()
			cancel()
			if err == nil {
				return d, ""
			}
		}
	}
	return nil, "no Python with dp_accounting (and numpy, scipy) found: set BERNAMP_PYTHON and BERNAMP_DP_ACCOUNTING"
}

func (d *dpAccounting) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, d.python, args...)
	if d.path != "" {
		cmd.Env = append(os.Environ(), "PYTHONPATH="+d.path)
	}
	return cmd
}

// String names the interpreter and the package's origin.
func (d *dpAccounting) String() string {
	if d.path == "" {
		return d.python
	}
	return fmt.Sprintf("%s with PYTHONPATH=%s", d.python, d.path)
}

// gaussian runs dpaScript: eps and the median time of runs runs.
func (d *dpAccounting) gaussian(ctx context.Context, sigma float64, steps int, delta, h float64, runs int) (float64, time.Duration, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var stderr strings.Builder
	cmd := d.command(cctx, "-c", dpaScript, fmt.Sprint(sigma), fmt.Sprint(steps), fmt.Sprint(delta), fmt.Sprint(h), fmt.Sprint(runs))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("dp_accounting: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("dp_accounting: unexpected output %q", out)
	}
	eps, err1 := strconv.ParseFloat(f[0], 64)
	sec, err2 := strconv.ParseFloat(f[1], 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("dp_accounting: %v", err)
	}
	return eps, time.Duration(sec * 1e9), nil
}

// composeRef reads testdata/ref/compose_ref.csv: dp_accounting's eps of
// the composed exact amplified profile (kind exact_pld) at (sigma, c, n,
// T, delta), discretization h, keyed by n and T for the given sigma, c and
// delta. A missing file gives an empty map.
func composeRef(sigma, c, delta float64) (map[[2]int]float64, float64) {
	ref := map[[2]int]float64{}
	h := 0.0
	root, err := repoRoot()
	if err != nil {
		return ref, h
	}
	f, err := os.Open(filepath.Join(root, "testdata", "ref", "compose_ref.csv"))
	if err != nil {
		return ref, h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r := strings.Split(sc.Text(), ",")
		if len(r) != 8 || r[0] != "exact_pld" {
			continue
		}
		var v [7]float64
		ok := true
		for i := range v {
			x, err := strconv.ParseFloat(r[i+1], 64)
			v[i], ok = x, ok && err == nil
		}
		if ok && v[0] == sigma && v[1] == c && v[4] == delta {
			ref[[2]int{int(v[2]), int(v[3])}] = v[6]
			h = v[5]
		}
	}
	return ref, h
}
