package grade

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stdbg/stdbg/internal/lazyre"

	"go.yaml.in/yaml/v3"

	"github.com/stdbg/stdbg/engine/ltl"
)

// Assignment is an exercise as a teacher writes it (docs/teaching.md): the
// files a student hands in, the checks run on them, their points.
type Assignment struct {
	// Name is the assignment's title.
	Name string `yaml:"name"`
	// Language is "c" (C or C++ with POSIX threads) or "go" (plain Go).
	Language string `yaml:"language"`
	// Submit lists the files a student hands in (e.g. buffer.c).
	Submit []string `yaml:"submit"`
	// Limits are every check's limits unless the check sets its own.
	Limits Limits `yaml:"limits"`
	// Checks are run in order.
	Checks []Check `yaml:"checks"`
	// Dir is the directory of the assignment file: harness files are
	// found there.
	Dir string `yaml:"-"`
}

// Limits bound a check's search and the submission's processes. Zero
// values take the defaults (DefaultLimits). A search is bounded by what it
// explores (Executions, MaxDepth, Preemptions), which gives the same
// grade on any machine; the time bounds (Budget, Wall) are a safety net
// for programs that run for ever, and a check that reaches them is not
// graded (StatusUnfinished).
type Limits struct {
	// Budget bounds the CPU time of the check's search and its
	// minimisation: the grader's and the program's processes', which a
	// busy machine does not use up sooner (wall time it would); a check
	// that spends it is unfinished and gets no points.
	Budget Duration `yaml:"budget"`
	// Wall bounds the time the check (build excluded) spends waiting
	// without using the CPU, for a program that blocks or sleeps: the
	// seconds in which the grader and the program together used less
	// than a hundredth of a CPU; the processes are killed when it is
	// spent (default: six times the budget). Ten times Wall of wall time
	// bounds the check whatever it does.
	Wall Duration `yaml:"wall"`
	// CPU bounds the CPU time of each process of the submission.
	CPU Duration `yaml:"cpu"`
	// Step bounds one transition: code that runs longer between two
	// thread operations (an endless loop) is reported.
	Step Duration `yaml:"step"`
	// MemoryMB bounds each process's address space, in MiB (not applied
	// to Go programs built with the race detector, which reserve far more
	// address space than they use).
	MemoryMB int `yaml:"memory_mb"`
	// Processes bounds the processes and threads of the submission's user
	// (enforced only when the grader can run the submission as a user of
	// its own: as root).
	Processes int `yaml:"processes"`
	// FileMB bounds the size of a file the submission writes, in MiB.
	FileMB int `yaml:"file_mb"`
	// MaxDepth bounds the length of one execution (in transitions).
	MaxDepth int `yaml:"max_depth"`
	// Executions bounds the number of executions the search runs.
	Executions int64 `yaml:"executions"`
	// Incomplete says what a search that found no bug but stopped at
	// Executions, or cut some execution at MaxDepth, is worth:
	// IncompleteFail (the default: no points, StatusUnverified) or
	// IncompletePass (full marks, the search line saying what was
	// explored).
	Incomplete string `yaml:"incomplete"`
	// Preemptions, when set, bounds the search to the schedules with at
	// most this many preemptions (nil: exhaustive).
	Preemptions *int `yaml:"preemptions"`
	// MinimiseExecutions bounds the executions spent shrinking each
	// failure's schedule (a schedule not proven minimal within them is
	// shown as found shortest).
	MinimiseExecutions int64 `yaml:"minimise_executions"`
}

// What a search that stopped at its bounds is worth (Limits.Incomplete).
const (
	IncompleteFail = "fail"
	IncompletePass = "pass"
)

// DefaultLimits are the limits of a check that sets none.
var DefaultLimits = Limits{
	Budget: Duration(5 * time.Minute), CPU: Duration(5 * time.Minute), Step: Duration(5 * time.Second),
	MemoryMB: 1024, Processes: 512, FileMB: 16, MaxDepth: 2000, Executions: 20000, Incomplete: IncompleteFail,
	MinimiseExecutions: 2000,
}

// Check is one graded property of a submission.
type Check struct {
	// Name is what the student sees.
	Name string `yaml:"name"`
	// Kind is "no-bug" (no bug of the classes in Bugs within the
	// bounds), "ltl" (Formula holds on every fair run), "progress" (no
	// livelock: no fair cycle without stdbg_progress) or "test" (the
	// program's own checks, assertions and tests, pass in every
	// schedule: a panic, a failed assertion, a misuse or a deadlock of
	// every thread fails it, as it fails the program run alone).
	Kind string `yaml:"kind"`
	// Bugs are the classes a no-bug check looks for: deadlock, race,
	// leak, assertion (with crashes), misuse, crash, livelock (endless
	// loops fail every check).
	Bugs []string `yaml:"bugs"`
	// Harness are files of the assignment's directory built with the
	// submission: for C, the first is the main source (it #includes the
	// student's file); for Go, files added to the student's package (a
	// main.go or a _test.go).
	Harness []string `yaml:"harness"`
	// Run selects the Go tests of a test check (as go test -run).
	Run string `yaml:"run"`
	// Args are the program's arguments.
	Args []string `yaml:"args"`
	// Formula is the LTL formula of an ltl check (docs/liveness.md).
	Formula string `yaml:"formula"`
	// Points is the check's worth.
	Points float64 `yaml:"points"`
	// Deduct gives partial credit: each class of bug found takes its
	// points off (a class not listed takes all).
	Deduct map[string]float64 `yaml:"deduct"`
	// Visibility is Gradescope's: visible (default), hidden,
	// after_due_date or after_published.
	Visibility string `yaml:"visibility"`
	// Limits override the assignment's.
	Limits Limits `yaml:",inline"`

	formula *ltl.Formula
	line    int
}

// Duration is a time.Duration written as "10s" in YAML.
type Duration time.Duration

// UnmarshalYAML reads "10s", "1m30s".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration (write 10s, 2m)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Bug classes a no-bug check may name, and the search's kinds of each.
var classes = map[string][]string{
	"deadlock":  {"deadlock"},
	"race":      {"data-race"},
	"leak":      {"leak"},
	"assertion": {"assertion", "crash"},
	"misuse":    {"misuse"},
	"crash":     {"crash"},
	"livelock":  {"livelock"},
}

// alwaysFail are the kinds that fail any check: the program did not run
// to an end the check can judge. (A crash fails the checks of assertions,
// crashes and tests: a panic is how a Go test fails.)
var alwaysFail = map[string]bool{"timeout": true}

// Kinds of checks.
const (
	KindNoBug    = "no-bug"
	KindLTL      = "ltl"
	KindProgress = "progress"
	KindTest     = "test"
)

var visibilities = map[string]bool{"visible": true, "hidden": true, "after_due_date": true, "after_published": true}

// Load reads and checks an assignment file.
func Load(path string) (*Assignment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the assignment: %w", err)
	}
	a, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	a.Dir = dir
	for _, c := range a.Checks {
		for _, h := range c.Harness {
			if _, err := os.Stat(filepath.Join(dir, h)); err != nil {
				return nil, fmt.Errorf("%s: line %d: check %q: harness file %s: %w", path, c.line, c.Name, h, errors.Unwrap(err))
			}
		}
	}
	return a, nil
}

// Parse reads an assignment from YAML: unknown keys, bad values and
// checks that cannot run are errors that name their line.
func Parse(b []byte) (*Assignment, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&root); err != nil {
		return nil, yamlError(err)
	}
	a := &Assignment{}
	if err := root.Decode(a); err != nil {
		return nil, yamlError(err)
	}
	// Decode again, strictly: Node.Decode does not refuse unknown keys.
	dec = yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&Assignment{}); err != nil {
		return nil, yamlError(err)
	}
	lines := checkLines(&root)
	for i := range a.Checks {
		if i < len(lines) {
			a.Checks[i].line = lines[i]
		}
	}
	return a, a.validate()
}

// yamlError says a YAML error in one line ("line 4: ...").
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg, _, _ = strings.Cut(msg, "\n")
	return errors.New(strings.TrimSpace(msg))
}

// checkLines finds the line of each check in the document.
func checkLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "checks" && m.Content[i+1].Kind == yaml.SequenceNode {
			var lines []int
			for _, c := range m.Content[i+1].Content {
				lines = append(lines, c.Line)
			}
			return lines
		}
	}
	return nil
}

var safeName = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func (a *Assignment) validate() error {
	if a.Name == "" {
		return errors.New("the assignment has no name")
	}
	if a.Language != "c" && a.Language != "go" {
		return fmt.Errorf("language %q: expected c or go", a.Language)
	}
	if len(a.Submit) == 0 {
		return errors.New("submit: name the files a student hands in")
	}
	for _, f := range a.Submit {
		if !safeName.MatchString(f) {
			return fmt.Errorf("submit: %q is not a plain file name", f)
		}
	}
	if err := a.Limits.check(0); err != nil {
		return err
	}
	if len(a.Checks) == 0 {
		return errors.New("the assignment has no checks")
	}
	names := map[string]bool{}
	for i := range a.Checks {
		c := &a.Checks[i]
		if err := c.validate(a); err != nil {
			return fmt.Errorf("line %d: check %q: %w", c.line, c.Name, err)
		}
		if names[c.Name] {
			return fmt.Errorf("line %d: check %q: two checks have this name", c.line, c.Name)
		}
		names[c.Name] = true
	}
	return nil
}

func (c *Check) validate(a *Assignment) error {
	if c.Name == "" {
		return errors.New("the check has no name")
	}
	if c.Points < 0 {
		return fmt.Errorf("points %g: must not be negative", c.Points)
	}
	if c.Visibility == "" {
		c.Visibility = "visible"
	}
	if !visibilities[c.Visibility] {
		return fmt.Errorf("visibility %q: expected visible, hidden, after_due_date or after_published", c.Visibility)
	}
	for _, h := range c.Harness {
		if !safeName.MatchString(h) {
			return fmt.Errorf("harness %q: not a plain file name", h)
		}
	}
	if a.Language == "c" && len(c.Harness) > 0 && !isCSource(c.Harness[0]) {
		return fmt.Errorf("harness %s: the first harness file of a C check is its main source (.c, .cc, .cpp)", c.Harness[0])
	}
	if c.Run != "" && a.Language != "go" {
		return errors.New("run selects Go tests: this is a C assignment")
	}
	switch c.Kind {
	case KindNoBug:
		if len(c.Bugs) == 0 {
			return errors.New("a no-bug check names its bug classes (bugs: [deadlock, race, leak, assertion, misuse])")
		}
		for _, b := range c.Bugs {
			if _, ok := classes[b]; !ok {
				return fmt.Errorf("bug class %q: expected deadlock, race, leak, assertion, misuse, crash or livelock", b)
			}
		}
	case KindLTL:
		if c.Formula == "" {
			return errors.New("an ltl check needs a formula")
		}
		f, err := ltl.Parse(c.Formula)
		if err != nil {
			return fmt.Errorf("formula: %w", err)
		}
		c.formula = f
	case KindProgress, KindTest:
	case "":
		return errors.New("the check has no kind (no-bug, ltl, progress or test)")
	default:
		return fmt.Errorf("kind %q: expected no-bug, ltl, progress or test", c.Kind)
	}
	if c.Kind != KindNoBug && len(c.Bugs) > 0 {
		return fmt.Errorf("bugs: only a no-bug check names bug classes (this is a %s check)", c.Kind)
	}
	if c.Kind != KindLTL && c.Formula != "" {
		return fmt.Errorf("formula: only an ltl check has a formula (this is a %s check)", c.Kind)
	}
	for class, pts := range c.Deduct {
		if _, ok := classes[class]; !ok && !alwaysFail[class] {
			return fmt.Errorf("deduct: unknown bug class %q", class)
		}
		if pts < 0 {
			return fmt.Errorf("deduct: %s: points must not be negative", class)
		}
	}
	if (c.Kind == KindLTL || c.Kind == KindProgress) && a.Language != "c" {
		return fmt.Errorf("kind %s: only C programs can be checked for it (stdbg_prop and stdbg_progress name propositions and progress, "+
			"and stdbg hashes a C program's memory to know its states; a plain Go program has neither)", c.Kind)
	}
	if (c.Kind == KindLTL || c.Kind == KindProgress) && c.Limits.Preemptions != nil {
		return errors.New("preemptions: an ltl or progress check explores the whole state graph; it cannot be bounded")
	}
	return c.Limits.check(c.line)
}

func (l *Limits) check(line int) error {
	at := ""
	if line > 0 {
		at = fmt.Sprintf(" (check at line %d)", line)
	}
	switch {
	case l.MemoryMB < 0 || l.Processes < 0 || l.FileMB < 0 || l.MaxDepth < 0 || l.Executions < 0 || l.MinimiseExecutions < 0:
		return fmt.Errorf("limits%s: memory_mb, processes, file_mb, max_depth, executions and minimise_executions must not be negative", at)
	case l.Preemptions != nil && *l.Preemptions < 0:
		return fmt.Errorf("preemptions%s: must not be negative", at)
	case l.MemoryMB > 0 && l.MemoryMB < 64:
		return fmt.Errorf("memory_mb %d%s: a program needs at least 64 MiB", l.MemoryMB, at)
	case l.Incomplete != "" && l.Incomplete != IncompleteFail && l.Incomplete != IncompletePass:
		return fmt.Errorf("incomplete %q%s: expected fail (no points for a search that could not finish) or pass", l.Incomplete, at)
	}
	return nil
}

// limits are the check's limits: its own, else the assignment's, else
// the defaults.
func (c *Check) limits(a *Assignment) Limits {
	l := c.Limits
	pick := func(v *Duration, outer, def Duration) {
		if *v == 0 {
			*v = outer
		}
		if *v == 0 {
			*v = def
		}
	}
	pickI := func(v *int, outer, def int) {
		if *v == 0 {
			*v = outer
		}
		if *v == 0 {
			*v = def
		}
	}
	d, o := DefaultLimits, a.Limits
	pick(&l.Budget, o.Budget, d.Budget)
	pick(&l.CPU, o.CPU, d.CPU)
	pick(&l.Step, o.Step, d.Step)
	pick(&l.Wall, o.Wall, 6*l.Budget)
	pickI(&l.MemoryMB, o.MemoryMB, d.MemoryMB)
	pickI(&l.Processes, o.Processes, d.Processes)
	pickI(&l.FileMB, o.FileMB, d.FileMB)
	pickI(&l.MaxDepth, o.MaxDepth, d.MaxDepth)
	if l.Executions == 0 {
		l.Executions = o.Executions
	}
	if l.Executions == 0 {
		l.Executions = d.Executions
	}
	if l.Incomplete == "" {
		l.Incomplete = o.Incomplete
	}
	if l.Incomplete == "" {
		l.Incomplete = d.Incomplete
	}
	if l.MinimiseExecutions == 0 {
		l.MinimiseExecutions = o.MinimiseExecutions
	}
	if l.MinimiseExecutions == 0 {
		l.MinimiseExecutions = d.MinimiseExecutions
	}
	if l.Preemptions == nil {
		l.Preemptions = o.Preemptions
	}
	return l
}

// isCSource reports a C or C++ source file name.
func isCSource(name string) bool {
	switch filepath.Ext(name) {
	case ".c", ".cc", ".cpp", ".cxx", ".C":
		return true
	}
	return false
}

// wantsRace reports whether a check looks for data races.
func (c *Check) wantsRace() bool {
	for _, b := range c.Bugs {
		if b == "race" {
			return true
		}
	}
	return false
}

// counts reports whether a bug of kind fails the check.
func (c *Check) counts(kind string) bool {
	if alwaysFail[kind] {
		return true
	}
	switch c.Kind {
	case KindLTL:
		return kind == "liveness"
	case KindProgress:
		return kind == "livelock"
	case KindTest:
		// A deadlock of every thread fails a test run alone too: Go's
		// runtime ends the program ("all goroutines are asleep"), a C
		// program hangs until the test's timeout. A leak (the program
		// ended with threads still blocked) does not.
		return kind == "assertion" || kind == "crash" || kind == "misuse" || kind == "deadlock"
	}
	for _, b := range c.Bugs {
		for _, k := range classes[b] {
			if k == kind {
				return true
			}
		}
	}
	return false
}
