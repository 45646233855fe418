package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/frontend/grade"
)

// grader is stdbg grade: an assignment's checks run on a submission.
type grader struct {
	*app
	// out is the directory of the feedback (--out); plain, gs, classroom
	// and pl the results' files (--json, --gradescope, --classroom,
	// --prairielearn).
	out, plain, gs, classroom, pl string
}

func (c *grader) command() *cobra.Command {
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
autograder format), result.json (the same result, plain), classroom.json
(a GitHub Classroom test runner's result) and prairielearn.json
(PrairieLearn's external grader format).

Exit status: 0 full marks, 1 points lost, 2 bad input (the assignment or the
submission cannot be read).`,
		Example: `  stdbg grade exercises/c/bounded-buffer/assignment.yaml my-work/
  stdbg grade --out feedback exercises/go/worker-pool/assignment.yaml ./pool
  stdbg grade --gradescope /autograder/results/results.json \
      /autograder/source/assignment.yaml /autograder/submission
  stdbg grade --classroom classroom.json .stdbg/assignment.yaml .
  stdbg grade --prairielearn /grade/results/results.json /grade/tests/assignment.yaml /grade/student`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.grade(args[0], args[1])
		},
	}
	cmd.Flags().StringVar(&c.out, "out", "", "write feedback.txt, the HTML trace of each failure, results.json (Gradescope), result.json, classroom.json and prairielearn.json into this directory")
	cmd.Flags().StringVar(&c.plain, "json", "", "write the result as plain JSON to this file")
	cmd.Flags().StringVar(&c.gs, "gradescope", "", "write the result in Gradescope's results.json format to this file")
	cmd.Flags().StringVar(&c.classroom, "classroom", "", "write the result as a GitHub Classroom test runner's result (JSON; the workflow step gives it, base64-encoded, to the grading reporter: docs/teaching.md)")
	cmd.Flags().StringVar(&c.pl, "prairielearn", "", "write the result as PrairieLearn's external grader results.json to this file (/grade/results/results.json in a grading job)")
	return cmd
}

// grade grades the submission against the assignment.
func (c *grader) grade(assignment, submission string) error {
	out, plain, gs, classroom, pl := c.out, c.plain, c.gs, c.classroom, c.pl
	asg, err := grade.Load(assignment)
	if err != nil {
		return usageErr("%v", err)
	}
	if _, err := os.Stat(submission); err != nil {
		return usageErr("submission %s: no such file or directory", submission)
	}
	for _, f := range []struct{ flag, path string }{{"json", plain}, {"gradescope", gs}, {"classroom", classroom}, {"prairielearn", pl}} {
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
		Log:     func(msg string) { fmt.Fprintln(c.stderr, "stdbg: grading: "+msg) },
		Version: version,
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
	if err := res.WriteText(c.stdout); err != nil {
		return err
	}
	if err := res.WriteFiles(grade.Outputs{Dir: out, Plain: plain, Gradescope: gs, Classroom: classroom, PrairieLearn: pl}); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if out != "" {
		abs, _ := filepath.Abs(out)
		fmt.Fprintf(c.stderr, "stdbg: feedback, traces and results.json written to %s\n", abs)
	}
	if res.Score < res.MaxScore {
		return bugFound
	}
	return nil
}
