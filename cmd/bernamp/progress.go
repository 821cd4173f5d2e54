package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress keeps a line on a terminal up to date with the points done, the
// rate and the estimated time left; on a stderr that is not a terminal
// (plain) it writes whole lines instead, the first after one interval, so
// that a short run writes none. A nil *progress does nothing.
type progress struct {
	w       io.Writer
	total   int
	done    atomic.Int64
	start   time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
	now     func() time.Time
	what    string        // what is counted: "points" when ""
	label   string        // the command, after "bernamp: " (none when "")
	extra   func() string // more after the count, e.g. " (RDP route: 3/8 orders solved)"
	plain   bool          // whole lines (not a terminal)
	printed bool          // a plain line was written (by the ticker, then by finish)
}

// startProgress starts updating the line on w every interval.
func startProgress(w io.Writer, total int, every time.Duration) *progress {
	return (&progress{w: w, total: total}).run(every)
}

// startPlainProgress starts writing a whole line "bernamp: <label>:
// <done>/<total> <what><extra()>, ..." on w every interval, for a w that
// is not a terminal (or for lines kept whole).
func startPlainProgress(w io.Writer, label string, total int, what string, extra func() string, every time.Duration) *progress {
	return (&progress{w: w, total: total, what: what, label: label, extra: extra, plain: true}).run(every)
}

// run starts the ticker.
func (p *progress) run(every time.Duration) *progress {
	p.start, p.stop, p.now = time.Now(), make(chan struct{}), time.Now
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.write(p.now())
			}
		}
	}()
	return p
}

// write writes the line at time now: rewritten in place on a terminal, a
// new line when plain.
func (p *progress) write(now time.Time) {
	if p.plain {
		fmt.Fprintf(p.w, "%s\n", p.line(now))
		p.printed = true
		return
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(now))
}

// add counts one more point done.
func (p *progress) add() {
	if p != nil {
		p.done.Add(1)
	}
}

// finish writes the final line and ends it.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	switch {
	case !p.plain:
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", p.line(p.now()))
	case p.printed:
		p.write(p.now())
	}
}

// line is the progress line at time now: "12/750 points, 3.4/s, ETA 3m37s".
func (p *progress) line(now time.Time) string {
	done := int(p.done.Load())
	elapsed := now.Sub(p.start)
	what := p.what
	if what == "" {
		what = "points"
	}
	s := "bernamp: "
	if p.label != "" {
		s += p.label + ": "
	}
	s += fmt.Sprintf("%d/%d %s", done, p.total, what)
	if p.extra != nil {
		s += p.extra()
	}
	if done == 0 || elapsed <= 0 {
		return s
	}
	rate := float64(done) / elapsed.Seconds()
	s += fmt.Sprintf(", %.3g/s", rate)
	if done < p.total {
		eta := time.Duration(float64(p.total-done) / rate * float64(time.Second))
		s += ", ETA " + eta.Round(time.Second).String()
	} else {
		s += ", " + elapsed.Round(time.Millisecond).String()
	}
	return s
}

// lockedWriter serializes writes, so the progress line and the messages
// of the run can share stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// set sets the count done (a callback reports a running total).
func (p *progress) set(done int) {
	if p != nil {
		p.done.Store(int64(done))
	}
}
