package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress keeps a line on a terminal up to date with the points done, the
// rate and the estimated time left. A nil *progress does nothing.
type progress struct {
	w     io.Writer
	total int
	done  atomic.Int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	now   func() time.Time
}

// startProgress starts updating the line on w every interval.
func startProgress(w io.Writer, total int, every time.Duration) *progress {
	p := &progress{w: w, total: total, start: time.Now(), stop: make(chan struct{}), now: time.Now}
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
				fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(p.now()))
			}
		}
	}()
	return p
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
	fmt.Fprintf(p.w, "\r%s\x1b[K\n", p.line(p.now()))
}

// line is the progress line at time now: "12/750 points, 3.4/s, ETA 3m37s".
func (p *progress) line(now time.Time) string {
	done := int(p.done.Load())
	elapsed := now.Sub(p.start)
	s := fmt.Sprintf("bernamp: %d/%d points", done, p.total)
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
