package cli

import (
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/frontend/session"
)

// This file turns the settings into the session's: how to build and start
// a target, and how many copies of it a search may use.

// resolve builds the target args name with the settings (race, memory);
// run selects Go tests. A Go target's random numbers come from the
// rand-seed setting, its stall bound from max-stall.
func (a *app) resolve(args []string, run string) (*session.Target, error) {
	t, err := session.Resolve(args, session.Build{Run: run, Race: a.s.Races, Memory: a.s.Memory, MemoryAsked: a.explicit("memory")})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	t.SeedRand(a.s.RandSeed)
	t.SetMaxStall(a.s.maxStall())
	return t, nil
}

// startSession launches t under the library with the settings (the
// timeouts, races, spurious wake-ups). o says the rest: where the
// program's output goes, more environment, whether executions end at the
// program's exit (FastExit), keep its threads between them (KeepThreads,
// a search) and track its state (State, a stateful search or the replay of
// a lasso).
func (a *app) startSession(t *session.Target, o session.Options) (*session.Session, error) {
	s, err := session.Start(t, a.sessionOptions(o))
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return s, nil
}

// sessionOptions are o with the settings: the timeouts, races and
// spurious wake-ups.
func (a *app) sessionOptions(o session.Options) session.Options {
	o.Stdout, o.Stderr = direct(o.Stdout), direct(o.Stderr)
	o.TransitionTimeout, o.StartTimeout = a.s.TransitionTimeout, a.s.StartTimeout
	o.Races, o.SpuriousWakeups = a.s.Races, a.s.SpuriousWakeups
	return o
}

// maxDepth is the depth bound of a search or replay of t: the setting, or
// the target's when the setting was left at its default (Target.MaxDepth:
// session.GoMaxDepth for a Go target).
func (a *app) maxDepth(t *session.Target) int {
	if !a.explicit("max-depth") {
		return t.MaxDepth()
	}
	return a.s.MaxDepth
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
