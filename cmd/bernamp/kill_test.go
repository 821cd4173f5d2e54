package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bernamp/bernamp/journal"
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
	bin := bernampBinary(t)
	dir := t.TempDir()
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
	cmd, stderr, exited := startRun(t, bin, args...)
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(readFileOrEmpty(out), "\n") < 1+after && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	<-exited
	err := cmd.ProcessState
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

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// bernampBinary builds the real binary once for the tests of this file
// (go build into a temporary directory, which TestMain removes), and
// skips the test without a go command.
func bernampBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bernamp-kill")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "bernamp")
		if out, err := exec.Command(goBin, "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func init() {
	// The test binary runs in the package directory, where go build .
	// builds bernamp; make sure that holds.
	if _, err := os.Stat("main.go"); err != nil {
		panic("kill_test: not in the directory of package main")
	}
}

// sweep96 is a post grid of 96 points of unequal cost (d = 1, 2; k = 1, 2,
// 3; the longest some 50 ms), about a second on 2 workers: a kill at a
// random moment lands mid-run.
var sweep96 = []string{"post", "--d", "1,2", "--k", "1,2,3", "--c", "0.1,0.3", "--alpha", "5", "--eps", "0.5:4:0.5",
	"--no-timing", "--workers", "2", "--quiet"}

// refRun runs sweep96 to the end into dir/ref.csv and returns the file,
// its rows' lines by grid index and the wall time of the run.
func refRun(t *testing.T, bin, dir string) (want string, lines []string, took time.Duration) {
	t.Helper()
	ref := filepath.Join(dir, "ref.csv")
	start := time.Now()
	if out, err := exec.Command(bin, append(sweep96, "--out", ref)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	took = time.Since(start)
	want = readFile(t, ref)
	lines = strings.SplitAfter(want, "\n")
	lines = lines[1 : len(lines)-1] // no header, no empty string after the last newline
	if len(lines) != 96 {
		t.Fatalf("uninterrupted run wrote %d rows, want 96", len(lines))
	}
	return want, lines, took
}

// journalEntries reads the journal of out with the id of its own header;
// nil if there is none.
func journalEntries(t *testing.T, out string) []journal.Entry {
	t.Helper()
	path := out + ".journal"
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	hdr, _, ok := strings.Cut(string(b), "\n")
	f := strings.Fields(hdr)
	if !ok || len(f) != 3 {
		return nil // a header cut short: nothing added
	}
	entries, err := journal.Read(path, f[2])
	if err != nil {
		t.Fatalf("journal left: %v", err)
	}
	return entries
}

// checkLeft checks what a stopped run left: complete lines of the file are
// the first lines of the uninterrupted file, and every journal entry is
// the uninterrupted run's row of its grid point. It returns the entries.
func checkLeft(t *testing.T, out, want string, lines []string) []journal.Entry {
	t.Helper()
	partial := readFileOrEmpty(out)
	if complete := partial[:strings.LastIndexByte(partial, '\n')+1]; !strings.HasPrefix(want, complete) {
		t.Fatalf("the file left is not the start of the uninterrupted file:\n%s", complete)
	}
	entries := journalEntries(t, out)
	for _, e := range entries {
		if e.Key >= len(lines) || string(e.Data)+"\n" != lines[e.Key] {
			t.Fatalf("journal entry %d is %q, want the row of the uninterrupted run", e.Key, e.Data)
		}
	}
	return entries
}

// waitEntries waits until the journal of out holds at least n entries, the
// run ended, or 30 s passed.
func waitEntries(out string, n int, cmd *exec.Cmd, exited <-chan struct{}) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return
		default:
		}
		if strings.Count(readFileOrEmpty(out+".journal"), "\n")-1 >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// sweepSetup skips in -short mode, else returns the binary, an --out path
// in a new directory and the uninterrupted run's file and rows (refRun).
func sweepSetup(t *testing.T) (bin, out, want string, lines []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the binary")
	}
	bin = bernampBinary(t)
	dir := t.TempDir()
	want, lines, _ = refRun(t, bin, dir)
	return bin, filepath.Join(dir, "rows.csv"), want, lines
}

// startRun starts bin with args and returns the command, its stderr and a
// channel closed when it has exited.
func startRun(t *testing.T, bin string, args ...string) (*exec.Cmd, *bytes.Buffer, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return cmd, &stderr, exited
}

// resumeSweep runs sweep96 --out out --resume and checks that it ends with
// the uninterrupted file want, and no journal or lock beside it.
func resumeSweep(t *testing.T, bin, out, want string) {
	t.Helper()
	if b, err := exec.Command(bin, append(sweep96, "--out", out, "--resume")...).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v: %s", err, b)
	}
	if got := readFile(t, out); got != want {
		t.Fatalf("resumed file\n%s\nwant, as the uninterrupted run\n%s", got, want)
	}
	for _, left := range []string{out + ".journal", out + ".lock"} {
		if _, err := os.Stat(left); err == nil {
			t.Errorf("the finished run left %s", left)
		}
	}
}

// TestKillRandom kills sweep96 with SIGKILL at random moments, by time or
// by the number of points in the journal, often kills the resumed run
// too, and checks after each kill that nothing wrong is on disk and at the
// end that --resume gives the uninterrupted file byte for byte, with no
// journal or lock left. A lock left by a killed run does not stop the
// next.
func TestKillRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary some 30 times (about 20 s)")
	}
	bin := bernampBinary(t)
	dir := t.TempDir()
	want, lines, took := refRun(t, bin, dir)
	kills := 0 // runs killed before they ended
	defer func() {
		if kills < 10 {
			t.Errorf("only %d runs were killed before they ended, want at least 10 for the test to mean something", kills)
		}
	}()
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 34))
		out := filepath.Join(dir, fmt.Sprintf("seed%d.csv", seed))
		for round := 0; round < 3; round++ {
			args := append(sweep96, "--out", out)
			if round > 0 {
				args = append(args, "--resume")
			}
			cmd, stderr, exited := startRun(t, bin, args...)
			how := ""
			if rng.IntN(3) == 0 {
				d := time.Duration(rng.Float64() * float64(took))
				how = fmt.Sprintf("after %v", d)
				select {
				case <-exited:
				case <-time.After(d):
				}
			} else {
				n := rng.IntN(len(lines))
				how = fmt.Sprintf("after %d journal entries", n)
				waitEntries(out, n, cmd, exited)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Signaled() && ws.ExitStatus() != 0 {
				t.Fatalf("seed %d round %d: the run failed: %s", seed, round, stderr.String())
			}
			entries := checkLeft(t, out, want, lines)
			if ws.Signaled() {
				kills++
				t.Logf("seed %d round %d: SIGKILL %s: %d entries in the journal", seed, round, how, len(entries))
			} else {
				t.Logf("seed %d round %d: the run ended before the SIGKILL %s", seed, round, how)
			}
			if rng.IntN(3) == 0 {
				break
			}
		}
		t.Logf("seed %d: resume", seed)
		resumeSweep(t, bin, out, want)
	}
}

// TestSIGTERMKeeps stops sweep96 with SIGTERM once 10 points are done: it
// exits 1 with one line saying how many points are done, and exactly those
// are in the journal, each as the uninterrupted run writes it; --resume
// then completes the file.
func TestSIGTERMKeeps(t *testing.T) {
	bin, out, want, lines := sweepSetup(t)
	cmd, stderr, exited := startRun(t, bin, append(sweep96, "--out", out)...)
	waitEntries(out, 10, cmd, exited)
	cmd.Process.Signal(syscall.SIGTERM)
	<-exited
	m := regexp.MustCompile(`^bernamp: interrupted: (\d+) of 96 points done, kept in (.+): run the same command with --resume\n$`).FindStringSubmatch(stderr.String())
	if cmd.ProcessState.ExitCode() != 1 || m == nil {
		t.Fatalf("SIGTERM: exit %d, stderr %q; want 1 and one line \"interrupted: N of 96 points done, kept in ...\"", cmd.ProcessState.ExitCode(), stderr.String())
	}
	done, _ := strconv.Atoi(m[1])
	entries := checkLeft(t, out, want, lines)
	if m[2] != out+".journal" || done != len(entries) || done < 10 || done == 96 {
		t.Errorf("SIGTERM: %d points done in %s, the journal %s holds %d; want the same, 10 to 95", done, m[2], out+".journal", len(entries))
	}
	resumeSweep(t, bin, out, want)
}

// TestLockRefuses starts sweep96 and, while it runs, the same command (and
// its --resume) on the same --out: they exit 1 with one line naming the
// first run's pid, and the first run's file is the uninterrupted one,
// every row once.
func TestLockRefuses(t *testing.T) {
	bin, out, want, _ := sweepSetup(t)
	cmd, _, exited := startRun(t, bin, append(sweep96, "--out", out)...)
	waitEntries(out, 1, cmd, exited)
	select {
	case <-exited:
		t.Fatal("the first run ended before the second started")
	default:
	}
	for _, extra := range [][]string{nil, {"--resume"}} {
		c := exec.Command(bin, append(append(sweep96, "--out", out), extra...)...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		c.Run()
		msg := fmt.Sprintf("bernamp: --out %s: another run is writing it (pid %d on host ", out, cmd.Process.Pid)
		if c.ProcessState.ExitCode() != 1 || !strings.HasPrefix(stderr.String(), msg) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("second run %v: exit %d, stderr %q; want 1 and one line %q...", extra, c.ProcessState.ExitCode(), stderr.String(), msg)
		}
	}
	<-exited
	if !cmd.ProcessState.Success() {
		t.Fatalf("first run: %v", cmd.ProcessState)
	}
	if got := readFile(t, out); got != want {
		t.Errorf("first run's file\n%s\nwant\n%s", got, want)
	}

}
