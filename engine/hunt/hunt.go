// Package hunt is the pipeline every front end of stdbg shares, from a
// program to the reports of its bugs: explore the schedules, check an LTL
// formula on the explored state graph, minimise each bug found, explain it
// (its report, from a replay with full stacks), and save it to the corpus.
//
// A front end (stdbg find, sthread.Check and sthread.Explore) supplies the
// executor of its program and what only it knows: how to replay a bug with
// full stacks and build its report, the command that replays a schedule,
// the target of a corpus entry. It prints the Result its own way.
//
// The replay half is here too: Replay runs one schedule (or a lasso) on an
// execution, with a hook before each step for a debugger, and Judge gives
// the verdict on a stored bug replayed again (reproduces, fails
// differently, fixed, diverged), for stdbg corpus run and the corpus of
// sthread.Check alike.
package hunt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// Config is one hunt.
type Config struct {
	// Executor runs the executions of the search and of minimisation.
	Executor search.Executor
	// Strategy explores (nil: search.NewDPOR()).
	Strategy search.Strategy
	// Request is the hunt asked for: its depth bound (which also bounds
	// minimisation), All, the execution limit, the budget and the
	// minimisation. (Its Search names the search for a front end that
	// builds the Strategy, or divides the search, from it.)
	Request
	// Options are the search's callbacks and stateful search; the
	// Request sets their MaxDepth, All and MaxExecutions (Request.SearchOptions).
	Options search.Options
	// Explore, if not nil, replaces search.Explore(ctx, Executor, Strategy,
	// Options): a search divided among processes, or run inside the target.
	// ctx carries the search's share of the Budget; Explore says whether it
	// was spent (Explored.BudgetSpent).
	Explore func(ctx context.Context, opts search.Options) (*Explored, error)
	// LTL, if not nil, is checked on the state graph of a complete search
	// that found no bug (or with Options.All); Options.Graph must be set.
	LTL *ltl.Formula
	// MinimiseProgress, if not nil, is told of a minimisation under way
	// (Request.Minimise).
	MinimiseProgress func(search.Stats)
	// MinimiseNoReduction proves minimisations without the model's
	// independence (search.MinimiseOptions.NoReduction): for a search run
	// without reduction.
	MinimiseNoReduction bool
	// The Request's Budget bounds the whole hunt's wall time. The search
	// gets four fifths of it when bugs are to be minimised, minimisation
	// up to nine tenths, and the replays that explain the bugs the rest
	// (see Deadlines).
	//
	// SearchContext and MinimiseContext, if not nil, are the contexts the
	// search and the minimisation run under, in place of ctx and the
	// Budget's shares of it: a front end that cannot start timers (a Go
	// target searching in its own process, whose race detector must see
	// no goroutine of the search's) cancels them itself.
	SearchContext, MinimiseContext context.Context
	// StepDeadline, if not nil, is told when each phase that runs on the
	// Executor must end, as its context says (the zero time: no end): the
	// search's before the search (unless Explore replaces it: that one
	// has its context), each minimisation's before it, and none after
	// each. A runtime that cuts a step still running then (a process
	// driven from stdbg: targetproc.Process.SetDeadline) keeps the budget
	// within a step, which the contexts, looked at between steps, cannot.
	StepDeadline func(time.Time)
	// Prefix, if not empty, makes the search explore only the schedules
	// that begin with it (search.Under): the bugs it finds have the
	// prefix, and minimisation may change it.
	Prefix schedule.Schedule
	// Pick, if not nil, chooses among the bugs the search found those the
	// hunt minimises, explains and saves (all of them by default).
	Pick func([]search.Bug) []search.Bug
	// Explain replays a bug (a lasso when its Cycle is set) with full stacks
	// and returns its report; nil: no reports. ctx ends with the budget
	// (and StepDeadline is told its end): a replay that it cuts, or whose
	// step the runtime cut there (search.ErrStepCut), leaves the bug with
	// the report of it as found (AsFound), saved all the same.
	Explain func(ctx context.Context, bug search.Bug) (*Explanation, error)
	// Nondeterminism is the note added to a report whose replay did not end
	// as the bug did ("the program may do something nondeterministic
	// between thread operations"); Hints, if not nil, adds notes of the
	// front end's own to it.
	Nondeterminism string
	Hints          func() []string
	// ReplayCommand, if not nil, is the command that replays a schedule
	// (its text form, a lasso's "stem (cycle)*"): the report's Replay.
	ReplayCommand func(sched string) string
	// Corpus, if not nil, is where each bug is saved.
	Corpus *Corpus
	// Warn, if not nil, is told of what went wrong without ending the hunt
	// (a minimisation that failed).
	Warn func(string)
	// Reported, if not nil, is told of each finding as soon as it is
	// final, and of each bug that is to be minimised as soon as it is
	// found, before its minimisation: explained and saved as found, with
	// Finding.Minimising set. Such a bug is told of again when its
	// minimisation ends, minimised (its corpus entry replacing the one of
	// the bug as found: Finding.Replaced); that is the finding in the
	// Result.
	Reported func(*Finding)
}

// MinimiseFactor and MinimiseFloor bound each minimisation's wall time
// (MinimiseTime): a minimisation never takes much longer than the search
// that found its bug.
const MinimiseFactor = 4

// MinimiseFloor is the least wall time a minimisation gets (a variable for
// the tests of the bound).
var MinimiseFloor = 5 * time.Second

// MinimiseTime is the most wall time a minimisation of a bug found by a
// search of the given wall time may take: MinimiseFactor times as long, and
// at least MinimiseFloor. When it is spent the minimisation stops with the
// best schedule it has, which its report says is not proven minimal.
func MinimiseTime(search time.Duration) time.Duration {
	return max(MinimiseFactor*search, MinimiseFloor)
}

// Explored is what Config.Explore found.
type Explored struct {
	search.Result
	// Minimised is the minimisation of each of Result.Bugs, made where the
	// search ran (nil entries, or a short slice, where none was made).
	Minimised []*search.Minimised
	// BudgetSpent reports a search stopped by its budget.
	BudgetSpent bool
	// Notes, keyed by a bug's schedule as found (its text form), are
	// notes for its report: what could not be done with it (a replay
	// that was to confirm it, cut by the budget).
	Notes map[string][]string
}

// Explanation is a bug's replay with full stacks.
type Explanation struct {
	// Report is the replay's report (nil: the front end has none).
	Report *report.Report
	// Outcome is how the replay ended (nil: cleanly); Lasso, for a lasso,
	// is the replay of its stem and one run of its cycle.
	Outcome *search.Outcome
	Lasso   *search.LassoRun
}

// Finding is one bug with its report.
type Finding struct {
	// Bug is the bug, with its minimised schedule where it was minimised.
	Bug search.Bug
	// Found is its schedule as the search found it (as it ran to the
	// failure, when minimised).
	Found schedule.Schedule
	// Minimised is its minimisation (nil: not minimised).
	Minimised *search.Minimised
	// Report is its report (nil without Config.Explain, or when the front
	// end could not build one); its Replay, FoundBy, Minimised, Saved and
	// AlreadySaved are filled in.
	Report *report.Report
	// Saved is the corpus entry holding the bug, AlreadySaved set when it
	// was there before; SaveErr says why it could not be saved.
	Saved        string
	AlreadySaved bool
	SaveErr      error
	// Minimising is set on a finding told to Config.Reported before its
	// minimisation: the bug as found, which a minimised finding follows.
	// MinimiseFor is then the most time the minimisation may take
	// (MinimiseTime, or what is left of the minimisation's share of the
	// budget when that is less, Deadlines;
	// 0: what the front end's MinimiseContext allows, or none left).
	Minimising  bool
	MinimiseFor time.Duration
	// Replaced, in a minimised finding, is the corpus entry of the bug as
	// found that its own entry replaced ("" when there was none to
	// replace: not saved, or an older entry that holds a minimisation).
	Replaced string
}

// Result is what a hunt found.
type Result struct {
	// Search is the exploration's own result (its Bugs as found).
	Search search.Result
	// Findings are the bugs, minimised, explained and saved, in the order
	// found: at most one unless Options.All, and then one per distinct
	// bug; a violation of the LTL formula comes last.
	Findings []*Finding
	// Stats counts the search's work and minimisation's; its Elapsed is
	// the wall time of the whole hunt (search, minimisation, reports).
	Stats search.Stats
	// Interrupted reports a hunt stopped through its context; BudgetSpent,
	// a search stopped by the budget.
	Interrupted, BudgetSpent bool
	// Notes say what the hunt could not do (an LTL formula not checked).
	Notes []string
}

// Run runs the hunt of cfg. A search stopped through ctx or by the budget
// is not an error: the bugs found so far are explained and saved, not
// minimised (those found before the budget ran out are, with what is left
// of it). The error reports a search that could not go on (with the
// partial result), a formula that could not be checked, or a bug that
// could not be explained.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	out, err := run(ctx, cfg)
	if out != nil {
		out.Stats.Elapsed = time.Since(start)
	}
	return out, err
}

func run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.Options = cfg.SearchOptions(cfg.Options)
	if cfg.Minimise && len(cfg.Prefix) == 0 && !cfg.MinimiseNoReduction && cfg.Options.Failures == nil {
		// The search keeps the shortest traces of its bugs: when it
		// was the reducing search a minimisation proves with, the
		// proof takes its result from there (search.Failures).
		cfg.Options.Failures = &search.Failures{}
	}
	searchCtx, minCtx := ctx, ctx
	// The end of the minimisations and of the budget (zero: none).
	var minUntil, until time.Time
	if cfg.Budget > 0 {
		var searchUntil time.Time
		now := time.Now()
		searchUntil, minUntil = Deadlines(now, cfg.Budget, cfg.Minimise)
		until = now.Add(cfg.Budget)
		var cancel, cancelMin context.CancelFunc
		searchCtx, cancel = context.WithDeadline(ctx, searchUntil)
		defer cancel()
		minCtx, cancelMin = context.WithDeadline(ctx, minUntil)
		defer cancelMin()
	}
	if cfg.SearchContext != nil {
		searchCtx = cfg.SearchContext
	}
	if cfg.MinimiseContext != nil {
		minCtx = cfg.MinimiseContext
	}
	if cfg.Explore == nil {
		cfg.stepDeadline(searchCtx)
	}
	t0 := time.Now()
	found, err := explore(searchCtx, &cfg)
	if cfg.Explore == nil {
		cfg.noStepDeadline()
	}
	searched := time.Since(t0)
	out := &Result{Search: found.Result, Stats: found.Stats, Interrupted: ctx.Err() != nil}
	out.BudgetSpent = !out.Interrupted && found.BudgetSpent
	stopped := out.Interrupted || out.BudgetSpent
	if err != nil && (!stopped || errors.Is(err, search.ErrCannotJudge)) {
		// (An execution that the checker cannot judge is a verdict on
		// the program, even when the budget ran out as it was found.)
		return out, err
	}
	bugs := found.Bugs
	if cfg.Pick != nil {
		bugs = cfg.Pick(bugs)
	}
	if cfg.LTL != nil && !stopped && (len(bugs) == 0 || cfg.Options.All) {
		lb, note, err := checkLTL(&found.Result, cfg.LTL, cfg.Options.Fairness)
		if err != nil {
			return out, err
		}
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
		if lb != nil {
			bugs = append(bugs[:len(bugs):len(bugs)], *lb)
		}
	}
	for i, bug := range bugs {
		var min *search.Minimised
		if i < len(found.Minimised) && cfg.Pick == nil {
			min = found.Minimised[i]
		}
		var first *Finding // the bug as found, reported before its minimisation
		unminimised := ""
		if min == nil && cfg.Minimise && !out.Interrupted && bug.Cycle == nil {
			if cfg.Reported != nil {
				first = &Finding{Bug: bug, Found: bug.Schedule, Minimising: true}
				if cfg.MinimiseContext == nil {
					first.MinimiseFor = MinimiseTime(searched)
					if !minUntil.IsZero() {
						// The budget's end comes first.
						if left := time.Until(minUntil); left < first.MinimiseFor {
							first.MinimiseFor = max(left, 0)
						}
					}
				}
				if err := explain(ctx, until, &cfg, first, found.Notes[bug.Schedule.String()]); err != nil {
					return out, err
				}
				if cfg.Corpus != nil {
					cfg.Corpus.save(first, cfg.Options.MaxDepth)
				}
				cfg.Reported(first)
			}
			min, unminimised = minimise(ctx, minCtx, &cfg, bug, found.Stats.Executions, searched)
		}
		f := &Finding{Bug: bug, Found: bug.Schedule}
		if min != nil {
			f.Minimised = min
			f.Bug.Schedule, f.Bug.Outcome, f.Found = min.Schedule, min.Outcome, min.Original
			out.Stats = out.Stats.Add(search.Stats{Executions: min.Stats.Executions, Transitions: min.Stats.Transitions})
		}
		if first != nil && first.Report != nil && f.Bug.Schedule.Equal(first.Bug.Schedule) {
			// Minimisation kept the schedule found: its report stands,
			// with what the minimisation proved.
			r := *first.Report
			r.Notes = append([]string(nil), first.Report.Notes...)
			f.Report = &r
			annotate(&cfg, f)
		} else if err := explain(ctx, until, &cfg, f, found.Notes[bug.Schedule.String()]); err != nil {
			return out, err
		}
		if f.Report != nil && unminimised != "" {
			f.Report.Notes = append(f.Report.Notes, unminimised)
		}
		if cfg.Corpus != nil {
			if first != nil {
				cfg.Corpus.replace(f, first, cfg.Options.MaxDepth)
			} else {
				cfg.Corpus.save(f, cfg.Options.MaxDepth)
			}
		}
		if cfg.Reported != nil {
			cfg.Reported(f)
		}
		out.Findings = append(out.Findings, f)
	}
	return out, nil
}

// explore runs the search, the front end's or search.Explore.
func explore(ctx context.Context, cfg *Config) (*Explored, error) {
	if cfg.Explore != nil {
		found, err := cfg.Explore(ctx, cfg.Options)
		if found == nil {
			found = &Explored{}
		}
		return found, err
	}
	st := cfg.Strategy
	if st == nil {
		st = search.NewDPOR()
	}
	ex, opts := cfg.Executor, cfg.Options
	if len(cfg.Prefix) > 0 {
		ex = search.Under(ex, cfg.Prefix)
		if opts.MaxDepth > 0 {
			opts.MaxDepth = max(opts.MaxDepth-len(cfg.Prefix), 1)
		}
	}
	res, err := search.Explore(ctx, ex, st, opts)
	if res == nil {
		res = &search.Result{}
	}
	if len(cfg.Prefix) > 0 {
		for i := range res.Bugs {
			b := &res.Bugs[i]
			b.Schedule = append(append(schedule.Schedule{}, cfg.Prefix...), b.Schedule...)
		}
	}
	// (A step that the runtime cut at the deadline may end the search
	// before the context's own timer has fired.)
	return &Explored{Result: *res, BudgetSpent: ctx.Err() != nil || errors.Is(err, search.ErrStepCut)}, err
}

// stepDeadline tells Config.StepDeadline the end of ctx.
func (cfg *Config) stepDeadline(ctx context.Context) {
	if cfg.StepDeadline != nil {
		d, _ := ctx.Deadline()
		cfg.StepDeadline(d)
	}
}

// noStepDeadline tells Config.StepDeadline that the phase is over: no
// end.
func (cfg *Config) noStepDeadline() {
	if cfg.StepDeadline != nil {
		cfg.StepDeadline(time.Time{})
	}
}

// Deadlines splits a budget of wall time starting at start: the search
// runs until searchUntil, four fifths of it when its bugs are to be
// minimised (all of it otherwise), and their minimisation until
// minimiseUntil, nine tenths of it: the last tenth is kept for the replays
// that explain the bugs (their reports, with full stacks), which end with
// the budget (start + budget). Every front end splits its budget here.
func Deadlines(start time.Time, budget time.Duration, minimise bool) (searchUntil, minimiseUntil time.Time) {
	if !minimise {
		return start.Add(budget), start.Add(budget)
	}
	return start.Add(budget * 4 / 5), start.Add(budget * 9 / 10)
}

// minimise minimises a bug found by a search of searchExecs executions and
// the given wall time, within MinimiseTime of it (unless the front end
// keeps the minimisation's time itself: Config.MinimiseContext); when it
// could not, it says why in a note for the report ("" when there is
// nothing to say).
func minimise(ctx, minCtx context.Context, cfg *Config, bug search.Bug, searchExecs int64, searched time.Duration) (*search.Minimised, string) {
	bounded := minCtx
	var bound time.Duration
	if cfg.MinimiseContext == nil {
		bound = MinimiseTime(searched)
		var cancel context.CancelFunc
		bounded, cancel = context.WithTimeout(minCtx, bound)
		defer cancel()
	}
	cfg.stepDeadline(bounded)
	m, err := search.Minimise(bounded, cfg.Executor, bug, search.MinimiseOptions{MaxDepth: cfg.Options.MaxDepth,
		MaxExecutions: cfg.MinimiseExecutions, Exhaustive: true, Progress: cfg.MinimiseProgress,
		SearchExecutions: searchExecs, NoReduction: cfg.MinimiseNoReduction, Failures: cfg.Options.Failures})
	cfg.noStepDeadline()
	switch {
	case err == nil:
		if !m.Proven && minCtx.Err() == nil && bounded.Err() != nil {
			m.Unproven = fmt.Sprintf("stopped at its bound of %s (%d times the search's %s, at least %s)",
				roundTime(bound), MinimiseFactor, roundTime(searched), MinimiseFloor)
		}
		return m, ""
	case errors.Is(err, search.ErrStepCut):
		// The runtime cut a step at the budget's end.
		return nil, "not minimised: the budget ran out during its minimisation"
	case minCtx.Err() == nil && bounded.Err() != nil:
		return nil, fmt.Sprintf("not minimised: its bound of %s (%d times the search's %s, at least %s) was spent replaying it",
			roundTime(bound), MinimiseFactor, roundTime(searched), MinimiseFloor)
	case minCtx.Err() == nil:
		if cfg.Warn != nil {
			cfg.Warn(fmt.Sprintf("could not minimise the %s: %v", bug.Outcome.Kind, err))
		}
	case ctx.Err() == nil:
		return nil, "not minimised: the budget was spent before minimisation could start"
	}
	return nil, ""
}

// roundTime is d as a user reads it: to the millisecond under a second,
// else to the tenth of a second.
func roundTime(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// checkLTL checks f on the state graph of a complete search; a search that
// is not complete leaves the formula unchecked, which the note says.
func checkLTL(res *search.Result, f *ltl.Formula, fair search.Fairness) (*search.Bug, string, error) {
	if !res.Complete || res.Graph == nil {
		return nil, fmt.Sprintf("the formula %s was not checked: the exploration is incomplete", f), nil
	}
	v, err := ltl.CheckFair(res.Graph, f, fair)
	if err != nil {
		return nil, "", fmt.Errorf("checking %s: %w", f, err)
	}
	if v == nil {
		return nil, "", nil
	}
	return &search.Bug{Schedule: v.Lasso.Stem, Cycle: v.Lasso.Cycle, Outcome: v.Outcome()}, "", nil
}

// ErrNoReplay is wrapped by Run's error when the front end could not
// replay a bug to explain it.
var ErrNoReplay = errors.New("replaying the bug")

// explain builds the finding's report: the front end's replay, marked with
// the bug it shows whatever the replay gave, and the minimisation; notes
// are the search's notes for the bug (Explored.Notes). The
// replay ends at until, the budget's end (zero: none; a hunt stopped
// through ctx still explains the bugs it found): one cut there leaves the
// report of the bug as found (AsFound), which says what was cut.
func explain(ctx context.Context, until time.Time, cfg *Config, f *Finding, notes []string) error {
	if cfg.Explain == nil {
		return nil
	}
	xctx := context.WithoutCancel(ctx)
	if !until.IsZero() {
		var cancel context.CancelFunc
		xctx, cancel = context.WithDeadline(xctx, until)
		defer cancel()
	}
	var x *Explanation
	err := xctx.Err() // none left: no replay begins
	if err == nil {
		cfg.stepDeadline(xctx)
		x, err = cfg.Explain(xctx, f.Bug)
		cfg.noStepDeadline()
	}
	var r *report.Report
	switch {
	case err != nil && (xctx.Err() != nil || errors.Is(err, search.ErrStepCut)):
		r = AsFound(f.Bug, ExplainCut)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNoReplay, err)
	case x == nil || x.Report == nil:
		return nil
	default:
		r = x.Report
		Mark(x, f.Bug, cfg.Nondeterminism, cfg.Hints)
	}
	r.FoundBy = f.Bug.By
	r.Notes = append(r.Notes, notes...)
	f.Report = r
	annotate(cfg, f)
	return nil
}

// ExplainCut is the note of a report made without a replay because the
// budget ran out during it.
const ExplainCut = "explain cut by the budget: the bug's replay for its report ran out of time, so its trace and stacks " +
	"were not collected; the failure is as the search saw it"

// AsFound is the report of a bug as the search saw it, without a replay:
// its kind, message and schedule (a lasso's stem and cycle), with no
// trace nor stacks, and the note that says why.
func AsFound(bug search.Bug, note string) *report.Report {
	o := bug.Outcome
	r := &report.Report{Kind: o.Kind.String(), Bug: true, Banner: report.Banner(o.Kind), Message: o.Message,
		Path: bug.Schedule.String()}
	if o.Kind == search.DataRace {
		// In the program's terms, without stdbg's frames.
		r.Message = report.RaceMessage(o.Message)
	}
	if o.Where != "" {
		r.Notes = append(r.Notes, "the failure is at "+o.Where)
	}
	if bug.Cycle != nil {
		r.Cycle, r.CycleStart = bug.Cycle.String(), len(bug.Schedule)+1
	}
	r.Notes = append(r.Notes, note)
	return r
}

// annotate adds to the finding's report what its minimisation did, and
// forgets where an earlier report of it was saved.
func annotate(cfg *Config, f *Finding) {
	r := f.Report
	r.Saved, r.AlreadySaved = "", false
	if cfg.ReplayCommand != nil {
		r.Replay = cfg.ReplayCommand(search.LassoString(f.Bug.Schedule, f.Bug.Cycle))
	}
	if m := f.Minimised; m != nil {
		r.Minimised = &report.Minimisation{FromLength: m.OriginalLength, FromPreemptions: m.OriginalPreemptions,
			Length: m.Length, Preemptions: m.Preemptions, Proven: m.Proven, Executions: m.Stats.Executions,
			Original: m.Original.String(), LowerLength: m.LowerLength, LowerPreemptions: m.LowerPreemptions,
			Unproven: m.Unproven}
	}
}

// Mark makes x.Report, the report of a replay of bug's schedule, the
// report of the bug, whatever the replay gave: when the replay did not end
// as the bug did, the report says so in a note (ending with
// nondeterminism, the front end's guess at why, and followed by the notes
// of hints, if not nil) and still shows the bug's kind, message and
// schedule. A lasso's report also gets its cycle and the propositions'
// values at each step.
func Mark(x *Explanation, bug search.Bug, nondeterminism string, hints func() []string) {
	r := x.Report
	if bug.Cycle != nil {
		markLasso(r, bug, x.Lasso)
		return
	}
	if r.Path == "" {
		r.Path = bug.Schedule.String()
	}
	if o := x.Outcome; o == nil || o.Kind != bug.Outcome.Kind || o.Where != bug.Outcome.Where {
		got := "no failure"
		if o != nil {
			got = o.Kind.String() + " (" + o.Message + ")"
		}
		note := fmt.Sprintf("replaying the schedule gave %s instead of %s", got, bug.Outcome.Kind)
		if nondeterminism != "" {
			note += ": " + nondeterminism
		}
		r.Notes = append(r.Notes, note)
		if hints != nil {
			r.Notes = append(r.Notes, hints()...)
		}
		r.Kind, r.Banner, r.Message, r.Bug = bug.Outcome.Kind.String(), report.Banner(bug.Outcome.Kind), bug.Outcome.Message, true
		r.Path = bug.Schedule.String()
	}
}

// markLasso makes the report of a replayed lasso the report of the bug:
// its kind and message (unless the replay diverged), the stem and the
// cycle, the propositions' values at each step, and a note for each run of
// the cycle that did not come back to where it began.
func markLasso(r *report.Report, bug search.Bug, lr *search.LassoRun) {
	var o *search.Outcome
	if lr != nil && lr.Result != nil {
		o = lr.Result.Outcome
	}
	if o == nil || o.Kind != search.Diverged {
		r.Kind, r.Bug, r.Banner, r.Message = bug.Outcome.Kind.String(), true, report.Banner(bug.Outcome.Kind), bug.Outcome.Message
	}
	r.Path, r.Cycle, r.CycleStart = bug.Schedule.String(), bug.Cycle.String(), len(bug.Schedule)+1
	if lr == nil {
		return
	}
	for i := range r.Steps {
		if i < len(lr.States) {
			r.Steps[i].Props = search.FormatProps(lr.States[i].Props)
		}
	}
	for i, ok := range lr.Returned {
		if !ok {
			r.Notes = append(r.Notes, fmt.Sprintf("run %d of the cycle did not come back to the state where it began: "+
				"the program may depend on something stdbg does not hash", i+1))
		}
	}
}
