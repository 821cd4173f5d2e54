// Package parallel runs independent tasks on a bounded pool of goroutines and
// hands their results back in submission order, the way gofmt's sequencer
// prints files: work is concurrent, output is deterministic.
//
// It is built on golang.org/x/sync/errgroup. As with errgroup, a panic in a
// task is not recovered: it crashes the program, so callers should validate
// their inputs before calling Map.
package parallel

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
)

const negativeN = "parallel: negative n"

// Map calls do(ctx, i) for every i in [0, n) on at most workers goroutines
// (workers <= 0 means runtime.GOMAXPROCS(0)) and calls emit(i, v) with each
// result in index order 0, 1, 2, ..., as soon as result i and all results
// before it are known. emit always runs on the goroutine that called Map, never
// concurrently with itself, so it may write to an unsynchronized io.Writer.
// The sequence of emit calls therefore does not depend on workers.
//
// The first error returned by do or emit cancels the context passed to the
// running tasks, stops the scheduling of new ones and is returned once every
// goroutine has stopped. Results that precede a failed task and finish are
// still emitted; no result is emitted after an emit error.
//
// If ctx is cancelled, Map schedules no new tasks, lets the running ones
// finish (their ctx is cancelled too), emits every finished result that is
// next in order, and returns ctx.Err(). A context error returned by do after
// such a cancellation is not reported in its place; any other error from do
// or emit is.
//
// Map keeps one slot of type T per index, so for large n and large T use a
// pointer type. It panics if n < 0.
func Map[T any](ctx context.Context, n, workers int, do func(ctx context.Context, i int) (T, error), emit func(i int, v T) error) error {
	if n < 0 {
		panic(negativeN)
	}
	return mapSchedule(ctx, n, nil, workers, do, emit)
}

// MapSchedule is Map with the tasks started in the order given by schedule,
// a permutation of [0, len(schedule)), instead of index order; results are
// still emitted in index order. Starting the longest tasks first keeps the
// pool from idling at the end of a run of unequal tasks; the emitted sequence
// does not depend on the schedule. It panics if schedule is not a
// permutation.
func MapSchedule[T any](ctx context.Context, schedule []int, workers int, do func(ctx context.Context, i int) (T, error), emit func(i int, v T) error) error {
	seen := make([]bool, len(schedule))
	for _, i := range schedule {
		if i < 0 || i >= len(schedule) || seen[i] {
			panic("parallel: schedule is not a permutation")
		}
		seen[i] = true
	}
	return mapSchedule(ctx, len(schedule), schedule, workers, do, emit)
}

// mapSchedule runs Map with tasks started in schedule order, or in index
// order when schedule is nil.
func mapSchedule[T any](ctx context.Context, n int, schedule []int, workers int, do func(ctx context.Context, i int) (T, error), emit func(i int, v T) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if n == 0 {
		return ctx.Err()
	}

	// parent is cancelled by an emit error; the group's gctx, derived from it,
	// is also cancelled by the first error of a task.
	parent, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(parent)
	g.SetLimit(workers) // before any Go: changing the limit later panics

	var (
		mu    sync.Mutex
		first error // first error of do or emit, in the order they happened
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}

	// Task i writes only slots[i], then sends i on done; the receive orders
	// the write before the emitter's read, so the slots need no lock. The
	// emitter always drains done, so a buffer of workers keeps tasks from
	// waiting on a slow emit for long without costing O(n) memory.
	slots := make([]T, n)
	done := make(chan int, workers)

	go func() {
		defer close(done)
		for j := 0; j < n; j++ {
			if gctx.Err() != nil {
				break
			}
			i := j
			if schedule != nil {
				i = schedule[j]
			}
			g.Go(func() error { // blocks while workers tasks are running
				if gctx.Err() != nil {
					return nil // cancelled while waiting for a free worker
				}
				v, err := do(gctx, i)
				if err != nil {
					fail(err)
					return err
				}
				slots[i] = v
				done <- i
				return nil
			})
		}
		g.Wait() // the error is already recorded by fail
	}()

	finished := make([]bool, n)
	next, emitting := 0, true
	for i := range done {
		finished[i] = true
		for emitting && next < n && finished[next] {
			if err := emit(next, slots[next]); err != nil {
				fail(err)
				emitting = false
				break
			}
			var zero T
			slots[next] = zero // let the result be collected
			next++
		}
	}

	mu.Lock()
	err := first
	mu.Unlock()
	if ctx.Err() != nil && (err == nil || isContextErr(err)) {
		return ctx.Err()
	}
	return err
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
