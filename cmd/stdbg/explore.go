package main

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/search"
)

// newStrategy returns the constructor of the strategy --reduction selects.
func (a *app) newStrategy() func() search.Strategy {
	if a.v.GetString("reduction") == "none" {
		return search.NewDFS
	}
	return search.NewDPOR
}

// jobs is the number of executions to run at once.
func (a *app) jobs() int {
	if j := a.v.GetInt("jobs"); j > 0 {
		return j
	}
	return runtime.NumCPU()
}

// explore runs the search of a find: in this process with the session's
// program alone, or divided among -j copies of the program and --shard
// parts.
func (a *app) explore(ctx context.Context, t *target, s *session, opts search.Options) (*search.Result, error) {
	shard, shards, _ := parseShard(a.v.GetString("shard"))
	jobs := a.jobs()
	if jobs <= 1 && shards <= 1 {
		return search.Explore(ctx, s.chk, a.newStrategy()(), opts)
	}
	newEx := func(w int) (search.Executor, func(), error) {
		runtime.LockOSThread()
		if w == 0 {
			return s.chk, runtime.UnlockOSThread, nil
		}
		ws, err := a.start(t, io.Discard, io.Discard, true)
		if err != nil {
			runtime.UnlockOSThread()
			return nil, nil, err
		}
		return ws.chk, func() { ws.close(); runtime.UnlockOSThread() }, nil
	}
	return search.ExploreSplit(ctx, newEx, a.newStrategy(), opts, search.Split{Workers: jobs, Shard: shard, Shards: shards})
}

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
