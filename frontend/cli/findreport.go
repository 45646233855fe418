package cli

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
)

// This file holds what find does with the bugs it found: the replay in a
// fresh process that confirms them, the report of each, and the printing
// of the result.

// findResult is the JSON document of a find.
type findResult struct {
	Target       string           `json:"target"`
	Binary       string           `json:"binary"`
	MaxDepth     int              `json:"max_depth"`
	Bugs         []*report.Report `json:"bugs"`
	Stats        report.Stats     `json:"stats"`
	Complete     bool             `json:"complete"`
	DepthLimited bool             `json:"depth_limited"`
	Interrupted  bool             `json:"interrupted,omitempty"`
	// Loops, when executions were cut by the depth bound, says which
	// threads the first one cut was looping in, and where.
	Loops []string `json:"loops,omitempty"`
	// Strategy is portfolio, dfs, random or pct; Seed is the seed of
	// random, pct and the portfolio's.
	Strategy string `json:"strategy"`
	Seed     uint64 `json:"seed,omitempty"`
	// Sampled reports a random or PCT search: never exhaustive.
	Sampled bool `json:"sampled"`
	// Bounds are the rounds of a preemption-bounded search.
	Bounds []search.Bound `json:"preemption_bounds,omitempty"`
	// Coverage says in words what the search covered.
	Coverage string `json:"coverage"`
	// MemoryPoints reports whether plain memory accesses were scheduling
	// points (those of global variables and the heap, in a C source built
	// with the memory instrumentation); Scope says what an exhaustive
	// search was exhaustive over.
	MemoryPoints bool `json:"memory_scheduling_points"`
	// MemoryChecked reports whether the plain accesses to global
	// variables and the heap were seen (memory instrumentation): as
	// scheduling points (MemoryPoints), or checked for data races in
	// every schedule run (the default with races on).
	MemoryChecked bool   `json:"memory_checked"`
	Scope         string `json:"scope"` // thread operations (and memory), or goroutine operations
	// SearchedIn is where the search ran: "target" (inside the Go
	// program's process, package targetsearch) or "stdbg" (driving the
	// program transition by transition).
	SearchedIn string `json:"searched_in"`
	// Notes say what the search could not do (a formula it could not
	// check).
	Notes []string `json:"notes,omitempty"`
	// NotModelled lists the constructs of the program whose behaviour the
	// search does not explore (cgo, sync.Pool, system calls that may
	// block, ...): a search that ran out of schedules is exhaustive over
	// the modelled operations only, and says so.
	NotModelled []string `json:"not_modelled,omitempty"`
	scopeNote   string
	// shown reports bugs whose reports were printed as they came
	// (finder.reporter): the end prints only the search's verdict.
	shown bool
}

// printFind prints a find's result in words.
func (c *findCmd) printFind(out *findResult) {
	w := c.stdout
	if len(out.Bugs) == 0 {
		if out.DepthLimited {
			fmt.Fprintf(w, "%s (%d executions were cut at %d transitions)\n", report.Style("/!\\ Max depth reached ! /!\\", false, c.colour()),
				out.Stats.MaxDepthHit, out.MaxDepth)
			c.printLoops(out)
		}
		if out.Interrupted {
			fmt.Fprintln(w, "Interrupted: the exploration is incomplete.")
		}
		fmt.Fprintln(w, report.Style("No property violation found.", false, c.colour()))
		c.printSearch(out)
		return
	}
	for i, r := range out.Bugs {
		if out.shown {
			break
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		c.printReport(r, "")
	}
	if len(out.Bugs) > 1 {
		fmt.Fprintf(w, "\n%d distinct bugs found.\n", len(out.Bugs))
	}
	if out.Interrupted {
		fmt.Fprintln(w, "Interrupted: the exploration is incomplete.")
	}
	c.printSearch(out)
}

// printReport prints a bug's report, how it was found and minimised, where
// it was saved (replacing the entry of the bug as found, replaced) and how
// to replay it.
func (c *findCmd) printReport(r *report.Report, replaced string) {
	w := c.stdout
	r.WriteStyled(w, c.colour())
	if r.FoundBy != "" {
		fmt.Fprintf(w, "Found by %s, in the portfolio.\n", r.FoundBy)
	}
	if m := r.Minimised; m != nil {
		fmt.Fprintln(w, m)
	}
	switch {
	case r.Saved == "":
	case r.AlreadySaved:
		fmt.Fprintln(w, "Already in the corpus: "+r.Saved)
	case replaced != "":
		fmt.Fprintf(w, "Saved %s (in place of %s)\n", r.Saved, replaced)
	default:
		fmt.Fprintln(w, "Saved "+r.Saved)
	}
	fmt.Fprintln(w, "Replay: "+r.Replay)
}

// printLoops says why executions were cut by the depth bound: the threads
// that were looping, and where; and what may end the loops.
func (c *findCmd) printLoops(out *findResult) {
	if len(out.Loops) == 0 {
		return
	}
	w := c.stdout
	fmt.Fprintln(w, "The first execution cut was looping:")
	for _, l := range out.Loops {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "A loop whose turns only read what the checker sees waits for a write instead (docs/spin.md); the checker could not tell "+
		"that these turns change nothing. One that comes back to an earlier state of the program ends with --visited; one that ends "+
		"after more turns needs a --max-depth above %d.\n", out.MaxDepth)
}

// printSearch prints what the search covered, the seed that repeats it and
// the statistics.
func (c *findCmd) printSearch(out *findResult) {
	w := c.stdout
	fmt.Fprintln(w, out.Coverage)
	for _, n := range out.NotModelled {
		fmt.Fprintln(w, "Not modelled: "+strings.Replace(strings.TrimPrefix(n, "not instrumented: "), ": not instrumented: ", ": ", 1))
	}
	for _, n := range out.Notes {
		fmt.Fprintln(w, "Note: "+n)
	}
	if out.Complete && out.scopeNote != "" {
		fmt.Fprintln(w, out.scopeNote)
	}
	if out.Seed != 0 && !out.Complete {
		// (A complete search's verdict owes nothing to its seed.)
		fmt.Fprintf(w, "Seed = %d (repeat with --seed %d)\n", out.Seed, out.Seed)
	}
	fmt.Fprintln(w, report.FormatStats(out.Stats))
}

// plural renders "1 step", "3 steps".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
