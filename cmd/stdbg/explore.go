package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/stdbg/stdbg/search"
)

// newStrategy returns the constructor of the exhaustive strategy of the
// plan, for the workers of a divided search.
func newStrategy(p *plan) func() search.Strategy {
	return func() search.Strategy {
		st, _ := p.spec.New() // checked by plan
		return st
	}
}

// jobs is the number of executions to run at once: by default one per two
// CPUs, since each copy of the program runs best beside its own checker
// thread on a CPU of its own (docs/parallel.md).
func (a *app) jobs() int {
	if j := a.v.GetInt("jobs"); j > 0 {
		return j
	}
	return max(1, runtime.NumCPU()/2)
}

// explore runs the search of a find: in this process with the session's
// program (through ex, which may wrap it) alone, or, for an exhaustive
// search, divided among -j copies of the program and --shard parts.
func (a *app) explore(ctx context.Context, t *target, s *session, ex search.Executor, p *plan, opts search.Options) (*search.Result, error) {
	shard, shards, _ := parseShard(a.v.GetString("shard"))
	jobs := a.jobs()
	if !p.split || (jobs <= 1 && shards <= 1) {
		return search.Explore(ctx, ex, p.st, opts)
	}
	var trial *search.Result
	if shards <= 1 {
		// Most searches are small, and dividing one costs more than it
		// saves (finding the parts, starting more copies of the
		// program): run in one copy first, and divide only a search
		// that outlives the trial.
		o := opts
		if o.MaxExecutions == 0 || o.MaxExecutions > trialExecutions {
			o.MaxExecutions = trialExecutions
		}
		tctx, cancel := context.WithTimeout(ctx, trialTime)
		res, err := search.Explore(tctx, ex, p.st, o)
		cancel()
		switch {
		case ctx.Err() != nil:
			return res, err
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			return res, err
		case err == nil && (res.Complete || (len(res.Bugs) > 0 && !opts.All) ||
			(opts.MaxExecutions > 0 && res.Stats.Executions >= opts.MaxExecutions)):
			return res, nil
		}
		trial = res
		if opts.MaxExecutions > 0 {
			opts.MaxExecutions -= res.Stats.Executions // the trial's count
		}
	}
	newEx := func(w int) (search.Executor, func(), error) {
		runtime.LockOSThread()
		if w == 0 {
			a.place(s, 0, jobs)
			return s.chk, func() { s.proc.Unpin(); runtime.UnlockOSThread() }, nil
		}
		ws, err := a.start(t, io.Discard, io.Discard, true)
		if err != nil {
			runtime.UnlockOSThread()
			return nil, nil, err
		}
		a.place(ws, w, jobs)
		return ws.chk, func() { ws.close(); runtime.UnlockOSThread() }, nil
	}
	res, err := search.ExploreSplit(ctx, newEx, newStrategy(p), opts, search.Split{Workers: jobs, Shard: shard, Shards: shards})
	a.place(s, 0, 1) // back to one worker, for minimising
	if trial != nil && res != nil {
		// The divided search starts over; the trial's work counts.
		elapsed := res.Stats.Elapsed + trial.Stats.Elapsed
		res.Stats = res.Stats.Add(trial.Stats)
		res.Stats.Elapsed = elapsed
	}
	return res, err
}

// place puts worker w of workers (its checker thread and its copy of the
// program) on the CPUs this search holds (a.cpus); without CPUs, or if the
// program cannot be placed, the kernel places them.
func (a *app) place(s *session, w, workers int) {
	if a.cpus == nil {
		return
	}
	pls := a.cpus.Place(workers)
	if w >= len(pls) {
		return
	}
	if err := s.proc.Pin(pls[w]); err != nil {
		fmt.Fprintln(a.stderr, "stdbg: warning:", err)
	}
}

// A divided search (-j) first runs in one copy of the program for up to
// trialExecutions executions or trialTime (variables for the tests).
var (
	trialExecutions int64 = 2000
	trialTime             = 2 * time.Second
)

// parseShard reads a --shard value "I/N" (0 <= I < N); "" is the whole
// search (0 of 1).
func parseShard(v string) (shard, shards int, err error) {
	if v == "" {
		return 0, 1, nil
	}
	i, n, ok := strings.Cut(v, "/")
	si, err1 := strconv.Atoi(strings.TrimSpace(i))
	sn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
		return 0, 0, usageErr("--shard %q: expected I/N with 0 <= I < N, e.g. 0/4", v)
	}
	return si, sn, nil
}
