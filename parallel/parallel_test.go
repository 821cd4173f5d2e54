package parallel

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// emitted records the indices and values passed to emit.
type emitted struct {
	idx  []int
	vals []int
}

func (e *emitted) emit(i int, v int) error {
	e.idx = append(e.idx, i)
	e.vals = append(e.vals, v)
	return nil
}

// isPrefix reports whether idx is exactly 0, 1, ..., len(idx)-1.
func isPrefix(idx []int) bool {
	for j, i := range idx {
		if i != j {
			return false
		}
	}
	return true
}

func TestMapOrder(t *testing.T) {
	t.Parallel()
	const n = 60
	for _, workers := range []int{1, 2, 8, 0, -3} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			t.Parallel()
			// Seeded sleeps of 0-2 ms so that tasks finish out of order.
			rng := rand.New(rand.NewPCG(1, uint64(workers+10)))
			sleep := make([]time.Duration, n)
			for i := range sleep {
				sleep[i] = time.Duration(rng.IntN(2000)) * time.Microsecond
			}
			var running, peak atomic.Int64
			var got emitted
			err := Map(context.Background(), n, workers, func(ctx context.Context, i int) (int, error) {
				r := running.Add(1)
				for {
					p := peak.Load()
					if r <= p || peak.CompareAndSwap(p, r) {
						break
					}
				}
				time.Sleep(sleep[i])
				running.Add(-1)
				return i * i, nil
			}, got.emit)
			if err != nil {
				t.Fatalf("Map: %v", err)
			}
			if len(got.idx) != n || !isPrefix(got.idx) {
				t.Fatalf("emitted indices %v, want 0..%d in order", got.idx, n-1)
			}
			for i, v := range got.vals {
				if v != i*i {
					t.Errorf("value %d = %d, want %d", i, v, i*i)
				}
			}
			if workers > 0 && peak.Load() > int64(workers) {
				t.Errorf("peak concurrency %d > workers %d", peak.Load(), workers)
			}
		})
	}
}

func TestMapErrors(t *testing.T) {
	t.Parallel()
	errDo := errors.New("do failed")
	errEmit := errors.New("emit failed")
	const n, bad = 40, 5
	tests := []struct {
		name       string
		workers    int
		doFails    bool // do fails at index bad
		emitFails  bool // emit fails at index bad
		want       error
		maxEmitted int // emitted indices must be a prefix no longer than this
		maxStarted int // at most this many calls of do (-1: no check)
	}{
		{"do/workers=1", 1, true, false, errDo, bad, bad + 1},
		{"do/workers=2", 2, true, false, errDo, bad, -1},
		{"do/workers=8", 8, true, false, errDo, bad, -1},
		{"emit/workers=1", 1, false, true, errEmit, bad + 1, bad + 2},
		{"emit/workers=8", 8, false, true, errEmit, bad + 1, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var started atomic.Int64
			var got emitted
			err := Map(context.Background(), n, tc.workers, func(ctx context.Context, i int) (int, error) {
				started.Add(1)
				if tc.doFails && i == bad {
					return 0, errDo
				}
				// Later tasks wait for the cancellation the failure causes.
				if i > bad {
					select {
					case <-ctx.Done():
						return 0, ctx.Err()
					case <-time.After(5 * time.Second):
						return 0, errors.New("context not cancelled after an error")
					}
				}
				return i, nil
			}, func(i, v int) error {
				if tc.emitFails && i == bad {
					got.emit(i, v)
					return errEmit
				}
				return got.emit(i, v)
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Map error = %v, want %v", err, tc.want)
			}
			if !isPrefix(got.idx) || len(got.idx) > tc.maxEmitted {
				t.Errorf("emitted %v, want a prefix of at most %d indices", got.idx, tc.maxEmitted)
			}
			if tc.maxStarted >= 0 && started.Load() > int64(tc.maxStarted) {
				t.Errorf("do called %d times, want at most %d", started.Load(), tc.maxStarted)
			}
		})
	}
}

// TestMapCancel cancels the caller's context while task stop runs: no task
// starts afterwards, the running ones finish (they see the cancelled
// context), and every finished result that is next in order is emitted.
func TestMapCancel(t *testing.T) {
	t.Parallel()
	const n, stop = 50, 7
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var (
				mu      sync.Mutex
				started = make(map[int]bool)
				saw     atomic.Int64 // tasks that saw the cancelled context
			)
			var got emitted
			err := Map(ctx, n, workers, func(tctx context.Context, i int) (int, error) {
				mu.Lock()
				started[i] = true
				mu.Unlock()
				if i == stop {
					cancel()
				}
				// Tasks from stop on hold their worker until the cancellation,
				// so at most workers-1 tasks after stop can start.
				if i >= stop {
					<-tctx.Done()
					saw.Add(1)
				}
				return -i, nil // finish normally anyway
			}, got.emit)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Map error = %v, want context.Canceled", err)
			}
			if saw.Load() == 0 {
				t.Error("no task saw the cancelled context")
			}
			if len(started) > stop+workers {
				t.Errorf("%d tasks started, want at most %d", len(started), stop+workers)
			}
			if workers == 1 && len(started) != stop+1 {
				t.Errorf("%d tasks started with one worker, want %d", len(started), stop+1)
			}
			// Every started task finished, so the emitted results must be
			// exactly those before the first index that never started.
			m := 0
			for started[m] {
				m++
			}
			if len(got.idx) != m || !isPrefix(got.idx) {
				t.Errorf("emitted %v, want 0..%d", got.idx, m-1)
			}
			for i, v := range got.vals {
				if v != -i {
					t.Errorf("value %d = %d, want %d", i, v, -i)
				}
			}
		})
	}
}

func TestMapEmpty(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		n    int
		want error
	}{
		{"n=0", context.Background(), 0, nil},
		{"n=0/cancelled", cancelled, 0, context.Canceled},
		{"n=5/cancelled", cancelled, 5, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			err := Map(tc.ctx, tc.n, 4, func(context.Context, int) (int, error) {
				return 0, errors.New("do called")
			}, func(int, int) error {
				calls++
				return nil
			})
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("Map error = %v, want %v", err, tc.want)
			}
			if calls != 0 {
				t.Errorf("emit called %d times, want 0", calls)
			}
		})
	}
}

func TestMapNegativeN(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r != negativeN {
			t.Errorf("recovered %v, want panic %q", r, negativeN)
		}
	}()
	Map(context.Background(), -1, 1, func(context.Context, int) (int, error) { return 0, nil },
		func(int, int) error { return nil })
}

// TestMapSchedule checks that with one worker the tasks start in schedule
// order, and that with any number of workers the results are emitted in
// index order.
func TestMapSchedule(t *testing.T) {
	t.Parallel()
	const n = 30
	rng := rand.New(rand.NewPCG(3, 4))
	schedule := rng.Perm(n)
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			t.Parallel()
			var (
				mu      sync.Mutex
				started []int
				got     emitted
			)
			err := MapSchedule(context.Background(), schedule, workers, func(ctx context.Context, i int) (int, error) {
				mu.Lock()
				started = append(started, i)
				mu.Unlock()
				time.Sleep(time.Duration(i%3) * 100 * time.Microsecond)
				return -i, nil
			}, got.emit)
			if err != nil {
				t.Fatalf("MapSchedule: %v", err)
			}
			if len(got.idx) != n || !isPrefix(got.idx) {
				t.Fatalf("emitted indices %v, want 0..%d in order", got.idx, n-1)
			}
			for i, v := range got.vals {
				if v != -i {
					t.Errorf("value %d = %d, want %d", i, v, -i)
				}
			}
			if workers == 1 && fmt.Sprint(started) != fmt.Sprint(schedule) {
				t.Errorf("started %v, want the schedule %v", started, schedule)
			}
		})
	}
}

func TestMapScheduleNotPermutation(t *testing.T) {
	t.Parallel()
	for _, schedule := range [][]int{{0, 0}, {1, 2}, {-1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MapSchedule(%v) did not panic", schedule)
				}
			}()
			MapSchedule(context.Background(), schedule, 1, func(context.Context, int) (int, error) { return 0, nil },
				func(int, int) error { return nil })
		}()
	}
}
