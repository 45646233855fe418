package gotest

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// batches searches the tests of one package in shared processes of its
// test binary (targetsearch.Batch), as go test runs a package's tests in
// one process, instead of a process per test: a process of the
// instrumented binary costs more CPU to start (the race runtime's
// initialisation) than most tests' searches.
//
// Each test's search asks for its result (served) as it would start its
// own process; the first ask starts a process that runs the package's
// tests in order. As each test begins there, the process asks whether to
// search it: yes when its search waits for it and no other process has
// taken it, no when another took it or it was searched otherwise; a test
// whose search has not asked yet keeps the process waiting, since the
// searches ask in the same order. A search that waits while every process
// is busy starts another, so that as many tests are searched at once as
// searches ask (Config.Searches bounds them).
//
// Only a clean result (no bug, no failure, every variable put back) is
// taken: any other test is searched as before, in a process of its own,
// from which its verdict comes; the process that searched it ends, and
// the tests after it go on in another. Verdicts are therefore those of a
// process per test: a test starts from the package-level variables as a
// fresh process has them (the process puts them back after each search),
// and what a search leaves elsewhere in the process (the environment,
// files, another package's variables outside the instrumented modules)
// is what go test leaves from one test to the next.
type batches struct {
	names []string // the tests, in the order the test binary runs them
	index map[string]int

	mu     sync.Mutex
	cond   *sync.Cond
	state  []testState
	found  []*targetsearch.Found
	done   []chan struct{} // closed when the test's state is final
	prog   []func(search.Stats)
	cfg    *targetsearch.Config // how the first search would have started
	key    string               // cfg, but for the test it runs
	procs  int                  // processes started and not ended
	idle   int                  // of those, the ones not searching
	live   map[*targetsearch.Batch]bool
	closed bool
	broken bool // a process did not run the tests as asked: no more start
}

// testState is where a test is in its package's batches.
type testState int

const (
	testPending   testState = iota // its search has not asked yet
	testWanted                     // its search waits for a process
	testRunning                    // a process searches it
	testServed                     // its clean result is there (final)
	testAlone                      // to be searched in a process of its own (final)
	testElsewhere                  // searched without asking (final)
)

// batchServed, if not nil, is told of each test whose result a batch
// served (a variable for the tests).
var batchServed func(name string)

// maxBatches bounds the processes of one package's batches.
const maxBatches = 16

// newBatches returns the batches of a package whose tests names, in the
// order of its test files, are to be searched.
func newBatches(names []string) *batches {
	b := &batches{names: names, index: map[string]int{}, state: make([]testState, len(names)),
		found: make([]*targetsearch.Found, len(names)), done: make([]chan struct{}, len(names)),
		prog: make([]func(search.Stats), len(names)), live: map[*targetsearch.Batch]bool{}}
	b.cond = sync.NewCond(&b.mu)
	for i, n := range names {
		b.index[n] = i
		b.done[i] = make(chan struct{})
	}
	return b
}

// served is session.Options.Served for the search of test name: its clean
// result from a batch, or nil when it is to be searched as before.
func (b *batches) served(ctx context.Context, name string, cfg targetsearch.Config) *targetsearch.Found {
	key, keyed := batchKey(cfg)
	b.mu.Lock()
	i, ok := b.index[name]
	if !ok || !keyed || b.closed || b.broken || b.state[i] != testPending {
		b.mu.Unlock()
		return nil
	}
	if b.cfg == nil {
		c := cfg
		b.cfg, b.key = &c, key
	}
	if key != b.key {
		b.final(i, testAlone, nil)
		b.mu.Unlock()
		return nil
	}
	b.state[i] = testWanted
	b.prog[i] = cfg.Progress
	b.spawn()
	b.cond.Broadcast()
	done := b.done[i]
	b.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.found[i]
}

// searched tells that the search of test name is over: one that never
// asked (it ran from stdbg, or its corpus decided) is not to be searched
// in a batch.
func (b *batches) searched(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, ok := b.index[name]; ok && b.state[i] == testPending {
		b.final(i, testElsewhere, nil)
	}
}

// final gives test i its final state (and result); b.mu is held.
func (b *batches) final(i int, st testState, f *targetsearch.Found) {
	if b.state[i] >= testServed {
		return
	}
	b.state[i], b.found[i] = st, f
	close(b.done[i])
	b.cond.Broadcast()
}

// spawn starts a process when more searches wait than processes are free
// to take them; b.mu is held.
func (b *batches) spawn() {
	wanted := 0
	for _, st := range b.state {
		if st == testWanted {
			wanted++
		}
	}
	for ; wanted > b.idle && b.procs < maxBatches && !b.closed && !b.broken; wanted-- {
		b.procs++
		b.idle++
		go b.drive(*b.cfg)
	}
}

// drive runs one process: it answers its questions and hands each search
// its result, until the process ends or a search was not clean.
func (b *batches) drive(cfg targetsearch.Config) {
	cfg.Args = withRunArg(cfg.Args, batchPattern(b.names))
	p, err := targetsearch.StartBatch(cfg)
	b.mu.Lock()
	if err == nil && b.closed {
		b.mu.Unlock()
		p.Close()
		b.mu.Lock()
		err = context.Canceled
	}
	if err != nil {
		// No process can start: the searches go on alone.
		b.procs--
		b.idle--
		b.broken = true
		for i, st := range b.state {
			if st <= testWanted {
				b.final(i, testAlone, nil)
			}
		}
		b.mu.Unlock()
		return
	}
	b.live[p] = true
	b.mu.Unlock()
	next := 0 // the test the process is to name next
	// odd: the process did not run the tests as asked (a test not
	// through a check, or a name not of the list): what ran in it
	// without asking is not known, and another process would do the
	// same. The package's tests not yet searched are searched alone.
	odd := false
	for {
		name, err := p.Next()
		b.mu.Lock()
		if err != nil {
			// The process ended: after the last test, unless some
			// ran without asking (or it died between two).
			for k := next; k < len(b.names) && !b.closed; k++ {
				odd = odd || b.state[k] <= testWanted
			}
			break
		}
		j, ok := b.index[name]
		if !ok || j != next || b.closed {
			// Not a test of the list, out of order, or tests skipped
			// over (run without asking).
			odd = !b.closed
			break
		}
		next = j + 1
		for b.state[j] == testPending && !b.closed {
			b.cond.Wait()
		}
		if b.state[j] != testWanted || b.closed {
			b.mu.Unlock()
			if p.Skip() != nil {
				b.mu.Lock()
				break
			}
			continue
		}
		b.state[j] = testRunning
		b.idle--
		prog := b.prog[j]
		b.mu.Unlock()
		res, err := p.Search(prog)
		var f *targetsearch.Found
		if err == nil && res.Clean() {
			f, err = res.Found()
		}
		b.mu.Lock()
		b.idle++
		if f == nil || err != nil {
			// (A bug, a failure, a death: this test alone, the
			// others in other processes.)
			b.final(j, testAlone, nil)
			break
		}
		b.final(j, testServed, f)
		if batchServed != nil {
			batchServed(name)
		}
		b.mu.Unlock()
	}
	if odd {
		b.broken = true
		for i, st := range b.state {
			if st <= testWanted {
				b.final(i, testAlone, nil)
			}
		}
	}
	// (b.mu is held; the process left no test running: it leaves
	// between two, or after making the one it ran final.)
	delete(b.live, p)
	b.procs--
	b.idle--
	b.spawn()
	b.cond.Broadcast()
	b.mu.Unlock()
	p.Close()
}

// close ends the processes; the searches still waiting go on alone.
func (b *batches) close() {
	b.mu.Lock()
	b.closed = true
	for i, st := range b.state {
		if st <= testWanted {
			b.final(i, testAlone, nil)
		}
	}
	live := make([]*targetsearch.Batch, 0, len(b.live))
	for p := range b.live {
		live = append(live, p)
	}
	b.cond.Broadcast()
	b.mu.Unlock()
	for _, p := range live {
		p.Close()
	}
}

// batchKey is what a search's process is started with, but for the test it
// runs: the searches of the tests of one batch must all have the same.
func batchKey(cfg targetsearch.Config) (string, bool) {
	k := struct {
		Binary string
		Args   []string
		Env    []string
		Dir    string
		Wrap   []string
		Spec   targetsearch.Spec
		Jobs   int
	}{cfg.Binary, withRunArg(cfg.Args, ""), cfg.Env, cfg.Dir, cfg.Wrap, cfg.Spec, cfg.Jobs}
	b, err := json.Marshal(k)
	return string(b), err == nil
}

// withRunArg returns args with its -test.run flag's pattern replaced by
// run.
func withRunArg(args []string, run string) []string {
	out := make([]string, 0, len(args)+1)
	for _, a := range args {
		if !strings.HasPrefix(a, "-test.run=") {
			out = append(out, a)
		}
	}
	return append([]string{"-test.run=" + run}, out...)
}

// batchPattern is the -test.run pattern of the tests names.
func batchPattern(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}
