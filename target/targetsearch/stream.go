package targetsearch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// Message is one line of the stream a searching target writes: exactly one
// field is set.
type Message struct {
	// Began is sent first when the search has a budget: the deadlines
	// the target took as it began to search.
	Began *Began `json:"began,omitempty"`
	// Progress is the statistics so far, a few times a second.
	Progress *search.Stats `json:"progress,omitempty"`
	// Minimising is the statistics of the minimisation under way.
	Minimising *search.Stats `json:"minimising,omitempty"`
	// Bug is a bug as soon as it is found, before minimisation.
	Bug *Bug `json:"bug,omitempty"`
	// Result ends the stream: the search's result, each bug with its
	// minimisation.
	Result *Result `json:"result,omitempty"`
	// Test is sent by a process that searches several tests in turn
	// (BatchEnv) as each test begins: its name. The process then waits
	// for stdbg's answer (Batch).
	Test string `json:"test,omitempty"`
}

// Began is the deadlines a target took from Spec.Budget as it began to
// search, as Spec.SearchUntil and Spec.MinimiseUntil hold them.
type Began struct {
	SearchUntil   int64 `json:"search_until"`
	MinimiseUntil int64 `json:"minimise_until"`
}

// Bug is a search.Bug on the stream.
type Bug struct {
	Schedule string         `json:"schedule"`
	Cycle    string         `json:"cycle,omitempty"`
	Outcome  search.Outcome `json:"outcome"`
	// By names the strategy that found it, in a portfolio (search.Bug.By).
	By string `json:"by,omitempty"`
	// Minimised is its minimisation, in a Result.
	Minimised *Minimised `json:"minimised,omitempty"`
}

// Minimised is a search.Minimised on the stream.
type Minimised struct {
	Schedule            string         `json:"schedule"`
	Outcome             search.Outcome `json:"outcome"`
	Original            string         `json:"original"`
	OriginalLength      int            `json:"original_length"`
	Length              int            `json:"length"`
	OriginalPreemptions int            `json:"original_preemptions"`
	Preemptions         int            `json:"preemptions"`
	Proven              bool           `json:"proven"`
	LowerLength         int            `json:"lower_length,omitempty"`
	LowerPreemptions    int            `json:"lower_preemptions,omitempty"`
	Unproven            string         `json:"unproven,omitempty"`
	Stats               search.Stats   `json:"stats"`
}

// Result is a search.Result on the stream.
type Result struct {
	Bugs         []Bug        `json:"bugs"`
	Stats        search.Stats `json:"stats"`
	Complete     bool         `json:"complete"`
	DepthLimited bool         `json:"depth_limited"`
	// Cut is search.Result.Cut.
	Cut int `json:"cut,omitempty"`
	// Loops is search.Result.Loops.
	Loops []string `json:"loops,omitempty"`
	// Stopped reports a search stopped by stdbg (the stop pipe closed);
	// BudgetSpent, one stopped at Spec.SearchUntil.
	Stopped     bool `json:"stopped,omitempty"`
	BudgetSpent bool `json:"budget_spent,omitempty"`
	// Nondeterministic reports a search that failed with
	// search.ErrNondeterministic; Error any other failure.
	Nondeterministic bool   `json:"nondeterministic,omitempty"`
	Error            string `json:"error,omitempty"`
	// CannotJudge reports a search that failed with
	// search.ErrCannotJudge (Error says why).
	CannotJudge bool `json:"cannot_judge,omitempty"`
	// KeptState is the search.StateError.State of a search that failed because
	// the process kept state it could not put back (Nondeterministic is
	// then set too).
	KeptState string `json:"kept_state,omitempty"`
}

// FromBug converts a search.Bug for the stream.
func FromBug(b search.Bug) Bug {
	out := Bug{Schedule: b.Schedule.String(), Outcome: b.Outcome, By: b.By}
	if b.Cycle != nil {
		out.Cycle = b.Cycle.String()
	}
	return out
}

// SearchBug converts a Bug of the stream back.
func (b *Bug) SearchBug() (search.Bug, error) {
	s, err := schedule.Parse(b.Schedule)
	if err != nil {
		return search.Bug{}, fmt.Errorf("bug schedule %q: %w", b.Schedule, err)
	}
	out := search.Bug{Schedule: s, Outcome: b.Outcome, By: b.By}
	if b.Cycle != "" {
		if out.Cycle, err = schedule.Parse(b.Cycle); err != nil {
			return search.Bug{}, fmt.Errorf("bug cycle %q: %w", b.Cycle, err)
		}
	}
	return out, nil
}

// FromMinimised converts a search.Minimised for the stream.
func FromMinimised(m *search.Minimised) *Minimised {
	return &Minimised{Schedule: m.Schedule.String(), Outcome: m.Outcome, Original: m.Original.String(),
		OriginalLength: m.OriginalLength, Length: m.Length, OriginalPreemptions: m.OriginalPreemptions,
		Preemptions: m.Preemptions, Proven: m.Proven, LowerLength: m.LowerLength, LowerPreemptions: m.LowerPreemptions,
		Unproven: m.Unproven, Stats: m.Stats}
}

// SearchMinimised converts a Minimised of the stream back.
func (m *Minimised) SearchMinimised() (*search.Minimised, error) {
	s, err := schedule.Parse(m.Schedule)
	if err != nil {
		return nil, fmt.Errorf("minimised schedule %q: %w", m.Schedule, err)
	}
	o, err := schedule.Parse(m.Original)
	if err != nil {
		return nil, fmt.Errorf("original schedule %q: %w", m.Original, err)
	}
	return &search.Minimised{Schedule: s, Outcome: m.Outcome, Original: o, OriginalLength: m.OriginalLength,
		Length: m.Length, OriginalPreemptions: m.OriginalPreemptions, Preemptions: m.Preemptions,
		Proven: m.Proven, LowerLength: m.LowerLength, LowerPreemptions: m.LowerPreemptions, Unproven: m.Unproven,
		Stats: m.Stats}, nil
}

// writer writes messages, one JSON line each.
type writer struct {
	w   *bufio.Writer
	err error
}

func (w *writer) send(m Message) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(m)
	if err == nil {
		b = append(b, '\n')
		_, err = w.w.Write(b)
	}
	if err == nil {
		err = w.w.Flush()
	}
	w.err = err
}

// maxLine bounds a line of the stream: a result with many long schedules
// fits; a target that writes garbage does not make stdbg allocate without
// bound.
const maxLine = 64 << 20

// Read reads the stream from r, calling each with every message, until the
// Result (returned) or the end of r (nil Result: the target ended without
// one).
func Read(r io.Reader, each func(Message)) (*Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("reading the target's search: %w", err)
		}
		if m.Result != nil {
			return m.Result, nil
		}
		if each != nil {
			each(m)
		}
	}
	return nil, sc.Err()
}
