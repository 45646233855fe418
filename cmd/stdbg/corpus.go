package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/corpus"
	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/report"
	"github.com/stdbg/stdbg/schedule"
	"github.com/stdbg/stdbg/search"
)

func (a *app) corpusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "corpus",
		Short: "list, show and rerun the stored failing schedules",
		Long: `stdbg find saves every bug it finds as one JSON file, by default under
testdata/stdbg/<target name>/ next to the target (--corpus DIR to choose).
Commit these files: stdbg corpus run replays them all and fails while a bug
still reproduces, like a regression test suite.`,
	}
	cmd.AddCommand(a.corpusListCmd(), a.corpusShowCmd(), a.corpusRunCmd(), a.corpusMergeCmd(), a.corpusPruneCmd())
	return cmd
}

func (a *app) corpusMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR... -o DIR",
		Short: "join corpora (the shards of one search) into one",
		Long: `Copy the entries of the given corpora into the corpus -o DIR, as the
shards of one search (find --shard I/N) write them on different machines.
Each entry keeps its place below its source directory, its source path is
rewritten to stay valid, and an entry already there (same kind, place and
schedule) is not written twice. Writes are atomic. Unreadable entries are
reported and left out; the exit status is then 1.`,
		Example: `  stdbg corpus merge shard-0/ shard-1/ shard-2/ -o testdata/stdbg/`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("corpus merge: say where to merge with -o DIR")
			}
			for _, src := range args {
				if _, err := os.Stat(src); err != nil {
					return usageErr("corpus merge: %v", err)
				}
			}
			res, err := corpus.Merge(out, args...)
			for _, p := range res.Added {
				fmt.Fprintln(a.stdout, "added "+p)
			}
			for _, it := range res.Skipped {
				fmt.Fprintf(a.stderr, "stdbg: %s left out: %v\n", it.Path, it.Err)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "%d added, %d already there, %d left out\n", len(res.Added), res.Present, len(res.Skipped))
			if len(res.Skipped) > 0 {
				return bugFound
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the corpus to merge into (created if needed)")
	return cmd
}

func (a *app) corpusListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [DIR|ENTRY...]",
		Short: "list corpus entries (default: testdata/stdbg)",
		RunE: func(cmd *cobra.Command, args []string) error {
			items, err := corpusItems(args)
			if err != nil {
				return err
			}
			if a.v.GetBool("json") {
				type row struct {
					Path     string `json:"path"`
					Kind     string `json:"kind,omitempty"`
					Target   string `json:"target,omitempty"`
					Schedule string `json:"schedule,omitempty"`
					Error    string `json:"error,omitempty"`
				}
				rows := []row{}
				for _, it := range items {
					r := row{Path: it.Path}
					if it.Err != nil {
						r.Error = it.Err.Error()
					} else {
						r.Kind, r.Target, r.Schedule = it.Entry.Failure.Kind, targetName(it.Entry), it.Entry.Schedule
					}
					rows = append(rows, r)
				}
				b, _ := json.MarshalIndent(rows, "", "  ")
				fmt.Fprintln(a.stdout, string(b))
				return nil
			}
			for _, it := range items {
				if it.Err != nil {
					fmt.Fprintf(a.stdout, "%s  UNREADABLE: %s\n", report.Clean(it.Path), report.Clean(it.Err.Error()))
					continue
				}
				e := it.Entry
				fmt.Fprintf(a.stdout, "%s  %s  %s  Path = %s  (%s)\n", report.Clean(it.Path), report.Clean(e.Failure.Kind),
					report.Clean(targetName(e)), report.Clean(e.Schedule), report.Summary(e.Failure.Message))
			}
			if len(items) == 0 {
				fmt.Fprintln(a.stdout, "no entries")
			}
			return nil
		},
	}
	addSettings(cmd, "json")
	return cmd
}

func (a *app) corpusShowCmd() *cobra.Command {
	var html string
	cmd := &cobra.Command{
		Use:   "show ENTRY",
		Short: "print a corpus entry: the bug, its schedule and trace",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput("html", html); err != nil {
				return err
			}
			e, err := corpus.Load(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if html != "" {
				r := e.Report
				if r == nil {
					r = &report.Report{Kind: e.Failure.Kind, Bug: true, Message: e.Failure.Message, Path: e.Schedule, Cycle: e.Cycle}
					if k, err := search.ParseKind(e.Failure.Kind); err == nil {
						r.Banner = report.Banner(k)
					}
				}
				r.Replay = "stdbg replay " + shellQuote(args[0])
				if err := writeHTML(html, targetName(e), []*report.Report{r}, []string{"corpus entry " + args[0]}); err != nil {
					return usageErr("%v", err)
				}
			}
			if a.v.GetBool("json") {
				b, _ := json.MarshalIndent(e, "", "  ")
				fmt.Fprintln(a.stdout, string(b))
				return nil
			}
			w := a.stdout
			fmt.Fprintf(w, "entry:     %s\n", report.Clean(args[0]))
			fmt.Fprintf(w, "target:    %s", report.Clean(targetName(e)))
			if len(e.Target.Args) > 0 {
				fmt.Fprintf(w, " -- %s", report.Clean(strings.Join(e.Target.Args, " ")))
			}
			fmt.Fprintf(w, "\nfound:     %s by stdbg %s (%s, max depth %d)\n", e.Created.Format(time.RFC3339), report.Clean(e.StdbgVersion),
				report.Clean(e.Search.Strategy), e.Search.MaxDepth)
			fmt.Fprintf(w, "schedule:  %s  (%s, %s)\n", report.Clean(e.Schedule), plural(e.Length, "step"), plural(e.Preemptions, "preemption"))
			if e.Original != "" && e.Original != e.Schedule {
				fmt.Fprintf(w, "original:  %s\n", report.Clean(e.Original))
			}
			if e.Report != nil {
				fmt.Fprintln(w)
				e.Report.WriteStyled(w, a.colour())
			} else {
				fmt.Fprintf(w, "%s: %s\n", report.Clean(e.Failure.Kind), report.Clean(e.Failure.Message))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "also write the entry's bug as a self-contained HTML page to this file")
	addSettings(cmd, "json")
	return cmd
}

// binaryFlagUsage explains --binary, the only way to run a program from
// outside the entry's project.
const binaryFlagUsage = "run this program for the entries of kind binary, instead of the one the entry names " +
	"(an entry may name only a program inside its project)"

// corpusItems lists the entries of the given paths (default testdata/stdbg).
func corpusItems(args []string) ([]corpus.Item, error) {
	if len(args) == 0 {
		args = []string{filepath.Join("testdata", "stdbg")}
		if _, err := os.Stat(args[0]); err != nil {
			return nil, usageErr("no corpus here (testdata/stdbg): name a corpus directory or entry")
		}
	}
	items, err := corpus.List(args...)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return items, nil
}

func targetName(e *corpus.Entry) string {
	if e.Target.Source != "" {
		return e.Target.Source
	}
	return e.Target.Binary
}

// Rerun statuses.
const (
	statusReproduces = "reproduces"
	statusFixed      = "fixed"
	statusDiverged   = "diverged"
	statusChanged    = "fails differently"
	statusCorrupt    = "corrupt"
	statusError      = "error"
)

// rerun is the result of replaying one entry.
type rerun struct {
	Path    string  `json:"path"`
	Status  string  `json:"status"`
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
	// report is the failure as it happens now (reproduces, fails
	// differently), when reports were asked for (--sarif).
	report *report.Report
}

// failing reports whether a status fails the regression gate.
func (r rerun) failing() bool {
	return r.Status == statusReproduces || r.Status == statusChanged
}

func (a *app) corpusRunCmd() *cobra.Command {
	var junit, sarifPath string
	var research bool
	var researchExecs int64
	cmd := &cobra.Command{
		Use:   "run [DIR|ENTRY...]",
		Short: "replay every corpus entry and report which bugs still reproduce",
		Long: `Replay every entry (default: the corpus under testdata/stdbg) on the current
version of its program — sources are rebuilt when they changed — and report
each as:

  reproduces          the same failure (kind and place) happens again
  fixed               the whole schedule runs and the program then ends
                      cleanly
  diverged            the program changed and the schedule no longer fits
                      (at which step, and why), or the program ends (or
                      reaches the depth bound) before the schedule does
  fails differently   the schedule now ends in another failure
  corrupt             the entry cannot be read (skipped; the others run)
  error               the entry's program could not be built or run

An entry is data: it may name only a program inside its own project (a path
relative to the entry that neither it nor a symbolic link leads out of the
project: the directory above it with .git or go.mod; for a corpus in no
project, the project of the current directory), and hold no environment
variable but those stdbg records (STDBG_RAND_SEED). Any other entry is
refused before anything runs, as an error naming the entry and the field;
--binary PROGRAM runs a program you name for the entries of kind binary.

Exit status: 0 when every entry ran and none reproduces; 1 when an entry
reproduces or fails differently (a regression gate for CI); 2 when an entry
is corrupt or errors, or when there is no entry at all. --junit FILE writes
the results as JUnit XML; --sarif FILE the failing entries as a SARIF log,
each with its schedule as thread flows, for code scanning. stdbg corpus prune removes the fixed entries.

--research looks again for the bug of every diverged entry: a bounded search
(--research-executions) of the schedules that begin with the part of the old
schedule that still fits. If the same kind of failure turns up, the entry is
updated with the new (minimised) schedule and reported as reproducing.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput("sarif", sarifPath); err != nil {
				return err
			}
			a.rerunReports = sarifPath != ""
			results, err := a.rerunAll(args, research, researchExecs, func(r rerun) {
				if !a.v.GetBool("json") {
					line := fmt.Sprintf("%-18s %s", strings.ToUpper(r.Status), r.Path)
					if r.Detail != "" {
						line += ": " + r.Detail
					}
					fmt.Fprintln(a.stdout, line)
				}
			})
			if err != nil {
				return err
			}
			if junit != "" {
				if err := writeJUnit(junit, results); err != nil {
					return usageErr("writing %s: %v", junit, err)
				}
			}
			if sarifPath != "" {
				var reports []*report.Report
				var problems []string
				for _, r := range results {
					if r.report != nil {
						reports = append(reports, r.report)
					}
					if r.Status == statusCorrupt || r.Status == statusError {
						problems = append(problems, r.Path+": "+r.Status+": "+r.Detail)
					}
				}
				if err := writeSARIF(sarifPath, reports, problems); err != nil {
					return usageErr("%v", err)
				}
			}
			counts := map[string]int{}
			for _, r := range results {
				counts[r.Status]++
			}
			if a.v.GetBool("json") {
				b, _ := json.MarshalIndent(results, "", "  ")
				fmt.Fprintln(a.stdout, string(b))
			} else {
				fmt.Fprintf(a.stdout, "%d entries: %d reproduce, %d fixed, %d diverged, %d fail differently, %d corrupt, %d errors\n",
					len(results), counts[statusReproduces], counts[statusFixed], counts[statusDiverged], counts[statusChanged],
					counts[statusCorrupt], counts[statusError])
			}
			return corpusExit(results)
		},
	}
	cmd.Flags().StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file")
	cmd.Flags().StringVar(&a.entryBinary, "binary", "", binaryFlagUsage)
	cmd.Flags().StringVar(&sarifPath, "sarif", "", "also write the entries that reproduce or fail differently as a SARIF 2.1.0 log to this file (corrupt entries and errors as notifications)")
	cmd.Flags().BoolVar(&research, "research", false, "search again for the bug of diverged entries and update them when it survives")
	cmd.Flags().Int64Var(&researchExecs, "research-executions", 5000, "most executions spent searching again for one diverged bug")
	addSettings(cmd, "transition-timeout", "start-timeout", "json")
	return cmd
}

// rerunAll reruns the entries named by args (corpusItems), calling each
// with every result as it comes.
func (a *app) rerunAll(args []string, research bool, budget int64, each func(rerun)) ([]rerun, error) {
	items, err := corpusItems(args)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var results []rerun
	for _, it := range items {
		start := time.Now()
		r := a.rerunEntry(it, research, budget)
		r.Seconds = time.Since(start).Seconds()
		results = append(results, r)
		each(r)
	}
	return results, nil
}

// targetOf checks, rebuilds (when needed) and resolves the target of an
// entry. An entry is data: it may name only a program inside its project,
// and hold only the environment variables stdbg records (corpus.Resolve,
// corpus.CheckEnv); binary, when set (--binary), is the program to run
// instead of a binary entry's own, named by the user.
func targetOf(path string, e *corpus.Entry, binary string) (*target, error) {
	if err := corpus.CheckEnv(path, e.Target.Env); err != nil {
		return nil, err
	}
	t := &target{args: e.Target.Args}
	var src string
	if e.Target.Kind != "binary" {
		var err error
		if src, err = corpus.Resolve(path, "target.source", e.Target.Source); err != nil {
			return nil, err
		}
	}
	switch e.Target.Kind {
	case "go-test":
		exe, _, err := buildGo(src, true, true)
		if err != nil {
			return nil, err
		}
		run := e.Target.Run
		if run == "" {
			run = testPattern(e.Target.Test)
		}
		t.arg, t.source, t.binary, t.goPkg, t.run = src, src, exe, true, run
	case "go-program":
		exe, _, err := buildGo(src, false, true)
		if err != nil {
			return nil, err
		}
		t.arg, t.source, t.binary, t.goPkg = src, src, exe, true
	case "c-source":
		exe, note, err := ctarget.BuildWith(src, ctarget.BuildOptions{Memory: e.Target.Memory})
		if err != nil {
			return nil, fmt.Errorf("rebuilding %s: %w", src, err)
		}
		if note != "" {
			return nil, fmt.Errorf("rebuilding %s as it was built when the bug was found: %s", src, note)
		}
		t.arg, t.source, t.binary, t.memory = src, src, exe, e.Target.Memory
	default:
		exe := binary
		if exe == "" {
			var err error
			if exe, err = corpus.Resolve(path, "target.binary", e.Target.Binary); err != nil {
				return nil, err
			}
		}
		if err := ctarget.CheckBinary(exe); err != nil {
			return nil, err
		}
		t.arg, t.binary = exe, exe
	}
	return t, nil
}

// binaryChanged says, for a rerun's output, whether the program that ran
// is not the one the bug was found in.
func binaryChanged(e *corpus.Entry, t *target) string {
	if e.Target.BinarySHA256 == "" || t.goPkg {
		return ""
	}
	if h, err := corpus.FileSHA256(t.binary); err == nil && h != e.Target.BinarySHA256 {
		return " (the binary changed since the bug was found)"
	}
	return ""
}

// rerunEntry replays one entry and classifies the result.
func (a *app) rerunEntry(it corpus.Item, research bool, budget int64) (r rerun) {
	r = rerun{Path: it.Path}
	if it.Err != nil {
		r.Status, r.Detail = statusCorrupt, it.Err.Error()
		return r
	}
	e := it.Entry
	t, err := targetOf(it.Path, e, a.entryBinary)
	if err != nil {
		var refused *corpus.RefusedError
		if errors.As(err, &refused) {
			// The path is already the line's.
			r.Status, r.Detail = statusError, "refused: "+refused.Field+" "+refused.Reason
			return r
		}
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer func() { r.Detail += binaryChanged(e, t) }()
	sched, err := schedule.Parse(e.Schedule)
	if err != nil {
		r.Status, r.Detail = statusCorrupt, "schedule: "+err.Error()
		return r
	}
	if e.Cycle != "" {
		return a.rerunLasso(r, e, t, sched)
	}
	s, err := a.startTarget(t, io.Discard, io.Discard, true, e.Target.Env)
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer s.close()
	ex, err := s.chk.Begin()
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	defer ex.Close()
	depth := e.Search.MaxDepth
	if depth <= 0 {
		depth = 1000
	}
	rr, err := search.Replay(ex, sched, depth)
	if err != nil {
		r.Status, r.Detail = statusError, oneLine(err.Error())
		return r
	}
	o := rr.Outcome
	switch {
	case o != nil && o.Kind == search.Diverged:
		r.Status, r.Detail = statusDiverged, o.Message
		if research {
			ex.Close()
			if found := a.researchEntry(s, it.Path, e, sched[:o.Step], depth, budget); found != "" {
				r.Status, r.Detail = statusReproduces, o.Message+"; the bug survives: "+found
			} else {
				r.Detail += fmt.Sprintf("; no %s found again within %d executions", e.Failure.Kind, budget)
			}
		}
	case o != nil && o.Kind.String() == e.Failure.Kind && o.Where == e.Failure.Where:
		r.Status, r.Detail = statusReproduces, fmt.Sprintf("%s: %s", o.Kind, o.Message)
		r.report = a.rerunReport(s, ex, it.Path, sched, *o, depth)
	case o != nil && o.Kind.IsBug():
		r.Status, r.Detail = statusChanged, fmt.Sprintf("now %s: %s (was %s at %s)", o.Kind, o.Message, e.Failure.Kind, e.Failure.Where)
		r.report = a.rerunReport(s, ex, it.Path, sched, *o, depth)
	case rr.Leftover > 0:
		// The program ended (or was cut) before the schedule did: the
		// schedule no longer fits, which says nothing of the bug.
		what := "the execution ended"
		if o == nil {
			what = fmt.Sprintf("the depth bound (%d) was reached", depth)
		}
		r.Status, r.Detail = statusDiverged, fmt.Sprintf("%s after %d of the schedule's %d steps", what, len(sched)-rr.Leftover, len(sched))
	case o == nil:
		r.Status, r.Detail = statusDiverged, fmt.Sprintf("the schedule ran, but the program did not end within %d steps", depth)
	default:
		r.Status, r.Detail = statusFixed, "the whole schedule runs and the program ends cleanly: "+o.Message
	}
	return r
}

// rerunReport is the report of an entry's failure as it happens now
// (replayed again with stacks), when reports were asked for: nil
// otherwise, or when the replay does not give it.
func (a *app) rerunReport(s *session, ex io.Closer, path string, sched schedule.Schedule, o search.Outcome, depth int) *report.Report {
	if !a.rerunReports {
		return nil
	}
	ex.Close()
	r, err := a.explain(s, search.Bug{Schedule: sched, Outcome: o}, depth)
	if err != nil {
		return nil
	}
	r.Replay, r.Saved = "stdbg replay "+shellQuote(path), path
	return r
}

// corpusExit is the exit status of a corpus run: 2 when an entry could
// not be judged (corrupt, refused, an error) or there was none, else 1
// when an entry reproduces or fails differently, else 0.
func corpusExit(results []rerun) error {
	if len(results) == 0 {
		return usageErr("the corpus holds no entry")
	}
	bad, failing := 0, 0
	for _, r := range results {
		switch {
		case r.Status == statusCorrupt || r.Status == statusError:
			bad++
		case r.failing():
			failing++
		}
	}
	switch {
	case bad > 0:
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d entries could not be rerun (corrupt or errors)", bad, len(results))}
	case failing > 0:
		return bugFound
	}
	return nil
}

// JUnit XML, as read by CI systems.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(path string, results []rerun) error {
	s := junitSuite{Name: "stdbg corpus", Tests: len(results)}
	for _, r := range results {
		c := junitCase{Name: r.Path, Classname: "stdbg.corpus", Time: r.Seconds, SystemOut: r.Status + ": " + r.Detail}
		switch r.Status {
		case statusReproduces, statusChanged:
			c.Failure = &junitMessage{Message: r.Status, Text: r.Detail}
			s.Failures++
		case statusCorrupt, statusError:
			c.Error = &junitMessage{Message: r.Status, Text: r.Detail}
			s.Errors++
		case statusDiverged:
			c.Skipped = &junitMessage{Message: "diverged: " + r.Detail}
			s.Skipped++
		}
		s.Time += r.Seconds
		s.Cases = append(s.Cases, c)
	}
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append([]byte(xml.Header), append(b, '\n')...))
}

// newEntry describes a bug found by find for the corpus.
func newEntry(t *target, dir string, r *report.Report, bug search.Bug, original schedule.Schedule, maxDepth int, preemptions int) *corpus.Entry {
	e := &corpus.Entry{
		Format:       corpus.Format,
		StdbgVersion: version,
		Created:      time.Now().UTC().Truncate(time.Second),
		Search:       corpus.Search{Strategy: "dfs", MaxDepth: maxDepth, Reduction: "none"},
		Failure:      corpus.Failure{Kind: bug.Outcome.Kind.String(), Message: bug.Outcome.Message, Where: bug.Outcome.Where},
		Schedule:     bug.Schedule.String(),
		Length:       len(bug.Schedule),
		Preemptions:  preemptions,
		Report:       r,
		Target:       corpus.Target{Args: t.args, Env: append([]string(nil), t.env...)},
	}
	if !original.Equal(bug.Schedule) {
		e.Original = original.String()
	}
	if bug.Cycle != nil {
		e.Cycle = bug.Cycle.String()
	}
	switch {
	case t.goPkg && t.run != "":
		e.Target.Kind, e.Target.Run = "go-test", t.run
		e.Target.Source = corpus.RelSource(dir, t.source)
	case t.goPkg:
		e.Target.Kind = "go-program"
		e.Target.Source = corpus.RelSource(dir, t.source)
	case t.source != "":
		e.Target.Kind = "c-source"
		e.Target.Source = corpus.RelSource(dir, t.source)
		e.Target.Memory = t.memory
	default:
		e.Target.Kind = "binary"
		e.Target.Binary = corpus.RelSource(dir, t.binary)
	}
	if h, err := corpus.FileSHA256(t.binary); err == nil {
		e.Target.BinarySHA256 = h
	}
	return e
}

// researchEntry searches the schedules below prefix for the entry's kind of
// failure (the same place preferred). When it finds one it minimises it,
// rewrites the entry and describes the find; else it returns "".
func (a *app) researchEntry(s *session, path string, e *corpus.Entry, prefix schedule.Schedule, depth int, budget int64) string {
	if len(prefix) >= depth {
		return ""
	}
	res, err := search.Explore(context.Background(), search.Under(s.chk, prefix), search.NewDFS(),
		search.Options{MaxDepth: depth - len(prefix), All: true, MaxExecutions: budget})
	if err != nil {
		return ""
	}
	var pick *search.Bug
	for i := range res.Bugs {
		b := &res.Bugs[i]
		if b.Outcome.Kind.String() != e.Failure.Kind {
			continue
		}
		if pick == nil || b.Outcome.Where == e.Failure.Where {
			pick = b
		}
	}
	if pick == nil {
		return ""
	}
	bug := search.Bug{Schedule: append(append(schedule.Schedule{}, prefix...), pick.Schedule...), Outcome: pick.Outcome}
	if m, err := search.Minimise(context.Background(), s.chk, bug, search.MinimiseOptions{MaxDepth: depth,
		MaxExecutions: budget, Exhaustive: true}); err == nil {
		bug.Schedule, bug.Outcome = m.Schedule, m.Outcome
	}
	rep, err := a.explain(s, bug, depth)
	if err != nil {
		return ""
	}
	old := e.Schedule
	e.Schedule = bug.Schedule.String()
	e.Original = old
	e.Length = len(bug.Schedule)
	e.Preemptions = rep.Preemptions
	e.Failure = corpus.Failure{Kind: bug.Outcome.Kind.String(), Message: bug.Outcome.Message, Where: bug.Outcome.Where}
	e.Report = rep
	if h, err := corpus.FileSHA256(s.binary); err == nil {
		e.Target.BinarySHA256 = h
	}
	if err := corpus.Update(path, e); err != nil {
		return ""
	}
	return fmt.Sprintf("%s at %s with Path = %s (entry updated)", bug.Outcome.Kind, bug.Outcome.Where, e.Schedule)
}

// testPattern turns a test name (with subtests: "TestBank/two_accounts")
// into the -run pattern that selects exactly it.
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
