package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser test loads the page from bernamp serve in headless Chromium
// and checks it against the bernamp binary. It skips, saying why, where
// Chromium or the generated module is missing, unless
// BERNAMP_BROWSER_TEST=require (as in .ci/run), which makes those a failure.
// BERNAMP_CHROMIUM overrides the browser's path. BERNAMP_WEB_SCREENSHOT=FILE
// saves a PNG of the page after a run of Figure 3, of a pasted curve and of
// a composition.

// need skips the test, or fails it under BERNAMP_BROWSER_TEST=require.
func need(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("BERNAMP_BROWSER_TEST") == "require" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func findChromium(t *testing.T) string {
	if p := os.Getenv("BERNAMP_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("BERNAMP_CHROMIUM: %v", err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	need(t, "no Chromium on PATH (apt-get install -y chromium, or set BERNAMP_CHROMIUM): browser test skipped")
	return ""
}

// session is a page loaded from a running bernamp serve.
type session struct {
	t   *testing.T
	bin string // the bernamp binary
	url string
	b   *browser

	mu       sync.Mutex
	requests []string // URLs the page requested
}

func newSession(t *testing.T) *session {
	if testing.Short() {
		t.Skip("browser test: not with -short")
	}
	chromium := findChromium(t)
	if _, err := os.Stat(filepath.Join("static", "bernamp.wasm")); err != nil {
		need(t, "web/static/bernamp.wasm is missing: run go generate ./web (browser test skipped)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bernamp")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/bernamp").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/bernamp: %v\n%s", err, out)
	}
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("bernamp serve: %v", err)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("bernamp serve printed %q, want its URL", line)
	}
	s := &session{t: t, bin: bin, url: strings.Fields(line[i:])[0]}
	s.b, err = startBrowser(chromium, filepath.Join(dir, "profile"), func(m cdpMessage) {
		if m.Method != "Network.requestWillBeSent" {
			return
		}
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			s.mu.Lock()
			s.requests = append(s.requests, p.Request.URL)
			s.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	t.Cleanup(s.b.close)
	for _, m := range []string{"Page.enable", "Runtime.enable", "Network.enable"} {
		if err := s.b.page(m, map[string]any{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.b.page("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	s.navigate(s.url)
	var ms float64
	s.eval(`window.bernampLoadMs`, &ms)
	t.Logf("the page fetched and compiled bernamp.wasm and started the worker in %.0f ms", ms)
	return s
}

// navigate loads url and waits until the page's engine is ready.
func (s *session) navigate(url string) {
	s.t.Helper()
	if err := s.b.page("Page.navigate", map[string]any{"url": url}, nil); err != nil {
		s.t.Fatal(err)
	}
	// Polled from here: a promise awaited in the page would die with the
	// document it started in.
	cond := `!!(document.body && document.body.dataset.engine === 'ready' && location.href.startsWith(` + strconv.Quote(url) + `))`
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		if s.b.eval(cond, &ok) == nil && ok {
			return
		}
		if time.Since(start) > time.Minute {
			s.t.Fatalf("%s: the engine was not ready within a minute", url)
		}
	}
}

// eval evaluates expr in the page, failing the test on an exception.
func (s *session) eval(expr string, out any) {
	s.t.Helper()
	if err := s.b.eval(expr, out); err != nil {
		s.t.Fatalf("evaluating %s: %v", expr, err)
	}
}

// waitFor waits until the JavaScript condition cond holds in the page.
func (s *session) waitFor(cond string, limit time.Duration) {
	s.t.Helper()
	js := fmt.Sprintf(`new Promise((resolve, reject) => {
		const t0 = Date.now();
		(function poll() {
			if (%s) resolve(true);
			else if (Date.now() - t0 > %d) reject(new Error('waited %v; state ' + (document.body && document.body.dataset.state) + ', progress: ' + (document.getElementById('progress') || {}).textContent));
			else setTimeout(poll, 20);
		})();
	})`, cond, limit.Milliseconds(), limit)
	s.eval(js, nil)
}

// solve types the fields as a user would (each field selected, then the
// text inserted by the browser's input pipeline; an empty value clears the
// field) and clicks Solve with the mouse.
func (s *session) solve(fields map[string]string) {
	s.t.Helper()
	s.submit(fields, "solve")
}

// submit types the fields as solve does and clicks the button with id
// button with the mouse.
func (s *session) submit(fields map[string]string, button string) {
	s.t.Helper()
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		v := fields[name]
		sel := fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.focus(); e.select(); if (%q === '') { e.value = ''; e.dispatchEvent(new Event('input')); } })()`, name, v)
		s.eval(sel, nil)
		if v == "" {
			continue
		}
		if err := s.b.page("Input.insertText", map[string]any{"text": v}, nil); err != nil {
			s.t.Fatal(err)
		}
	}
	var at struct{ X, Y float64 }
	s.eval(`(() => { const b = document.getElementById(`+strconv.Quote(button)+`); b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &at)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := s.b.page("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil); err != nil {
			s.t.Fatal(err)
		}
	}
}

// cli runs the bernamp binary and returns stdout, stderr and the exit code.
func (s *session) cli(args ...string) (string, string, int) {
	s.t.Helper()
	cmd := exec.Command(s.bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// workers returns the target ids of the browser's Web Workers.
func (s *session) workers() []string {
	s.t.Helper()
	var res struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	if err := s.b.call("", "Target.getTargets", map[string]any{}, &res); err != nil {
		s.t.Fatal(err)
	}
	var ids []string
	for _, ti := range res.TargetInfos {
		if ti.Type == "worker" {
			ids = append(ids, ti.TargetID)
		}
	}
	return ids
}

// responsive bounds the page's answers while a point that takes minutes
// is being solved; generous, since CI runs other tests on the same cores.
const responsive = 10 * time.Second

// maxULPs is how far the page's values may lie from bernamp post's. The
// page runs the same Go code compiled for js/wasm, where math.Exp and
// math.Log are the portable Go versions; on amd64 they are assembly
// (math/exp_amd64.s, log_amd64.s). Both are within 1 ulp of exact, so the
// last bits of a value may differ (1 ulp observed); the grid values,
// status and conjecture must be equal.
const maxULPs = 4

// ulps returns how many float64 values lie between a and b, both finite and
// of the same sign (else the largest uint64).
func ulps(a, b float64) uint64 {
	if math.Signbit(a) != math.Signbit(b) || math.IsNaN(a) || math.IsNaN(b) {
		if a == b { // +0 and -0
			return 0
		}
		return math.MaxUint64
	}
	x, y := math.Float64bits(a), math.Float64bits(b)
	if x > y {
		return x - y
	}
	return y - x
}

// baseForm is every field, so that no value of an earlier case is left.
func baseForm(d, k, c, alpha, eps, timeout string) map[string]string {
	return map[string]string{"d": d, "k": k, "c": c, "alpha": alpha, "eps": eps, "timeout": timeout}
}

func TestBrowser(t *testing.T) {
	s := newSession(t)

	t.Run("rows equal bernamp post", func(t *testing.T) {
		s.t = t
		// Points that certify within the default limits, so the answer does
		// not depend on the machine's speed; eps as a range checks that the
		// page expands it as the CLI does.
		form := baseForm("1,2", "1,2", "0.1", "5", "0.5:2:1.5", "")
		s.solve(form)
		s.waitFor(`document.body.dataset.state === 'done'`, 60*time.Second)
		var page []map[string]string
		s.eval(`[...document.querySelectorAll('#rows tbody tr')].map(tr =>
			Object.fromEntries([...tr.children].map(td => [td.dataset.col, td.textContent])))`, &page)
		out, stderr, code := s.cli("post", "--d", form["d"], "--k", form["k"], "--c", form["c"], "--alpha", form["alpha"],
			"--eps", form["eps"], "--format", "json", "--no-timing")
		if code != 0 {
			t.Fatalf("bernamp post: exit %d: %s", code, stderr)
		}
		var want []map[string]any
		if err := json.Unmarshal([]byte(out), &want); err != nil {
			t.Fatal(err)
		}
		if len(page) != len(want) || len(want) != 8 {
			t.Fatalf("page shows %d rows, bernamp post gives %d, want 8", len(page), len(want))
		}
		worst := uint64(0)
		for i, w := range want {
			for _, col := range []string{"d", "k", "c", "alpha", "eps"} {
				got, err := strconv.ParseFloat(page[i][col], 64)
				if err != nil || got != w[col].(float64) {
					t.Errorf("row %d %s: page shows %q, bernamp post gives %v", i, col, page[i][col], w[col])
				}
			}
			for _, col := range []string{"lb", "post", "post_upper", "ub"} {
				got, err := strconv.ParseFloat(page[i][col], 64)
				u := ulps(got, w[col].(float64))
				worst = max(worst, u)
				if err != nil || u > maxULPs {
					t.Errorf("row %d %s: page shows %q, bernamp post gives %v (%d ulps apart)", i, col, page[i][col], w[col], u)
				}
			}
			for _, col := range []string{"status", "conjecture"} {
				if page[i][col] != w[col] {
					t.Errorf("row %d %s: page shows %q, bernamp post gives %q", i, col, page[i][col], w[col])
				}
			}
		}
		t.Logf("largest difference between the page and bernamp post: %d ulps", worst)
		// The summary shows the interval of the first row, as the table does.
		var sum [3]string
		s.eval(`['sum-post', 'sum-post-upper', 'sum-status'].map(id => document.getElementById(id).textContent)`, &sum)
		if sum[0] != page[0]["post"] || sum[1] != page[0]["post_upper"] {
			t.Errorf("summary [%s, %s], table row 0 [%s, %s]", sum[0], sum[1], page[0]["post"], page[0]["post_upper"])
		}
		if sum[2] != want[0]["status"] {
			t.Errorf("summary status %q, want %v", sum[2], want[0]["status"])
		}
		var panels int
		s.eval(`document.querySelectorAll('#plot > svg').length`, &panels)
		if panels != 4 { // one per (d, k, c, alpha)
			t.Errorf("%d plot panels, want 4", panels)
		}
	})

	t.Run("bad input shows the CLI's message", func(t *testing.T) {
		s.t = t
		alone := map[string]string{} // the CLI's message for each field alone
		for _, tc := range []struct {
			field string
			form  map[string]string
		}{
			{"c", baseForm("1", "1", "0.7", "5", "1", "")},
			{"d", baseForm("0", "1", "0.1", "5", "1", "")},
			{"k", baseForm("1", "two", "0.1", "5", "1", "")},
			{"alpha", baseForm("1", "1", "0.1", "1", "1", "")},
			{"eps", baseForm("1", "1", "0.1", "5", "1:0:1", "")},
			{"timeout", baseForm("1", "1", "0.1", "5", "1", "-1s")},
		} {
			s.solve(tc.form)
			s.waitFor(`document.body.dataset.state === 'invalid'`, 10*time.Second)
			var got string
			s.eval(`document.getElementById('err-`+tc.field+`').textContent`, &got)
			args := []string{"post", "--d", tc.form["d"], "--k", tc.form["k"], "--c", tc.form["c"], "--alpha", tc.form["alpha"], "--eps", tc.form["eps"]}
			if tc.form["timeout"] != "" {
				args = append(args, "--timeout", tc.form["timeout"])
			}
			_, stderr, code := s.cli(args...)
			want := strings.TrimSuffix(strings.TrimPrefix(stderr, "bernamp: "), "\n")
			if code != 2 || got != want {
				t.Errorf("%s: page shows %q next to the field; bernamp post says %q (exit %d)", tc.field, got, want, code)
			}
			alone[tc.field] = want
		}

		// Every bad field gets its message (the one it gets alone, the
		// CLI's), and a good field none: six bad fields, then two.
		for _, tc := range []struct {
			form map[string]string
			bad  []string
		}{
			{baseForm("0", "two", "0.7", "1", "1:0:1", "-1s"), []string{"d", "k", "c", "alpha", "eps", "timeout"}},
			{baseForm("1", "two", "0.1", "1", "1", ""), []string{"k", "alpha"}},
		} {
			s.solve(tc.form)
			s.waitFor(`document.body.dataset.state === 'invalid'`, 10*time.Second)
			var page struct {
				Msgs     map[string]string `json:"msgs"`
				Marked   []string          `json:"marked"`
				Grid     string            `json:"grid"`
				Progress string            `json:"progress"`
			}
			s.eval(`(() => { const f = ['d', 'k', 'c', 'alpha', 'eps', 'timeout'];
				return {msgs: Object.fromEntries(f.map(n => [n, document.getElementById('err-' + n).textContent])),
					marked: f.filter(n => document.getElementById(n).classList.contains('bad')),
					grid: document.getElementById('err-grid').textContent,
					progress: document.getElementById('progress').textContent}; })()`, &page)
			shown := 0
			for _, field := range []string{"d", "k", "c", "alpha", "eps", "timeout"} {
				want := ""
				if slices.Contains(tc.bad, field) {
					want = alone[field]
				}
				if page.Msgs[field] != want {
					t.Errorf("bad %v: next to %s the page shows %q, want %q", tc.bad, field, page.Msgs[field], want)
				}
				if page.Msgs[field] != "" {
					shown++
				}
			}
			if shown != len(tc.bad) || !slices.Equal(page.Marked, tc.bad) || page.Grid != "" {
				t.Errorf("bad %v: %d messages, fields marked %v, grid error %q; want %d messages, those fields marked, no grid error",
					tc.bad, shown, page.Marked, page.Grid, len(tc.bad))
			}
			if want := fmt.Sprintf("fix the %d fields marked in red", len(tc.bad)); !strings.Contains(page.Progress, want) {
				t.Errorf("bad %v: progress %q, want it to say %q", tc.bad, page.Progress, want)
			}
			t.Logf("%d bad fields: %d messages shown", len(tc.bad), shown)
		}
	})

	t.Run("pasted curve equals bernamp curve --in", func(t *testing.T) {
		s.t = t
		// An accountant's curve as CSV (header, a comment, inf, unsorted),
		// typed into the textarea; the kernel certifies within the default
		// limits, so the answer does not depend on the machine's speed.
		const curve = "# from an accountant\nalpha,eps\n8,1.5\n2,0.25\n4,0.6\n63,inf\n"
		form := map[string]string{"curve": curve, "curve-d": "1", "curve-k": "2", "curve-c": "0.2", "curve-delta": "1e-6", "curve-timeout": ""}
		s.submit(form, "amplify")
		s.waitFor(`document.body.dataset.state === 'done' && bernampCurveRun && bernampCurveRun.summary`, 60*time.Second)
		var page []map[string]string
		s.eval(`[...document.querySelectorAll('#curve-rows tbody tr')].map(tr =>
			Object.fromEntries([...tr.children].map(td => [td.dataset.col, td.textContent])))`, &page)
		var sum [2]string
		s.eval(`['curve-sum-bernamp', 'curve-sum-mechanism'].map(id => document.getElementById(id).textContent)`, &sum)
		file := filepath.Join(t.TempDir(), "curve.csv")
		if err := os.WriteFile(file, []byte(curve), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := s.cli("curve", "--in", file, "--d", "1", "--k", "2", "--c", "0.2", "--delta", "1e-6", "--format", "json", "--no-timing")
		if code != 0 {
			t.Fatalf("bernamp curve: exit %d: %s", code, stderr)
		}
		var want struct {
			Orders []struct {
				Alpha  float64  `json:"alpha"`
				Eps    *float64 `json:"eps"` // null: inf
				Status string   `json:"status"`
			} `json:"orders"`
			Summary []struct {
				Bound string   `json:"bound"`
				Eps   *float64 `json:"eps"`
			} `json:"summary"`
		}
		// The bounds by column name, as the page names its cells.
		var raw struct {
			Orders []map[string]any `json:"orders"`
		}
		if err := json.Unmarshal([]byte(out), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatal(err)
		}
		if len(page) != len(want.Orders) || len(page) != 4 {
			t.Fatalf("page shows %d orders, bernamp curve gives %d, want 4", len(page), len(want.Orders))
		}
		worst := uint64(0)
		for i, w := range want.Orders {
			if got, err := strconv.ParseFloat(page[i]["alpha"], 64); err != nil || got != w.Alpha {
				t.Errorf("order %d: page shows alpha %q, bernamp curve %v", i, page[i]["alpha"], w.Alpha)
			}
			wantEps := "inf"
			if w.Eps != nil {
				wantEps = strconv.FormatFloat(*w.Eps, 'g', -1, 64)
			}
			if page[i]["eps"] != wantEps {
				t.Errorf("order %d: page shows eps %q, bernamp curve %s", i, page[i]["eps"], wantEps)
			}
			for _, col := range []string{"lb", "post", "post_upper"} {
				got, err := strconv.ParseFloat(page[i][col], 64)
				u := ulps(got, raw.Orders[i][col].(float64))
				worst = max(worst, u)
				if err != nil || u > maxULPs {
					t.Errorf("order %d %s: page shows %q, bernamp curve gives %v (%d ulps apart)", i, col, page[i][col], raw.Orders[i][col], u)
				}
			}
			if page[i]["status"] != w.Status {
				t.Errorf("order %d: page shows status %q, bernamp curve %q", i, page[i]["status"], w.Status)
			}
		}
		// The summary: the same conversion of levels a few ulps apart; the
		// conversion's own logs add a few more.
		for j, bound := range []string{"bernamp", "mechanism"} {
			for _, w := range want.Summary {
				if w.Bound != bound {
					continue
				}
				got, err := strconv.ParseFloat(sum[j], 64)
				u := ulps(got, *w.Eps)
				worst = max(worst, u)
				if err != nil || u > 4*maxULPs {
					t.Errorf("summary %s: page shows %q, bernamp curve gives %v (%d ulps apart)", bound, sum[j], *w.Eps, u)
				}
			}
		}
		t.Logf("largest difference between the page and bernamp curve --in: %d ulps", worst)

		// A bad curve: the reader's message, as the CLI prints it without
		// the file name.
		bad := "alpha,eps\n2,0.5\n2,1\n"
		form["curve"] = bad
		s.submit(form, "amplify")
		s.waitFor(`document.body.dataset.state === 'invalid'`, 10*time.Second)
		var got string
		s.eval(`document.getElementById('err-curve').textContent`, &got)
		badFile := filepath.Join(t.TempDir(), "bad.csv")
		if err := os.WriteFile(badFile, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code = s.cli("curve", "--in", badFile)
		wantMsg := strings.Replace(strings.TrimSuffix(strings.TrimPrefix(stderr, "bernamp: "), "\n"), badFile+": ", "", 1)
		if code != 2 || got != wantMsg {
			t.Errorf("bad curve: page shows %q; bernamp curve says %q (exit %d)", got, wantMsg, code)
		}
		// Three bad fields of the curve's form: a message next to each.
		form["curve-d"], form["curve-c"] = "0", "0.7"
		s.submit(form, "amplify")
		s.waitFor(`document.body.dataset.state === 'invalid'`, 10*time.Second)
		var msgs map[string]string
		s.eval(`Object.fromEntries(['curve', 'curve-d', 'curve-k', 'curve-c', 'curve-delta', 'curve-timeout'].map(n => [n, document.getElementById('err-' + n).textContent]))`, &msgs)
		wantMsgs := map[string]string{"curve": wantMsg, "curve-d": "--d: d is 0, must be >= 1", "curve-k": "", "curve-c": "--c: c is 0.7, must be in (0, 0.5)", "curve-delta": "", "curve-timeout": ""}
		if !maps.Equal(msgs, wantMsgs) {
			t.Errorf("three bad fields of the curve: the page shows %q, want %q", msgs, wantMsgs)
		}
	})

	t.Run("compose equals bernamp compose", func(t *testing.T) {
		s.t = t
		// One composition per mechanism, the RDP route with the Gaussian
		// (the subsampled Gaussian has none in the CLI either).
		worst := 0.0
		for _, tc := range []struct {
			mech   string
			fields map[string]string
			rdp    bool
		}{
			{"gaussian", map[string]string{"compose-sigma": "2", "compose-sensitivity": "1", "compose-d": "1", "compose-k": "1", "compose-c": "0.1", "compose-steps": "100", "compose-delta": "1e-5", "compose-discretization": "1e-3"}, true},
			{"laplace", map[string]string{"compose-b": "1", "compose-sensitivity": "0.5", "compose-d": "2", "compose-k": "2", "compose-c": "0.2", "compose-steps": "20", "compose-delta": "1e-6", "compose-discretization": "1e-3"}, false},
			{"rr", map[string]string{"compose-p-true": "0.8", "compose-d": "1", "compose-k": "3", "compose-c": "0.05", "compose-steps": "10", "compose-delta": "1e-5", "compose-discretization": "1e-2"}, false},
			{"subsampled-gaussian", map[string]string{"compose-sigma": "1", "compose-q": "0.05", "compose-sensitivity": "1", "compose-d": "1", "compose-k": "1", "compose-c": "0.1", "compose-steps": "50", "compose-delta": "1e-5", "compose-discretization": "1e-3"}, true},
		} {
			page := s.compose(tc.mech, tc.fields, tc.rdp, 2*time.Minute)
			var ms float64
			s.eval(`bernampComposeRun.ms`, &ms)
			args := composeArgs(tc.mech, tc.fields, tc.rdp)
			start := time.Now()
			out, stderr, code := s.cli(append(args, "--format", "json", "--no-timing", "--workers", "1")...)
			native := time.Since(start)
			if code != 0 {
				t.Fatalf("bernamp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			var want []map[string]any
			if err := json.Unmarshal([]byte(out), &want); err != nil || len(want) != 1 {
				t.Fatalf("bernamp compose: %v: %s", err, out)
			}
			for _, col := range []string{"eps_lower", "eps_upper", "eps_rdp", "eps_unamplified"} {
				w, ok := want[0][col].(float64)
				if !ok { // not computed: the page says why, with no number
					if page[col] != "—" && page[col] != "n/a" {
						t.Errorf("%s %s: page shows %q, bernamp compose has none", tc.mech, col, page[col])
					}
					continue
				}
				got, err := strconv.ParseFloat(page[col], 64)
				rel := math.Abs(got-w) / w
				worst = max(worst, rel)
				if testing.Verbose() {
					t.Logf("%s %s: page %s, bernamp compose %v (relative %.3g)", tc.mech, col, page[col], w, rel)
				}
				if err != nil || !(rel <= composeRel) {
					t.Errorf("%s %s: page shows %q, bernamp compose gives %v (relative difference %.3g)", tc.mech, col, page[col], w, rel)
				}
			}
			for _, col := range []string{"d", "k", "c", "steps", "delta"} {
				if got, err := strconv.ParseFloat(page[col], 64); err != nil || got != want[0][col].(float64) {
					t.Errorf("%s %s: page shows %q, bernamp compose %v", tc.mech, col, page[col], want[0][col])
				}
			}
			if page["check"] != "verified" || want[0]["check"] != "verified" {
				t.Errorf("%s check: page shows %q, bernamp compose %v; want verified", tc.mech, page["check"], want[0]["check"])
			}
			var sum [3]string
			s.eval(`['compose-eps-lower', 'compose-eps-upper', 'compose-check'].map(id => document.getElementById(id).textContent)`, &sum)
			if sum[0] != page["eps_lower"] || sum[1] != page["eps_upper"] || sum[2] != page["check"] {
				t.Errorf("%s: summary [%s, %s] check %s, table [%s, %s] check %s", tc.mech, sum[0], sum[1], sum[2], page["eps_lower"], page["eps_upper"], page["check"])
			}
			t.Logf("%s (rdp route %v): page %.2f s, bernamp compose --workers 1 %.2f s", tc.mech, tc.rdp, ms/1000, native.Seconds())
		}
		t.Logf("largest relative difference between the page and bernamp compose: %.3g", worst)
	})

	t.Run("compose: bad input shows the CLI's message", func(t *testing.T) {
		s.t = t
		alone := map[string]string{} // the CLI's message for each field of the Gaussian alone
		// The fields of the mechanism, with edits (name, value, ...).
		with := func(mech string, edits ...string) map[string]string {
			f := map[string]string{"compose-d": "1", "compose-k": "1", "compose-c": "0.1", "compose-steps": "10", "compose-delta": "1e-5", "compose-discretization": "1e-3"}
			if mech == "gaussian" {
				f["compose-sigma"], f["compose-sensitivity"] = "2", "1"
			}
			for i := 0; i < len(edits); i += 2 {
				f["compose-"+edits[i]] = edits[i+1]
			}
			return f
		}
		for _, tc := range []struct {
			field, mech string
			form        map[string]string
		}{
			{"c", "gaussian", with("gaussian", "c", "0.7")},
			{"d", "gaussian", with("gaussian", "d", "0")},
			{"steps", "gaussian", with("gaussian", "steps", "0")},
			{"delta", "gaussian", with("gaussian", "delta", "1")},
			{"discretization", "gaussian", with("gaussian", "discretization", "-1")},
			{"sigma", "gaussian", with("gaussian", "sigma", "-1")},
			{"sensitivity", "laplace", with("laplace", "b", "1", "sensitivity", "0")},
			{"b", "laplace", with("laplace", "b", "", "sensitivity", "1")},
			{"p-true", "rr", with("rr", "p-true", "1")},
			{"q", "subsampled-gaussian", with("subsampled-gaussian", "sigma", "1", "q", "2", "sensitivity", "1")},
		} {
			s.composeSubmit(tc.mech, tc.form, false)
			s.waitFor(`document.body.dataset.state === 'invalid'`, 10*time.Second)
			var got string
			s.eval(`document.getElementById('err-compose-`+tc.field+`').textContent`, &got)
			_, stderr, code := s.cli(composeArgs(tc.mech, tc.form, false)...)
			want := strings.TrimSuffix(strings.TrimPrefix(stderr, "bernamp: "), "\n")
			if code != 2 || got != want {
				t.Errorf("%s: page shows %q next to the field; bernamp compose says %q (exit %d)", tc.field, got, want, code)
			}
			if tc.mech == "gaussian" {
				alone[tc.field] = want
			}
		}
		// Five bad fields of the Gaussian: a message next to each, the one
		// it gets alone (the CLI's); none next to the good ones.
		bad := []string{"c", "d", "steps", "delta", "sigma"}
		s.composeSubmit("gaussian", with("gaussian", "c", "0.7", "d", "0", "steps", "0", "delta", "1", "sigma", "-1"), false)
		s.waitFor(`document.body.dataset.state === 'invalid'`, 10*time.Second)
		var msgs map[string]string
		s.eval(`Object.fromEntries(COMPOSE_FIELDS.map(n => [n.slice(8), document.getElementById('err-' + n).textContent]))`, &msgs)
		shown := 0
		for field, got := range msgs {
			want := ""
			if slices.Contains(bad, field) {
				want = alone[field]
			}
			if got != want {
				t.Errorf("five bad fields: next to %s the page shows %q, want %q", field, got, want)
			}
			if got != "" {
				shown++
			}
		}
		t.Logf("%d bad fields of the compose panel: %d messages shown", len(bad), shown)
	})

	t.Run("compose shows no NaN or Inf", func(t *testing.T) {
		s.t = t
		// No eps up to 700 reaches delta (the Gaussian at sigma 0.001,
		// hardly amplified at d = 10^6): eps_upper and eps_unamplified are
		// +Inf in the CLI, "none" in the page.
		f := map[string]string{"compose-sigma": "0.001", "compose-sensitivity": "1", "compose-d": "1000000", "compose-k": "1", "compose-c": "0.1", "compose-steps": "1", "compose-delta": "1e-5", "compose-discretization": "1e-3"}
		page := s.compose("gaussian", f, false, time.Minute)
		out, stderr, code := s.cli(append(composeArgs("gaussian", f, false), "--format", "csv", "--no-timing")...)
		if code != 0 {
			t.Fatalf("bernamp compose: exit %d: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
		for i, col := range head {
			if row[i] == "+Inf" && page[col] != "none" {
				t.Errorf("%s: bernamp compose gives +Inf, page shows %q, want none", col, page[col])
			}
		}
		if page["eps_upper"] != "none" {
			t.Errorf("eps_upper: page shows %q, want none (bernamp compose: %s)", page["eps_upper"], lines[1])
		}
		var text string
		s.eval(`document.getElementById('compose-answer').textContent + document.getElementById('compose-progress').textContent`, &text)
		// An error of the engine (valid input, but a grid too fine for
		// 10^6 steps) is the CLI's message (exit 1) next to Compose.
		f["compose-sigma"], f["compose-steps"], f["compose-delta"], f["compose-discretization"] = "0.01", "1000000", "1e-5", "1e-4"
		s.composeSubmit("gaussian", f, false)
		s.waitFor(`document.body.dataset.state === 'error'`, time.Minute)
		var got string
		s.eval(`document.getElementById('err-compose').textContent`, &got)
		_, stderr, code = s.cli(composeArgs("gaussian", f, false)...)
		if want := strings.TrimSuffix(strings.TrimPrefix(stderr, "bernamp: "), "\n"); code != 1 || got != want {
			t.Errorf("engine error: page shows %q; bernamp compose says %q (exit %d)", got, want, code)
		}
		for _, bad := range []string{"NaN", "Inf", "undefined", "null"} {
			if strings.Contains(text, bad) {
				t.Errorf("the compose panel shows %q: %s", bad, text)
			}
		}
	})

	t.Run("compose: cancel", func(t *testing.T) {
		s.t = t
		// A composition of minutes in the page: Cancel ends it at once and
		// a fresh worker answers the next one.
		// n = d k = 10^9: one step takes about a minute natively.
		f := map[string]string{"compose-sigma": "2", "compose-sensitivity": "1", "compose-d": "1000000", "compose-k": "1000", "compose-c": "0.1", "compose-steps": "1", "compose-delta": "1e-5", "compose-discretization": "1e-3"}
		s.composeSubmit("gaussian", f, false)
		s.waitFor(`document.body.dataset.state === 'running' && window.bernampComposeRun && bernampComposeRun.state === 'running'`, 10*time.Second)
		time.Sleep(500 * time.Millisecond)
		composing := s.workers()
		if len(composing) != 1 {
			t.Fatalf("%d workers during the composition, want 1", len(composing))
		}
		start := time.Now()
		s.eval(`document.getElementById('compose-cancel').click()`, nil)
		s.waitFor(`document.body.dataset.state === 'cancelled'`, 5*time.Second)
		if d := time.Since(start); d > responsive {
			t.Errorf("cancel took %v, want at most %v", d, responsive)
		}
		// The worker that composed is gone, not merely ignored.
		for slices.Contains(s.workers(), composing[0]) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the composing worker still exists %v after cancel", time.Since(start))
			}
			time.Sleep(50 * time.Millisecond)
		}
		var progress string
		s.eval(`document.getElementById('compose-progress').textContent`, &progress)
		if !strings.HasPrefix(progress, "cancelled after ") {
			t.Errorf("compose progress %q, want cancelled after ...", progress)
		}
		s.waitFor(`!document.getElementById('compose').disabled`, 30*time.Second)
		f["compose-d"], f["compose-k"], f["compose-steps"] = "1", "1", "5"
		page := s.compose("gaussian", f, false, time.Minute)
		if page["steps"] != "5" {
			t.Errorf("the composition after the cancel shows steps %q, want 5", page["steps"])
		}
	})

	t.Run("cancel stops a long solve", func(t *testing.T) {
		s.t = t
		// A grid of 6000 points: minutes in the page, whatever a single
		// point costs (single slow points keep getting faster).
		s.solve(baseForm("1:5:1", "1:4:1", "0.01,0.1,0.3", "5,50", "0.1:5:0.1", ""))
		s.waitFor(`document.body.dataset.state === 'running' && bernampRun.rows.length >= 1`, 60*time.Second)
		// The progress line gives the percent done and the time left once
		// a point is done.
		s.waitFor(`/^point \d+ of 6000 \(\d+% — about \d+(\.\d)? (s|min|h) left\): d = .* · \d+\.\d\d s$/.test(document.getElementById('progress').textContent)`, 10*time.Second)
		var line string
		s.eval(`document.getElementById('progress').textContent`, &line)
		t.Logf("progress during the run: %s", line)
		// The page stays responsive during the solve: it answers within
		// seconds (a page blocked by the solve would answer in minutes).
		start := time.Now()
		var state string
		s.eval(`document.body.dataset.state`, &state)
		if d := time.Since(start); state != "running" || d > responsive {
			t.Fatalf("during the solve the page answered %q after %v, want running within %v", state, d, responsive)
		}
		solving := s.workers()
		if len(solving) != 1 {
			t.Fatalf("%d workers during the solve, want 1", len(solving))
		}
		start = time.Now()
		s.eval(`document.getElementById('cancel').click()`, nil)
		s.waitFor(`document.body.dataset.state === 'cancelled'`, 5*time.Second)
		if d := time.Since(start); d > responsive {
			t.Errorf("cancel took %v, want at most %v", d, responsive)
		}
		// The worker that ran the solve is gone, not merely ignored.
		for slices.Contains(s.workers(), solving[0]) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the solving worker still exists %v after cancel", time.Since(start))
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("the solving worker ended %v after cancel", time.Since(start).Round(time.Millisecond))
		var shown int
		s.eval(`document.querySelectorAll('#rows tbody tr').length`, &shown)
		var progress string
		s.eval(`document.getElementById('progress').textContent`, &progress)
		if want := fmt.Sprintf("cancelled after %d of 6000 points", shown); shown >= 6000 || !strings.HasPrefix(progress, want) {
			t.Errorf("progress line %q with %d rows shown, want it to start %q", progress, shown, want)
		}
		time.Sleep(time.Second)
		var later int
		s.eval(`document.querySelectorAll('#rows tbody tr').length`, &later)
		if later != shown {
			t.Errorf("%d rows a second after cancel, %d at cancel", later, shown)
		}
		// A fresh engine answers the next point, and no row of the
		// cancelled run arrives in its table.
		s.waitFor(`document.body.dataset.engine === 'ready' && !document.getElementById('solve').disabled`, 30*time.Second)
		s.solve(baseForm("1", "1", "0.1", "5", "1", ""))
		s.waitFor(`document.body.dataset.state === 'done'`, 30*time.Second)
		var n int
		s.eval(`document.querySelectorAll('#rows tbody tr').length`, &n)
		if n != 1 {
			t.Errorf("%d rows after the run that followed the cancel, want 1", n)
		}
	})

	t.Run("progress: percent done and time left", func(t *testing.T) {
		s.t = t
		// progressText (app.js) at the edges: before the first point,
		// done, nonsense in; never NaN or Infinity.
		for _, tc := range []struct{ args, want string }{
			{"0, 10, 0", "0% — starting"},
			{"0, 10, 5000", "0% — starting"},
			{"1, 10, 1000", "10% — about 9 s left"},
			{"3, 8, 3000", "37% — about 5 s left"},
			{"3, 4, 90000", "75% — about 30 s left"},
			{"99, 100, 1", "99% — about 1 s left"},
			{"5, 10, 2e6", "50% — about 33 min left"},
			{"1, 2, 7.2e6", "50% — about 2.0 h left"},
			{"1, 6000, 30000", "0% — about 50 h left"},
			{"10, 10, 999", "100%"},
			{"11, 10, 5", "100%"},
			{"1, 3, 0", "33% — starting"},
			{"2, 10, NaN", "20% — starting"},
			{"2, 10, Infinity", "20% — starting"},
			{"1, 1e300, 1e300", "0% — starting"},
			{"5, 0, 100", "starting"},
			{"NaN, 10, 100", "starting"},
			{"undefined, undefined, undefined", "starting"},
		} {
			var got string
			s.eval(`progressText(`+tc.args+`)`, &got)
			if got != tc.want {
				t.Errorf("progressText(%s) = %q, want %q", tc.args, got, tc.want)
			}
		}
	})

	t.Run("a plain headless screenshot shows the page", func(t *testing.T) {
		s.t = t
		// chromium --headless --screenshot (docs/web.md) captures the page
		// at its load event, before the module is compiled: the form must
		// be there already, with the loading notice on one line.
		chromium := findChromium(t)
		dir := t.TempDir()
		plain := func(profile string, args ...string) []byte {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
				"--disable-component-update", "--disable-sync", "--disable-extensions", "--user-data-dir=" + filepath.Join(dir, profile)}
			out, err := exec.CommandContext(ctx, chromium, append(append(flags, args...), s.url)...).Output()
			if err != nil {
				t.Fatalf("chromium %s: %v", strings.Join(args, " "), err)
			}
			return out
		}
		dom := string(plain("dom", "--dump-dom"))
		for _, id := range []string{"form", "d", "k", "c", "alpha", "eps", "timeout", "solve", "progress", "curve-form", "curve", "compose-form", "compose-mechanism", "compose-steps", "compose"} {
			if !strings.Contains(dom, `id="`+id+`"`) {
				t.Errorf("chromium --dump-dom: no element with id %q", id)
			}
		}
		file := filepath.Join(dir, "page.png")
		plain("shot", "--screenshot="+file, "--window-size=1200,900")
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		ink := inkedRows(img)
		t.Logf("chromium --headless --screenshot: %v, %.0f%% of the rows hold text or lines", img.Bounds().Size(), 100*ink)
		// The whole page: header, preset, six fields, buttons, the curve
		// form, over most of the height (the loading notice alone is one
		// line, 2% of it).
		if ink < 0.3 {
			t.Errorf("the screenshot has something drawn on %.0f%% of its rows, want the page (at least 30%%)", 100*ink)
		}
	})

	t.Run("no request leaves the page's origin", func(t *testing.T) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.requests) == 0 {
			t.Fatal("no request recorded")
		}
		for _, u := range s.requests {
			if !strings.HasPrefix(u, s.url) {
				t.Errorf("the page requested %s, outside %s", u, s.url)
			}
		}
	})

	t.Run("the same files from a plain static host", func(t *testing.T) {
		s.t = t
		host := httptest.NewServer(http.FileServer(http.Dir("static")))
		defer host.Close()
		s.navigate(host.URL + "/")
		s.solve(baseForm("1", "2", "0.1", "5", "1", ""))
		s.waitFor(`document.body.dataset.state === 'done'`, 60*time.Second)
		var status string
		s.eval(`document.getElementById('sum-status').textContent`, &status)
		if status != "certified" {
			t.Errorf("status %q, want certified", status)
		}
		s.navigate(s.url)
	})

	if os.Getenv("BERNAMP_WEB_BENCH") != "" {
		s.t = t
		for _, preset := range []string{"fig1-d2", "fig2-d2"} {
			benchPreset(s, preset)
		}
		benchCompose(s)
	}

	if path := os.Getenv("BERNAMP_WEB_SCREENSHOT"); path != "" {
		s.t = t
		s.eval(`(() => { const p = document.getElementById('preset'); p.value = 'fig3'; p.dispatchEvent(new Event('change')); })()`, nil)
		s.eval(`document.getElementById('solve').click()`, nil)
		s.waitFor(`document.body.dataset.state === 'done'`, 5*time.Minute)
		s.eval(`(() => { const tr = document.querySelector('#rows tbody tr[data-i="119"]'); if (tr) tr.click(); document.getElementById('rows-box').open = false; })()`, nil)
		// An accountant's curve below the grid: the Gaussian with sigma =
		// 2 (eps = alpha/8), no guarantee at order 32, through k = 2.
		s.eval(`window.bernampCurveRun = null`, nil)
		s.submit(map[string]string{"curve": "alpha,eps\n2,0.25\n4,0.5\n8,1\n16,2\n32,inf\n", "curve-d": "1", "curve-k": "2", "curve-c": "0.2", "curve-delta": "1e-5", "curve-timeout": ""}, "amplify")
		s.waitFor(`document.body.dataset.state === 'done' && window.bernampCurveRun && bernampCurveRun.summary`, time.Minute)
		// A composition: the Gaussian with sigma = 2, c = 0.1, 100 steps,
		// with the RDP route.
		s.compose("gaussian", map[string]string{"compose-sigma": "2", "compose-sensitivity": "1", "compose-d": "1", "compose-k": "1", "compose-c": "0.1",
			"compose-steps": "100", "compose-delta": "1e-5", "compose-discretization": "1e-3"}, true, 2*time.Minute)
		s.eval(`(() => { document.getElementById('curve').scrollTop = 0; window.scrollTo(0, 0); })()`, nil)
		var shot struct {
			Data string `json:"data"`
		}
		if err := s.b.page("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot); err != nil {
			t.Fatal(err)
		}
		png, err := base64.StdEncoding.DecodeString(shot.Data)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchCompose times compositions in the page against bernamp compose
// --workers 1 on the same inputs (BERNAMP_WEB_BENCH, docs/web.md).
func benchCompose(s *session) {
	t := s.t
	gauss := func(d, k, steps, disc string) map[string]string {
		return map[string]string{"compose-sigma": "2", "compose-sensitivity": "1", "compose-d": d, "compose-k": k, "compose-c": "0.1",
			"compose-steps": steps, "compose-delta": "1e-5", "compose-discretization": disc}
	}
	for _, tc := range []struct {
		mech   string
		fields map[string]string
		rdp    bool
	}{
		{"gaussian", gauss("1", "1", "100", "1e-3"), false},
		{"gaussian", gauss("1", "1", "100", "1e-3"), true},
		{"gaussian", gauss("2", "3", "100", "1e-3"), false},
		{"gaussian", gauss("2", "3", "100", "1e-3"), true},
		{"gaussian", gauss("1", "1", "1000", "1e-3"), false},
		{"gaussian", gauss("1", "1", "100", "1e-4"), false},
		{"laplace", map[string]string{"compose-b": "2", "compose-sensitivity": "1", "compose-d": "2", "compose-k": "3", "compose-c": "0.1", "compose-steps": "100", "compose-delta": "1e-5", "compose-discretization": "1e-3"}, false},
		{"rr", map[string]string{"compose-p-true": "0.75", "compose-d": "2", "compose-k": "3", "compose-c": "0.1", "compose-steps": "100", "compose-delta": "1e-5", "compose-discretization": "1e-3"}, false},
		{"subsampled-gaussian", map[string]string{"compose-sigma": "1", "compose-q": "0.01", "compose-sensitivity": "1", "compose-d": "2", "compose-k": "3", "compose-c": "0.1", "compose-steps": "1000", "compose-delta": "1e-5", "compose-discretization": "1e-3"}, false},
	} {
		page := s.compose(tc.mech, tc.fields, tc.rdp, 10*time.Minute)
		var ms float64
		s.eval(`bernampComposeRun.ms`, &ms)
		args := append(composeArgs(tc.mech, tc.fields, tc.rdp), "--format", "json", "--workers", "1")
		start := time.Now()
		_, stderr, code := s.cli(args...)
		native := time.Since(start)
		if code != 0 {
			t.Fatalf("bernamp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		t.Logf("%s: page %.2f s (eps_upper %s, eps_rdp %s); bernamp compose --workers 1: %.2f s; ratio %.2f",
			strings.Join(args[1:len(args)-4], " "), ms/1000, page["eps_upper"], page["eps_rdp"], native.Seconds(), ms/1000/native.Seconds())
	}
}

// benchPreset runs a preset of the page, then bernamp post with one worker
// on the same grid, and logs both times (BERNAMP_WEB_BENCH, docs/web.md).
func benchPreset(s *session, name string) {
	t := s.t
	var f map[string]string
	s.eval(fmt.Sprintf(`(() => { const p = document.getElementById('preset'); p.value = %q; p.dispatchEvent(new Event('change'));
		return Object.fromEntries(['d', 'k', 'c', 'alpha', 'eps', 'timeout'].map(k => [k, document.getElementById(k).value])); })()`, name), &f)
	s.eval(`document.getElementById('solve').click()`, nil)
	s.waitFor(`document.body.dataset.state === 'done'`, 60*time.Minute)
	var page struct {
		N      int      `json:"n"`
		MS     float64  `json:"ms"`
		Status []string `json:"status"`
		Sum    float64  `json:"sum"`
	}
	s.eval(`({n: bernampRun.n, ms: bernampRun.ms, status: bernampRun.rows.map(r => r.status), sum: bernampRun.rows.reduce((a, r) => a + r.seconds, 0)})`, &page)
	start := time.Now()
	out, stderr, code := s.cli("post", "--d", f["d"], "--k", f["k"], "--c", f["c"], "--alpha", f["alpha"], "--eps", f["eps"],
		"--timeout", f["timeout"], "--workers", "1", "--format", "csv", "--quiet")
	native := time.Since(start)
	if code != 0 {
		t.Fatalf("bernamp post: exit %d: %s", code, stderr)
	}
	count := func(status []string) string {
		n := map[string]int{}
		for _, st := range status {
			n[st]++
		}
		return fmt.Sprint(n)
	}
	var nat []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Split(line, ",")
		nat = append(nat, f[9])
	}
	t.Logf("%s (%d points): page %.2f s (solver %.2f s) %s; bernamp post --workers 1: %.2f s %s; ratio %.2f",
		name, page.N, page.MS/1000, page.Sum, count(page.Status), native.Seconds(), count(nat), page.MS/1000/native.Seconds())
}

// composeRel is how far (relative) the page's eps may lie from bernamp
// compose's. The 1-ulp differences of math.Exp and math.Log (maxULPs)
// reach the PLD's masses, differences of nearby profile values, and pass
// through the FFT and the root in eps: up to 7.3e-10 relative observed
// (eps_lower and eps_rdp equal or 1 ulp apart), so the bound leaves a
// margin.
const composeRel = 1e-8

// composeSubmit chooses the mechanism and the RDP route's box of the
// compose panel, types the fields (those of the mechanism chosen: the
// others are hidden) and clicks Compose.
func (s *session) composeSubmit(mech string, fields map[string]string, rdp bool) {
	s.t.Helper()
	s.eval(fmt.Sprintf(`(() => { const m = document.getElementById('compose-mechanism'); m.value = %q; m.dispatchEvent(new Event('change'));
		document.getElementById('compose-rdp').checked = %v; window.bernampComposeRun = null; })()`, mech, rdp), nil)
	s.submit(fields, "compose")
}

// compose runs a composition in the page and returns the cells of its row
// (the last of the compose table) by column.
func (s *session) compose(mech string, fields map[string]string, rdp bool, limit time.Duration) map[string]string {
	s.t.Helper()
	s.composeSubmit(mech, fields, rdp)
	s.waitFor(`document.body.dataset.state === 'done' && window.bernampComposeRun && bernampComposeRun.state === 'done'`, limit)
	var row map[string]string
	s.eval(`Object.fromEntries([...document.querySelector('#compose-rows tbody tr:last-child').children].map(td => [td.dataset.col, td.textContent]))`, &row)
	return row
}

// composeArgs are bernamp compose's flags for the compose panel's fields
// (an empty field: the flag left out).
func composeArgs(mech string, fields map[string]string, rdp bool) []string {
	args := []string{"compose", "--mechanism", mech, "--rdp-route=" + strconv.FormatBool(rdp)}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if v := fields[name]; v != "" {
			args = append(args, "--"+strings.TrimPrefix(name, "compose-"), v)
		}
	}
	return args
}

// inkedRows is the fraction of img's pixel rows with something drawn: a
// pixel darker than light grey (text, borders).
func inkedRows(img image.Image) float64 {
	b := img.Bounds()
	if b.Dy() == 0 {
		return 0
	}
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if g := color.GrayModel.Convert(img.At(x, y)).(color.Gray); g.Y < 160 {
				n++
				break
			}
		}
	}
	return float64(n) / float64(b.Dy())
}
