package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killArgs is a post grid whose rows take a little time each (d = 1,
// k = 12: some 10 to 100 ms a row), so a signal lands between rows.
var killArgs = []string{"post", "--k", "12", "--c", "0.1", "--alpha", "5", "--eps", "0.2:4:0.2", "--no-timing", "--workers", "2", "--quiet"}

const killRows = 20 // rows of killArgs

// TestKillResume builds the real binary, starts post --out on killArgs,
// stops it with SIGKILL or SIGINT once some rows are in the file (at least
// one, the first row is never the moment), and checks that the file holds
// only complete rows, that SIGINT exits 1 with one line on stderr, and
// that --resume then completes the file byte for byte as an uninterrupted
// run writes it. The last scenario kills the resumed run too and resumes
// again.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it several times (a few seconds)")
	}
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bernamp")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ref := filepath.Join(dir, "ref.csv")
	if out, err := exec.Command(bin, append(killArgs, "--out", ref)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	want := readFile(t, ref)
	if n := strings.Count(want, "\n"); n != killRows+1 {
		t.Fatalf("uninterrupted run wrote %d lines, want %d", n, killRows+1)
	}

	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		after int // rows in the file before the signal
		again bool
	}{
		{"SIGKILL after the first row", syscall.SIGKILL, 1, false},
		{"SIGKILL mid-run", syscall.SIGKILL, killRows / 2, false},
		{"SIGINT", syscall.SIGINT, 3, false},
		{"SIGKILL, then SIGKILL of the resumed run", syscall.SIGKILL, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rows.csv")
			partial := stopAfter(t, bin, append(killArgs, "--out", out), out, tc.sig, tc.after)
			if tc.again {
				partial = stopAfter(t, bin, append(killArgs, "--out", out, "--resume"), out, tc.sig, strings.Count(partial, "\n"))
			}
			cmd := exec.Command(bin, append(killArgs, "--out", out, "--resume")...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("resume: %v: %s", err, stderr.String())
			}
			if got := readFile(t, out); got != want {
				t.Errorf("resumed file\n%s\nwant, as the uninterrupted run\n%s", got, want)
			}
		})
	}
}

// stopAfter runs bin with args, waits until the CSV file out has more than
// `after` lines after the header, sends sig, and returns the file left,
// after checking it: complete rows, each a line of an uninterrupted run's
// shape, fewer than killRows of them; for SIGINT an exit status of 1 and
// one line on stderr.
func stopAfter(t *testing.T, bin string, args []string, out string, sig syscall.Signal, after int) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(readFileOrEmpty(out), "\n") < 1+after && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	partial := readFile(t, out)
	rows := strings.Count(partial, "\n") - 1
	if rows < after || rows >= killRows {
		t.Fatalf("the stopped run left %d rows, want %d to %d (the signal came too late: rows faster than expected?)", rows, after, killRows-1)
	}
	if !strings.HasSuffix(partial, "\n") && sig == syscall.SIGINT {
		t.Errorf("SIGINT left a partial line: %q", partial[strings.LastIndexByte(partial, '\n')+1:])
	}
	readCSV(t, partial[:strings.LastIndexByte(partial, '\n')+1]) // complete lines are CSV
	for line := range strings.Lines(partial) {
		if strings.HasSuffix(line, "\n") && strings.Count(line, ",") != len(header)-1 {
			t.Errorf("line %q has %d fields", line, strings.Count(line, ",")+1)
		}
	}
	switch sig {
	case syscall.SIGINT:
		code := cmd.ProcessState.ExitCode()
		if code != 1 || !strings.HasPrefix(stderr.String(), "bernamp: interrupted: ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("SIGINT: exit %d (%v), stderr %q; want 1 and one line \"bernamp: interrupted: ...\"", code, err, stderr.String())
		}
	case syscall.SIGKILL:
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Errorf("SIGKILL: the run ended otherwise: %v, stderr %q", err, stderr.String())
		}
	}
	return partial
}

func init() {
	// The test binary runs in the package directory, where go build .
	// builds bernamp; make sure that holds.
	if _, err := os.Stat("main.go"); err != nil {
		panic("kill_test: not in the directory of package main")
	}
}
