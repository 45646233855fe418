package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
)

// corpusCmd is stdbg corpus and its commands that read entries (list,
// show) or copy them (merge); rerunner reruns them (run, prune).
type corpusCmd struct{ *app }

func (c *corpusCmd) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "corpus",
		Short: "list, show and rerun the stored failing schedules",
		Long: `stdbg find saves every bug it finds as one JSON file, by default under
testdata/stdbg/<target name>/ next to the target (--corpus DIR to choose);
the bugs of a Go test, found by stdbg test, find --run or sthread.Check,
under testdata/stdbg/<TestName>/ in its package. list, run and prune with
no argument take every corpus under the current directory (each
testdata/stdbg below it, as ./... finds packages; not in hidden, _ or
vendor directories, nor in a testdata directory's fixtures); merge takes
the corpora named. Commit these files: stdbg corpus run replays them all and fails while a bug
still reproduces, like a regression test suite.`,
	}
	cmd.AddCommand(c.list(), c.show(), (&rerunner{app: c.app}).runCommand(), c.merge(), (&rerunner{app: c.app}).pruneCommand())
	return cmd
}

// merge is stdbg corpus merge.
func (c *corpusCmd) merge() *cobra.Command {
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
				fmt.Fprintln(c.stdout, "added "+p)
			}
			for _, it := range res.Skipped {
				fmt.Fprintf(c.stderr, "stdbg: %s left out: %v\n", it.Path, it.Err)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(c.stdout, "%d added, %d already there, %d left out\n", len(res.Added), res.Present, len(res.Skipped))
			if len(res.Skipped) > 0 {
				return bugFound
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the corpus to merge into (created if needed)")
	return cmd
}

// list is stdbg corpus list.
func (c *corpusCmd) list() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [DIR|ENTRY...]",
		Short: "list corpus entries (default: every testdata/stdbg under the current directory)",
		RunE: func(cmd *cobra.Command, args []string) error {
			items, err := corpusItems(args)
			if err != nil {
				return err
			}
			if c.s.JSON {
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
				fmt.Fprintln(c.stdout, string(b))
				return nil
			}
			for _, it := range items {
				if it.Err != nil {
					fmt.Fprintf(c.stdout, "%s  UNREADABLE: %s\n", report.Clean(it.Path), report.Clean(it.Err.Error()))
					continue
				}
				e := it.Entry
				fmt.Fprintf(c.stdout, "%s  %s  %s  Path = %s  (%s)\n", report.Clean(it.Path), report.Clean(e.Failure.Kind),
					report.Clean(targetName(e)), report.Clean(e.Schedule), report.Summary(e.Failure.Message))
			}
			if len(items) == 0 {
				fmt.Fprintln(c.stdout, "no entries")
			}
			return nil
		},
	}
	addSettings(cmd, "json")
	return cmd
}

// show is stdbg corpus show.
func (c *corpusCmd) show() *cobra.Command {
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
				r.Replay = "stdbg replay " + session.ShellQuote(args[0])
				if err := writeHTML(html, targetName(e), []*report.Report{r}, []string{"corpus entry " + args[0]}); err != nil {
					return usageErr("%v", err)
				}
			}
			if c.s.JSON {
				b, _ := json.MarshalIndent(e, "", "  ")
				fmt.Fprintln(c.stdout, string(b))
				return nil
			}
			w := c.stdout
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
				e.Report.WriteStyled(w, c.colour())
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

// corpusItems lists the entries of the given paths (default: every corpus
// under the current directory, as ./... finds packages: corpus.Corpora).
func corpusItems(args []string) ([]corpus.Item, error) {
	if len(args) == 0 {
		dirs, err := corpus.Corpora(".")
		if err != nil {
			return nil, usageErr("looking for corpora: %v", err)
		}
		if len(dirs) == 0 {
			return nil, usageErr("no corpus under the current directory (no testdata/stdbg): name a corpus directory or entry")
		}
		args = dirs
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
