package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/grade"
)

func (a *app) gradeCmd() *cobra.Command {
	var out, plain, gs string
	cmd := &cobra.Command{
		Use:   "grade [flags] ASSIGNMENT.yaml SUBMISSION",
		Short: "grade a student's concurrent program against an assignment, with feedback a student can act on",
		Long: `Build SUBMISSION (a directory holding the files the assignment names, or the
one file of a one-file assignment) in a directory of its own and run each check
of ASSIGNMENT.yaml on it: no bug of some classes (deadlock, race, leak,
assertion, misuse) within bounds, an LTL property or freedom from livelock
on every strongly fair run (C), or the program's own tests in every schedule. The submission's processes run
with limits on CPU time, memory, processes and file size, a wall-clock bound,
without network where the machine allows, and as a user of their own when
stdbg runs as root (docs/teaching.md says what is enforced).

For each check it prints passed or failed and the points; for each bug, its
class in plain words, the shortest schedule told as a story, the student's
lines involved, a hint when the mistake's pattern is recognised, and the
command that replays it (under GDB or Delve too). --out DIR also writes there
feedback.txt, an HTML trace of each failure, results.json (Gradescope's
autograder format) and result.json (the same result, plain).

Exit status: 0 full marks, 1 points lost, 2 bad input (the assignment or the
submission cannot be read).`,
		Example: `  stdbg grade exercises/c/bounded-buffer/assignment.yaml my-work/
  stdbg grade --out feedback exercises/go/worker-pool/assignment.yaml ./pool
  stdbg grade --gradescope /autograder/results/results.json \
      /autograder/source/assignment.yaml /autograder/submission`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.grade(args[0], args[1], out, plain, gs)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write feedback.txt, the HTML trace of each failure, results.json and result.json into this directory")
	cmd.Flags().StringVar(&plain, "json", "", "write the result as plain JSON to this file")
	cmd.Flags().StringVar(&gs, "gradescope", "", "write the result in Gradescope's results.json format to this file")
	return cmd
}

func (a *app) grade(assignment, submission, out, plain, gs string) error {
	asg, err := grade.Load(assignment)
	if err != nil {
		return usageErr("%v", err)
	}
	if _, err := os.Stat(submission); err != nil {
		return usageErr("submission %s: no such file or directory", submission)
	}
	for _, f := range []struct{ flag, path string }{{"json", plain}, {"gradescope", gs}} {
		if err := checkOutput(f.flag, f.path); err != nil {
			return err
		}
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return usageErr("--out %s: %v", out, err)
		}
	}
	stopper := newStopper()
	defer stopper.stop()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	res, err := grade.Grade(stopper.ctx, asg, submission, grade.Options{
		Log: func(msg string) { fmt.Fprintln(a.stderr, "stdbg: grading: "+msg) },
	})
	if err != nil && res == nil {
		return usageErr("%v", err)
	}
	if err != nil {
		return &exitError{code: stopper.exitCode(), err: fmt.Errorf("grading stopped: %w", err)}
	}
	if out != "" {
		if err := res.WriteHTML(out); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if err := res.WriteText(a.stdout); err != nil {
		return err
	}
	if err := res.WriteFiles(out, plain, gs); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if out != "" {
		abs, _ := filepath.Abs(out)
		fmt.Fprintf(a.stderr, "stdbg: feedback, traces and results.json written to %s\n", abs)
	}
	if res.Score < res.MaxScore {
		return bugFound
	}
	return nil
}
