package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
)

// This file holds stdbg corpus run: the command, its statuses and the
// rerun of every entry.

// Rerun statuses: the verdicts of a rerun (hunt.Status), and the entries
// that could not be judged.
const (
	statusReproduces = string(hunt.Reproduces)
	statusFixed      = string(hunt.Fixed)
	statusDiverged   = string(hunt.Diverged)
	statusChanged    = string(hunt.FailsDifferently)
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

// rerunner reruns corpus entries: stdbg corpus run and prune.
type rerunner struct {
	*app
	binary string // --binary: the program for entries of kind binary
	// reports: each failure's report is built (corpus run --sarif).
	reports bool
	// research: a diverged entry's bug is searched again (corpus run
	// --research), within researchExecs executions.
	research      bool
	researchExecs int64
}

// runCommand is stdbg corpus run.
func (c *rerunner) runCommand() *cobra.Command {
	var junit, sarifPath string
	cmd := &cobra.Command{
		Use:   "run [DIR|ENTRY...]",
		Short: "replay every corpus entry and report which bugs still reproduce",
		Long: `Replay every entry (default: every corpus under the current directory, each
testdata/stdbg below it, as ./... finds packages) on the current
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
			c.reports = sarifPath != ""
			results, err := c.all(args, func(r rerun) {
				if !c.s.JSON {
					line := fmt.Sprintf("%-18s %s", strings.ToUpper(r.Status), r.Path)
					if r.Detail != "" {
						line += ": " + r.Detail
					}
					fmt.Fprintln(c.stdout, line)
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
			if c.s.JSON {
				b, _ := json.MarshalIndent(results, "", "  ")
				fmt.Fprintln(c.stdout, string(b))
			} else {
				fmt.Fprintf(c.stdout, "%d entries: %d reproduce, %d fixed, %d diverged, %d fail differently, %d corrupt, %d errors\n",
					len(results), counts[statusReproduces], counts[statusFixed], counts[statusDiverged], counts[statusChanged],
					counts[statusCorrupt], counts[statusError])
			}
			return corpusExit(results)
		},
	}
	cmd.Flags().StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file")
	cmd.Flags().StringVar(&c.binary, "binary", "", binaryFlagUsage)
	cmd.Flags().StringVar(&sarifPath, "sarif", "", "also write the entries that reproduce or fail differently as a SARIF 2.1.0 log to this file (corrupt entries and errors as notifications)")
	cmd.Flags().BoolVar(&c.research, "research", false, "search again for the bug of diverged entries and update them when it survives")
	cmd.Flags().Int64Var(&c.researchExecs, "research-executions", 5000, "most executions spent searching again for one diverged bug")
	addSettings(cmd, "transition-timeout", "start-timeout", "json")
	return cmd
}

// all reruns the entries named by args (corpusItems), calling each with
// every result as it comes.
func (c *rerunner) all(args []string, each func(rerun)) ([]rerun, error) {
	items, err := corpusItems(args)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var results []rerun
	for _, it := range items {
		start := time.Now()
		r := c.entry(it)
		r.Seconds = time.Since(start).Seconds()
		results = append(results, r)
		each(r)
	}
	return results, nil
}
