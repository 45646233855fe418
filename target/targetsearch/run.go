package targetsearch

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/procgroup"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/internal/targettmp"
	"github.com/stdbg/stdbg/model/schedule"
)

// Config is a search to run inside target processes.
type Config struct {
	// Binary, Args, Env and Dir start the target (Env is added to
	// stdbg's own environment).
	Binary string
	Args   []string
	Env    []string
	Dir    string
	// Wrap, if not empty, is a command that runs the target in the same
	// process (targetproc.Config.Wrap).
	Wrap []string
	// Spec is the search; its Shard and Shards select the part of the
	// search to run (divided further among Jobs processes).
	Spec Spec
	// Jobs is the number of target processes searching at once, each a
	// part of an exhaustive search (< 1: 1).
	Jobs int
	// Replay runs a schedule in a fresh process, no step further than
	// the schedule's last, and returns how it ends (nil: it did not end
	// within the schedule): how the schedule that killed a target ends
	// (required). Going further would run the program to the depth
	// bound, when the death was not the schedule's. ctx ends when the
	// search's budget runs out or Run is stopped: Replay then stops
	// between two steps with an error wrapping ctx.Err().
	Replay func(ctx context.Context, sched schedule.Schedule) (*search.Outcome, error)
	// Progress and Minimising receive the statistics of all the processes
	// together, during the search and during minimisation; OnBug each
	// distinct bug as soon as it is found. Any may be nil.
	Progress, Minimising func(search.Stats)
	OnBug                func(search.Bug)
	// OnEnd is told of each schedule that ended a target process, with
	// how it ends in a fresh one, before the search goes on in a new
	// process.
	OnEnd func(End, string)
	// MaxRestarts bounds how often a process that died is replaced
	// (0: DefaultMaxRestarts); beyond it Run fails with ErrTooManyDeaths.
	MaxRestarts int
	// Grace is how long a target may take to end after it sent its result
	// or was told to stop (0: 10 seconds); then it is killed.
	Grace time.Duration
	// SamplingLead is how long a portfolio divided among Jobs processes
	// lets its exhaustive processes search alone before its sampling
	// process starts (0: search.PortfolioLeadTime): a small search ends
	// before, and no process samples schedules beside it.
	SamplingLead time.Duration
}

// DefaultMaxRestarts is Config.MaxRestarts's default.
const DefaultMaxRestarts = 20

// ErrTooManyDeaths is returned when the target kept dying: the search is
// better run out of process, where a process per execution is the rule.
var ErrTooManyDeaths = errors.New("the target process ended too often in the middle of the search")

// A DeathError is returned by Run when a target process died during an
// execution that a fresh process ran without dying there: the death was
// not the schedule's, but that of something else in the process (state an
// earlier execution left, the search itself, the Go runtime), and the
// search cannot go on past it. It wraps search.ErrNondeterministic: the
// search is better run with a fresh process per execution, saying why.
type DeathError struct {
	// Schedule is the execution under way when the process died.
	Schedule string
	// How says how the process ended ("signal: segmentation fault"),
	// with the last line of its standard error or that it wrote none.
	How string
	// Fresh says how the fresh process ran the schedule.
	Fresh string
	// Unknown reports that the budget ran out (or Run was stopped)
	// before the fresh process ran the schedule to its end: whether the
	// death was the schedule's is not known.
	Unknown bool
}

func (e *DeathError) Error() string {
	sched := e.Schedule
	if steps := strings.Split(sched, ";"); len(steps) > shownSteps {
		sched = fmt.Sprintf("%s;... (%d steps)", strings.Join(steps[:shownSteps], ";"), len(steps))
	}
	if e.Unknown {
		return fmt.Sprintf("the target process died during schedule %s (%s), and %s", sched, e.How, e.Fresh)
	}
	return fmt.Sprintf("the target process died during schedule %s (%s), but a fresh process ran that schedule %s",
		sched, e.How, e.Fresh)
}

// shownSteps is the most steps of a schedule a DeathError's message shows.
const shownSteps = 12

// Unwrap returns search.ErrNondeterministic.
func (e *DeathError) Unwrap() error { return search.ErrNondeterministic }

// freshRun says how a fresh process ran sched, which ended a target
// process, when it did not end at its last step: o is its outcome (nil:
// none within the schedule).
func freshRun(sched schedule.Schedule, o *search.Outcome) string {
	switch {
	case o == nil:
		return "to its end without dying"
	case o.Kind == search.Diverged:
		return "and diverged from it: " + o.Message
	}
	return fmt.Sprintf("and it ended at step %d of %d (%s)", o.Step, len(sched), o.Kind)
}

// Found is what a search in the targets found.
type Found struct {
	search.Result
	// Minimised is the minimisation of each of Result.Bugs (nil where none
	// was made).
	Minimised []*search.Minimised
	// Ends are the schedules that ended a target process, with the
	// outcome a fresh replay gave them.
	Ends []End
	// Stopped reports a search stopped through ctx; BudgetSpent, one
	// stopped at Spec.SearchUntil.
	Stopped, BudgetSpent bool
}

// Run runs the search of cfg in target processes and merges what they
// find. It returns an error wrapping search.ErrNondeterministic when a
// target saw its program not repeat itself (a *search.StateError when the target
// could not put back the state an execution left in its process), ErrTooManyDeaths when targets
// kept dying, and other errors when a target could not search at all (it
// ended before its first execution, or is not a checkable program); the
// caller may then search out of process.
func Run(ctx context.Context, cfg Config) (*Found, error) {
	jobs := max(cfg.Jobs, 1)
	spec := cfg.Spec
	// A portfolio divided among processes: its exhaustive member among all
	// but the last, which runs the others (search.ExplorePortfolio).
	portfolio := spec.Search.Portfolio() && jobs > 1 && spec.Shards <= 1
	if !portfolio && (!spec.Splittable() || jobs == 1) {
		jobs = 1
	}
	shards := max(spec.Shards, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The first bug (without All) stops the other processes, not the
	// one that found it, which goes on to minimise it.
	wctx := make([]context.Context, jobs)
	wcancel := make([]context.CancelFunc, jobs)
	for w := range jobs {
		wctx[w], wcancel[w] = context.WithCancel(ctx)
		defer wcancel[w]()
	}
	var bugMu sync.Mutex
	byBug := false
	m := &merger{cfg: cfg, said: map[string]bool{}, live: make([]search.Stats, jobs), minimising: make([]search.Stats, jobs)}
	results := make([]*Found, jobs)
	errs := make([]error, jobs)
	var wg sync.WaitGroup
	// The processes of the exhaustive search still running: when none
	// is, a divided portfolio's sampling process is stopped, or not
	// started (exhausted).
	var left sync.WaitGroup
	exhausted := make(chan struct{})
	for w := range jobs {
		s := spec
		switch {
		case portfolio && w < jobs-1:
			s.Search = spec.Search.Exhaustive()
			s.Shard, s.Shards = w, jobs-1
			if spec.MaxExecutions > 0 {
				s.MaxExecutions = max(1, spec.MaxExecutions/int64(jobs))
				if w == 0 {
					s.MaxExecutions = max(1, spec.MaxExecutions-int64(jobs-1)*s.MaxExecutions)
				}
			}
			left.Add(1)
		case portfolio:
			s.Search = spec.Search.WithoutExhaustive()
			if spec.MaxExecutions > 0 {
				s.MaxExecutions = max(1, spec.MaxExecutions/int64(jobs))
			}
		case jobs > 1:
			// Part i of the whole belongs to user shard i mod shards; among
			// the processes of that shard, to process (i div shards) mod
			// jobs.
			s.Shard, s.Shards = spec.Shard+shards*w, shards*jobs
			if spec.MaxExecutions > 0 {
				// The limit is shared.
				s.MaxExecutions = max(1, spec.MaxExecutions/int64(jobs))
				if w == 0 {
					s.MaxExecutions += spec.MaxExecutions % int64(jobs)
				}
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if portfolio && w < jobs-1 {
				defer left.Done()
			}
			if portfolio && w == jobs-1 && !m.lead(wctx[w], exhausted) {
				results[w] = &Found{Stopped: ctx.Err() != nil}
				return
			}
			results[w], errs[w] = m.runOne(wctx[w], w, s, func() {
				if !spec.All {
					// The first bug ends the search.
					bugMu.Lock()
					byBug = true
					bugMu.Unlock()
					for v, c := range wcancel {
						if v != w {
							c()
						}
					}
				}
			})
		}()
	}
	if portfolio {
		go func() {
			left.Wait()
			close(exhausted)
			wcancel[jobs-1]() // the exhaustive search is over
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	out := &Found{Result: search.Result{Complete: true}}
	seen := map[string]bool{}
	for w, r := range results {
		out.Stats = search.Stats.Add(out.Stats, r.Stats)
		if !portfolio || w < jobs-1 {
			// (A portfolio's sampling process never completes: the
			// exhaustive processes decide.)
			out.Complete = out.Complete && r.Complete
		}
		out.DepthLimited = out.DepthLimited || r.DepthLimited
		if out.Loops == nil {
			out.Loops = r.Loops
		}
		out.Cut = max(out.Cut, r.Cut)
		out.Stopped = out.Stopped || r.Stopped
		out.BudgetSpent = out.BudgetSpent || r.BudgetSpent
		out.Ends = append(out.Ends, r.Ends...)
		for i, b := range r.Bugs {
			if seen[b.Outcome.Key()] {
				continue
			}
			seen[b.Outcome.Key()] = true
			out.Bugs = append(out.Bugs, b)
			out.Minimised = append(out.Minimised, r.Minimised[i])
		}
	}
	if !spec.All && len(out.Bugs) > 1 {
		out.Bugs, out.Minimised = out.Bugs[:1], out.Minimised[:1]
	}
	out.Stopped = out.Stopped && (ctx.Err() != nil || byBug)
	return out, nil
}

// merger gathers what the processes of one Run report.
type merger struct {
	cfg        Config
	mu         sync.Mutex
	said       map[string]bool
	live       []search.Stats // each process's latest progress
	dead       search.Stats   // the work of processes that died
	minimising []search.Stats
	began      *Began // the deadlines the first process to search took
}

// deadlines gives spec the deadlines of the first process that began to
// search, if one did: a process started later (after a death, or a
// portfolio's sampling process after its lead) searches until the same
// time as the others.
func (m *merger) deadlines(spec *Spec) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b := m.began; b != nil && spec.SearchUntil == 0 {
		spec.SearchUntil, spec.MinimiseUntil = b.SearchUntil, b.MinimiseUntil
	}
}

func (m *merger) progress(w int, st search.Stats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.live[w] = st
	if m.cfg.Progress == nil {
		return
	}
	sum := m.dead
	for _, s := range m.live {
		sum = search.Stats.Add(sum, s)
		sum.Depth = max(sum.Depth, s.Depth)
	}
	m.cfg.Progress(sum)
}

func (m *merger) minimise(w int, st search.Stats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.minimising[w] = st
	if m.cfg.Minimising == nil {
		return
	}
	var sum search.Stats
	for _, s := range m.minimising {
		sum = search.Stats.Add(sum, s)
		sum.Depth = max(sum.Depth, s.Depth)
	}
	m.cfg.Minimising(sum)
}

func (m *merger) bug(b search.Bug) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.said[b.Outcome.Key()] {
		return false
	}
	m.said[b.Outcome.Key()] = true
	if m.cfg.OnBug != nil {
		m.cfg.OnBug(b)
	}
	return true
}

// lead waits, before a divided portfolio's sampling process starts, for
// its lead (Config.SamplingLead), and reports whether the process is to
// start: not when the exhaustive processes ended first (exhausted is
// closed) or ctx is done.
func (m *merger) lead(ctx context.Context, exhausted <-chan struct{}) bool {
	d := cmp.Or(m.cfg.SamplingLead, search.PortfolioLeadTime)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-exhausted:
	case <-ctx.Done():
	}
	return false
}

// runOne runs the search of spec in process after process until one sends
// its result.
func (m *merger) runOne(ctx context.Context, w int, spec Spec, onBug func()) (*Found, error) {
	maxRestarts := m.cfg.MaxRestarts
	if maxRestarts == 0 {
		maxRestarts = DefaultMaxRestarts
	}
	dir, err := os.MkdirTemp("", "stdbg-targetsearch-")
	if err != nil {
		return nil, fmt.Errorf("searching in the target: %w", err)
	}
	defer os.RemoveAll(dir)
	var ends []End
	for restart := 0; ; restart++ {
		spec.Ends = append(spec.Ends[:0:0], ends...)
		m.deadlines(&spec)
		trace := filepath.Join(dir, "trace"+strconv.Itoa(restart))
		res, tail, streamed, err := m.process(ctx, w, spec, trace, onBug)
		if errors.Is(err, errOverran) {
			// What it sent is what it found, within the budget.
			m.mu.Lock()
			stats := search.Stats.Add(m.dead, m.live[w])
			m.mu.Unlock()
			return &Found{Result: search.Result{Bugs: streamed, Stats: stats}, Minimised: make([]*search.Minimised, len(streamed)),
				BudgetSpent: true, Ends: ends}, nil
		}
		if err != nil {
			return nil, err
		}
		if res != nil {
			return m.found(res, ends)
		}
		if ctx.Err() != nil {
			// Killed while stopping: what it sent is what it found.
			m.mu.Lock()
			stats := search.Stats.Add(m.dead, m.live[w])
			m.mu.Unlock()
			return &Found{Result: search.Result{Bugs: streamed, Stats: stats}, Minimised: make([]*search.Minimised, len(streamed)),
				Stopped: true, Ends: ends}, nil
		}
		// The process died mid-search: learn how the execution under way
		// ends, and search again past it.
		sched, ok, rerr := ReadTrace(trace)
		if rerr != nil {
			return nil, rerr
		}
		if !ok {
			return nil, fmt.Errorf("the target ended (%s) during an execution longer than the depth bound %d", tail, spec.MaxDepth)
		}
		if len(sched) == 0 {
			return nil, fmt.Errorf("the target ended (%s) before its first scheduling point", tail)
		}
		if restart >= maxRestarts {
			return nil, ErrTooManyDeaths
		}
		m.deadlines(&spec)
		rctx, cancel := ctx, func() {}
		if spec.SearchUntil != 0 {
			rctx, cancel = context.WithDeadline(ctx, time.Unix(0, spec.SearchUntil))
		}
		o, rerr := m.cfg.Replay(rctx, sched)
		stopped := rctx.Err()
		cancel()
		if rerr != nil && stopped != nil && errors.Is(rerr, stopped) {
			// No time left to learn how the schedule ends.
			why := "the budget ran out"
			if ctx.Err() != nil {
				why = "the search was stopped"
			}
			return nil, &DeathError{Schedule: sched.String(), How: tail, Unknown: true,
				Fresh: why + " before a fresh process could run that schedule to its end"}
		}
		if rerr != nil {
			return nil, fmt.Errorf("replaying %s, which ended the target: %w", sched, rerr)
		}
		if o == nil || o.Kind == search.Diverged || o.Step != len(sched) {
			// A fresh process goes on where the search's died: the
			// search's process was not in the state the schedule
			// makes, or something else in it killed it.
			return nil, &DeathError{Schedule: sched.String(), How: tail, Fresh: freshRun(sched, o)}
		}
		end := End{Schedule: sched.String(), Outcome: *o}
		ends = append(ends, end)
		if m.cfg.OnEnd != nil {
			m.cfg.OnEnd(end, tail)
		}
		m.mu.Lock()
		elapsed := m.dead.Elapsed + m.live[w].Elapsed // one after the other
		m.dead = search.Stats.Add(m.dead, m.live[w])
		m.dead.Elapsed = elapsed
		m.live[w] = search.Stats{}
		m.mu.Unlock()
	}
}

// found converts a process's result.
func (m *merger) found(res *Result, ends []End) (*Found, error) {
	if res.KeptState != "" {
		return nil, fmt.Errorf("searching in the target: %w", &search.StateError{State: res.KeptState})
	}
	if res.Nondeterministic {
		return nil, fmt.Errorf("searching in the target: %w", search.ErrNondeterministic)
	}
	if res.CannotJudge {
		// The message holds the sentinel's, after where it arose.
		_, why, _ := strings.Cut(res.Error, search.ErrCannotJudge.Error())
		return nil, fmt.Errorf("%w%s", search.ErrCannotJudge, why)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("searching in the target: %s", res.Error)
	}
	m.mu.Lock()
	stats := search.Stats.Add(m.dead, res.Stats)
	stats.Elapsed = m.dead.Elapsed + res.Stats.Elapsed
	m.mu.Unlock()
	out := &Found{Result: search.Result{Stats: stats, Complete: res.Complete, DepthLimited: res.DepthLimited, Cut: res.Cut, Loops: res.Loops},
		Stopped: res.Stopped, BudgetSpent: res.BudgetSpent, Ends: ends}
	for _, b := range res.Bugs {
		sb, err := b.SearchBug()
		if err != nil {
			return nil, err
		}
		var min *search.Minimised
		if b.Minimised != nil {
			if min, err = b.Minimised.SearchMinimised(); err != nil {
				return nil, err
			}
		}
		out.Bugs = append(out.Bugs, sb)
		out.Minimised = append(out.Minimised, min)
	}
	return out, nil
}

// process runs one target process: its result, or nil if it died first
// (with the tail of its standard error, for messages).
func (m *merger) process(ctx context.Context, w int, spec Spec, trace string, onBug func()) (res *Result, tail string, streamed []search.Bug, err error) {
	if err := CreateTrace(trace, spec.MaxDepth+1); err != nil {
		return nil, "", nil, err
	}
	// The target gets the trace open, not its path: a target that runs
	// as another user (confined by Wrap) could not open it.
	traceF, err := os.OpenFile(trace, os.O_RDWR, 0)
	if err != nil {
		return nil, "", nil, fmt.Errorf("opening the trace file: %w", err)
	}
	defer traceF.Close()
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, "", nil, err
	}
	streamR, streamW, err := os.Pipe()
	if err != nil {
		return nil, "", nil, err
	}
	defer streamR.Close()
	stopR, stopW, err := os.Pipe()
	if err != nil {
		streamW.Close()
		return nil, "", nil, err
	}
	defer stopW.Close()
	cmd, tmp := targetCommand(&m.cfg, SpecEnv+"="+string(js), StreamEnv+"=3", StopEnv+"=4", TraceEnv+"=5")
	defer tmp.Remove()
	cmd.ExtraFiles = []*os.File{streamW, stopR, traceF}
	stderr := &tailBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	started := time.Now()
	err = cmd.Start()
	streamW.Close()
	stopR.Close()
	if err != nil {
		return nil, "", nil, fmt.Errorf("starting %s: %w", m.cfg.Binary, err)
	}
	// The race detector's reports of the process, which its runtime read:
	// kept for what the detector says of its death.
	raceLog := rtnames.RaceLogFile(cmd.Env, cmd.Process.Pid)
	defer os.Remove(raceLog)
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		// The processes the program started and left running (a test's
		// peers) end with it: they are in its process group, whose id
		// stays reserved while one of them is in it.
		procgroup.Kill(cmd.Process.Pid)
		close(exited)
	}()
	grace := m.cfg.Grace
	if grace == 0 {
		grace = 10 * time.Second
	}
	kill := func() { procgroup.Kill(cmd.Process.Pid) }
	// The target keeps its budget itself, but one that does not (stuck in
	// a system call, or in code that never reaches a scheduling point) is
	// stopped a grace period after the budget's end, as a stop would stop
	// it: the budget bounds the search whatever the target does.
	overran := make(chan struct{})
	var overrun sync.Once
	var overTimer *time.Timer
	arm := func(until int64) {
		if until == 0 || overTimer != nil {
			return
		}
		overTimer = time.AfterFunc(time.Until(time.Unix(0, until))+grace, func() { overrun.Do(func() { close(overran) }) })
	}
	arm(spec.MinimiseUntil)
	defer func() {
		if overTimer != nil {
			overTimer.Stop()
		}
	}()
	// Told to stop: the target stops at once and sends its result; one
	// that does not within the grace period is killed.
	go func() {
		select {
		case <-ctx.Done():
		case <-overran:
		case <-exited:
			return
		}
		stopW.Close()
		select {
		case <-exited:
		case <-time.After(grace):
			kill()
		}
	}()
	res, rerr := Read(streamR, func(msg Message) {
		switch {
		case msg.Began != nil:
			m.mu.Lock()
			if m.began == nil {
				m.began = msg.Began
			}
			m.mu.Unlock()
			arm(msg.Began.MinimiseUntil)
		case msg.Progress != nil:
			m.progress(w, *msg.Progress)
		case msg.Minimising != nil:
			m.minimise(w, *msg.Minimising)
		case msg.Bug != nil:
			if b, err := msg.Bug.SearchBug(); err == nil {
				streamed = append(streamed, b)
				if m.bug(b) {
					onBug()
				}
			}
		}
	})
	if res != nil {
		select {
		case <-exited:
		case <-time.After(grace):
			kill()
			<-exited
		}
		return res, "", streamed, nil
	}
	// The stream ended without a result: the process is ending.
	select {
	case <-exited:
	case <-time.After(grace):
		kill()
		<-exited
	}
	if rerr != nil {
		return nil, "", nil, rerr
	}
	select {
	case <-overran:
		return nil, "", streamed, errOverran
	default:
	}
	return nil, stderr.describe(cmd.ProcessState, raceLog, started), streamed, nil
}

// errOverran is process's error for a target that went on past the end of
// its budget and was stopped.
var errOverran = errors.New("the target went on past the end of its budget")

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// describe says how the process ended ("exit status 3"), with the last
// line of its standard error, or else the last of the race detector's
// file raceLog (where the detector writes its own death, in a target
// started with rtnames.WithRaceLog) if the process wrote it: it started at
// started, and a file last written before then is an earlier process's of
// the same id (one killed before it was removed), not this one's.
func (t *tailBuffer) describe(ps *os.ProcessState, raceLog string, started time.Time) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := "ended"
	if ps != nil {
		s = ps.String()
	}
	if last := lastLine(string(t.b)); last != "" {
		return s + ": " + last
	}
	if b, err := readTailSince(raceLog, 4096, started); err == nil {
		if last := lastLine(strings.ReplaceAll(string(b), "==================", "")); last != "" {
			return s + ": " + last
		}
	}
	return s + ", with nothing on its standard error"
}

// lastLine returns the last line of s that is not blank, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// readTailSince returns the last n bytes of the file at path ("": none),
// if it was last written at since or later (os.ErrNotExist if not).
func readTailSince(path string, n int64, since time.Time) ([]byte, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.ModTime().Before(since) {
		return nil, os.ErrNotExist
	}
	if st.Size() > n {
		if _, err := f.Seek(st.Size()-n, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n))
}

// targetCommand returns the command that starts a search process of the
// target cfg names, with env added to its environment, and the temporary
// directory of its own that the process gets (TMPDIR; remove it once the
// process has ended: what a test ended by os.Exit before package testing
// removes its t.TempDir goes with it). The process leads a process group
// (what the program starts and leaves running is killed with it, by the
// caller, once it is reaped), dies with stdbg, and is not waited for past
// 2 s on output that such a leftover holds. A target run as another user
// (Wrap) writes the race detector's reports where that user may, not into
// stdbg's cache.
func targetCommand(cfg *Config, env ...string) (*exec.Cmd, *targettmp.Dir) {
	cmd := exec.Command(cfg.Binary, cfg.Args...)
	if w := cfg.Wrap; len(w) > 0 {
		cmd = exec.Command(w[0], append(append(w[1:len(w):len(w)], cfg.Binary), cfg.Args...)...)
	}
	cmd.Dir = cfg.Dir
	withRaceLog := rtnames.WithRaceLog
	if len(cfg.Wrap) > 0 {
		withRaceLog = rtnames.WithSharedRaceLog
	}
	tmp := targettmp.New(len(cfg.Wrap) > 0)
	cmd.Env = append(withRaceLog(tmp.Env(append(os.Environ(), cfg.Env...))), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 2 * time.Second
	return cmd, tmp
}
