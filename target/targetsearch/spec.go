// Package targetsearch runs a whole search inside the target process.
//
// A Go target links stdbg's runtime (package sthread), and with it an
// executor that runs executions in process, ten times as fast as one driven
// by a checker in another process. `stdbg find` therefore starts a Go
// target once with a Spec in its environment; the target explores with the
// strategy the Spec names, minimises the bugs it finds and streams
// progress, bugs and the result back over a pipe (Serve). stdbg reads the
// stream (Run), confirms each bug by replaying its schedule in a fresh
// process, and prints, saves and replays exactly as it does for a search it
// ran itself.
//
// A target that dies mid-search (os.Exit, a fatal runtime error, a signal)
// loses nothing: the execution under way is recorded step by step in a
// file shared with stdbg (Trace); stdbg replays it in a fresh process, as
// far as it goes and no further, to learn how it ends, and starts the
// search again in a new process that ends that schedule with the outcome
// learnt (Spec.Ends) instead of running it, so the search goes on past it.
// A death that the fresh process does not repeat was not the schedule's:
// Run says so, with how the target died (DeathError).
//
// The budget of a search (Spec.Budget) is the search's: its clock starts
// when the target begins to search, not when stdbg started it.
package targetsearch

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/model/schedule"
)

// Environment variables through which stdbg hands a target its search.
const (
	// SpecEnv holds the Spec as JSON (named in rtnames, where the Go
	// runtime reads it).
	SpecEnv = rtnames.SearchEnv
	// StreamEnv is the file descriptor the target writes its stream to.
	StreamEnv = "STDBG_SEARCH_STREAM"
	// StopEnv is the file descriptor whose end (EOF) stops the search.
	StopEnv = "STDBG_SEARCH_STOP"
	// TraceEnv is the file descriptor of the trace file, open for reading
	// and writing (see Trace and MapTrace).
	TraceEnv = "STDBG_SEARCH_TRACE"
	// BatchEnv, when set, is the file descriptor from which a process
	// that searches several tests in turn reads stdbg's answers (see
	// Batch).
	BatchEnv = "STDBG_SEARCH_BATCH"
)

// Spec is a search as stdbg hands it to a target.
type Spec struct {
	// Request is the hunt, as every front end asks for it: the search,
	// its bounds, its budget, the part of a divided search (see
	// search.Split) and the minimisation. The Budget, when not zero,
	// is counted from when the target begins to search: the time it
	// takes to start and initialise is not the search's. The target
	// announces the deadlines it took (Began).
	hunt.Request
	// SearchUntil and MinimiseUntil, when not zero, are the wall-clock
	// times (Unix nanoseconds) at which the search and the minimisation
	// stop, in place of Budget's: absolute, so that a search started
	// again after a target died keeps the deadlines its first process
	// took.
	SearchUntil   int64 `json:"search_until,omitempty"`
	MinimiseUntil int64 `json:"minimise_until,omitempty"`
	// TransitionTimeout bounds a transition (0: the runtime's default).
	TransitionTimeout time.Duration `json:"transition_timeout,omitempty"`
	// Ends are schedules whose last step ended an earlier target process:
	// an execution that reaches one ends there with its Outcome.
	Ends []End `json:"ends,omitempty"`
	// Vars is the number of package-level variables the instrumentation
	// of plain Go registered for the target to put back before each
	// execution (goinstr.Result.Restored): a target in which fewer
	// registered themselves fails its search with a StateError rather
	// than run executions from state it does not put back.
	Vars int `json:"vars,omitempty"`
}

// End is a schedule known to end the process, and how its execution ends.
type End struct {
	Schedule string         `json:"schedule"`
	Outcome  search.Outcome `json:"outcome"`
}

// NewStrategy returns a fresh strategy of the spec.
func (s *Spec) NewStrategy() (search.Strategy, error) { return s.Search.New() }

// Splittable reports whether the search may be divided into shards: an
// exhaustive search without a preemption bound.
func (s *Spec) Splittable() bool { return s.Search.Splittable() }

// Requested returns the spec this process was given, if stdbg started it
// to search in process.
func Requested() (*Spec, bool, error) {
	v, ok := os.LookupEnv(SpecEnv)
	if !ok {
		return nil, false, nil
	}
	var s Spec
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return nil, true, fmt.Errorf("%s: %w", SpecEnv, err)
	}
	if _, err := s.NewStrategy(); err != nil {
		return nil, true, err
	}
	for _, e := range s.Ends {
		if _, err := schedule.Parse(e.Schedule); err != nil {
			return nil, true, fmt.Errorf("%s: end %q: %w", SpecEnv, e.Schedule, err)
		}
	}
	return &s, true, nil
}
