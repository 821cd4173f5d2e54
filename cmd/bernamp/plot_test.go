package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CSV files of testdata/figures were written by this CLI; see
// testdata/figures/README.md.
const (
	plotSmall = "../../testdata/figures/small.csv"
	plotK     = "../../testdata/figures/kpanels.csv"
)

// plotArgs runs plot with stdin and returns its error and outputs.
func plotArgs(stdin string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = runPlotIn(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func TestPlotUsageErrors(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "fig.png")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no in", []string{"--out", out}, "--in: missing"},
		{"no out", []string{"--in", plotSmall}, "--out: missing"},
		{"extension", []string{"--in", plotSmall, "--out", "fig.jpg"}, `--out: "fig.jpg": extension must be .png, .svg or .pdf`},
		{"no extension", []string{"--in", plotSmall, "--out", "fig"}, "--out:"},
		{"view", []string{"--in", plotSmall, "--out", out, "--view", "ratio"}, `--view: view is "ratio", must be curves or gap`},
		{"panels", []string{"--in", plotSmall, "--out", out, "--panels", "d"}, `--panels: panels is "d", must be c or k`},
		{"width negative", []string{"--in", plotSmall, "--out", out, "--width", "-1"}, "--width: width is -1"},
		{"width NaN", []string{"--in", plotSmall, "--out", out, "--width", "NaN"}, "--width: width is NaN"},
		{"height huge", []string{"--in", plotSmall, "--out", out, "--height", "1e6"}, "--height: height is 1e+06, must be in [0, 200] inches"},
		{"unknown flag", []string{"--in", plotSmall, "--out", out, "--format", "csv"}, "plot: flag provided but not defined: -format"},
		{"argument", []string{"--in", plotSmall, "--out", out, "extra"}, `plot: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		_, _, err := plotArgs("", tc.args...)
		var uerr usageError
		if !errors.As(err, &uerr) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want a one-line usage error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a usage error wrote %s: %v", out, err)
	}
}

// TestPlotInputErrors checks that unreadable or bad input is a runtime
// error (exit status 1) of one line, and writes no image.
func TestPlotInputErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "fig.png")
	const head = "d,k,c,alpha,eps,lb,ub,post,post_upper,status,seconds\n"
	tests := []struct {
		name, in, stdin, want string
	}{
		{"absent file", filepath.Join(dir, "absent.csv"), "", "no such file"},
		{"empty stdin", "-", "", "empty input"},
		{"header only", "-", head, "no rows"},
		{"missing column", "-", "d,k,c,alpha,eps,lb,ub,post,status\n1,1,0.1,5,1,0.7,1,0.7,witness\n", `missing column "post_upper"`},
		{"NaN", "-", head + "1,1,0.1,5,1,NaN,1,0.7,0.8,witness,0\n", "line 2: column lb: NaN"},
		{"status", "-", head + "1,1,0.1,5,1,0.7,1,0.7,0.8,maybe,0\n", `line 2: status is "maybe"`},
		{"duplicate point", "-", head + "1,1,0.1,5,1,0.7,1,0.7,0.8,witness,0\n1,1,0.1,5,1,0.7,1,0.7,0.8,witness,0\n", "two rows at d=1 k=1 c=0.1 alpha=5 eps=1"},
	}
	for _, tc := range tests {
		_, _, err := plotArgs(tc.stdin, "--in", tc.in, "--out", out)
		var uerr usageError
		if err == nil || errors.As(err, &uerr) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want a one-line runtime error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bad input wrote %s: %v", out, err)
	}
}

func TestPlotWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k, err := os.ReadFile(plotK)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		w, h  int    // PNG size in pixels at 96 dpi; h = 0: not checked
		magic string // start of other formats
	}{
		{"curves png", "", []string{"--in", plotSmall, "--out", "a.png"}, 2 * 4 * 96, 0, ""},
		{"gap png sized", "", []string{"--in", plotSmall, "--out", "b.PNG", "--view", "gap", "--width", "5", "--height", "4"}, 480, 384, ""},
		{"stdin by c", string(k), []string{"--in", "-", "--out", "c.png", "--panels", "c"}, 4 * 96, 0, ""},
		{"svg", string(k), []string{"--in", "-", "--out", "d.svg", "--view", "gap"}, 0, 0, "<?xml"},
		{"pdf", "", []string{"--in", plotSmall, "--out", "e.pdf"}, 0, 0, "%PDF-"},
	}
	for _, tc := range tests {
		args := append([]string(nil), tc.args...)
		path := filepath.Join(dir, args[3])
		args[3] = path
		stdout, stderr, err := plotArgs(tc.stdin, args...)
		if err != nil || stdout != "" || stderr != "" {
			t.Errorf("%s: error %v, stdout %q, stderr %q", tc.name, err, stdout, stderr)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if tc.magic != "" {
			if !bytes.HasPrefix(b, []byte(tc.magic)) {
				t.Errorf("%s: starts %q, want %q", tc.name, b[:min(len(b), 8)], tc.magic)
			}
			continue
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if cfg.Width != tc.w || tc.h != 0 && cfg.Height != tc.h {
			t.Errorf("%s: %d x %d pixels, want %d x %d", tc.name, cfg.Width, cfg.Height, tc.w, tc.h)
		}
	}
}

func TestPlotHelp(t *testing.T) {
	t.Parallel()
	stdout, _, err := plotArgs("", "-h")
	if !errors.Is(err, errHelp) || !strings.Contains(stdout, "-view") || !strings.Contains(stdout, "-panels") {
		t.Errorf("-h: error %v, stdout %q", err, stdout)
	}
}
