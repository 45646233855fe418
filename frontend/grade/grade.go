// Package grade checks a student's concurrent program against an
// assignment and says what went wrong in words a student can act on. An
// assignment (a YAML file, see Load and docs/teaching.md) lists checks: no
// bug of some classes within bounds, an LTL property, freedom from
// livelock, or the program's own tests in every schedule, each with its
// points, limits and visibility. Grade builds the submission in a
// directory of its own, runs each check through session.Find with the
// program confined (limits on CPU time, memory, processes, file size and
// wall time; no network; run as a user of its own when the grader is
// root), and returns a Result: per check the score and, for each bug, its
// class in plain words, the minimised schedule told as a story, the source
// lines, a hint for the pattern when one is recognised and the command
// that replays it. Result writes Gradescope's results.json, a plain JSON
// document, a text report and an HTML trace of each failure.
package grade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/goinstr"
)

// Options say how to grade.
type Options struct {
	// Confinement is how the submission's processes are confined (nil:
	// what Probe finds on this machine).
	Confinement *Confinement
	// Log, if not nil, is told of each check as it starts.
	Log func(string)
	// Version is stdbg's version, written at the foot of the HTML
	// traces.
	Version string
}

// Result is a graded submission.
type Result struct {
	Assignment string        `json:"assignment"`
	Submission string        `json:"submission"`
	Score      float64       `json:"score"`
	MaxScore   float64       `json:"max_score"`
	Checks     []CheckResult `json:"checks"`
	// Confinement says what confined the submission's processes.
	Confinement string `json:"confinement"`
	// Seconds is the time the grading took.
	Seconds float64 `json:"seconds"`
}

// Check statuses.
const (
	StatusPassed   = "passed"
	StatusFailed   = "failed"
	StatusNotBuilt = "not-built"
	// StatusIncomplete: the submission lacks a file the assignment
	// names.
	StatusIncomplete = "missing-files"
	StatusError      = "error"
	// StatusUnverified: the search found no bug but stopped at its bound
	// of executions or of depth before it had explored every schedule to
	// its end; the check gets no points unless the assignment says
	// incomplete: pass.
	StatusUnverified = "unverified"
	// StatusUnfinished: the check ran out of its time bound (a program
	// that runs for ever, or a machine too busy): no points, said.
	StatusUnfinished = "unfinished"
)

// CheckResult is the outcome of one check.
type CheckResult struct {
	Name       string  `json:"name"`
	Kind       string  `json:"kind"`
	Score      float64 `json:"score"`
	MaxScore   float64 `json:"max_score"`
	Visibility string  `json:"visibility"`
	Status     string  `json:"status"`
	// Message says why a check could not run (the compiler's messages),
	// or what the search covered when it passed.
	Message string `json:"message,omitempty"`
	// Search is the extent of the search: exhaustive or bounded, and the
	// number of executions.
	Search     string    `json:"search,omitempty"`
	Executions int64     `json:"executions"`
	Failures   []Failure `json:"failures,omitempty"`
	Seconds    float64   `json:"seconds"`
}

// Failure is one bug a check found, told for a student.
type Failure struct {
	// Kind is the search's kind (deadlock, data-race, ...); Class says it
	// in plain words, Explanation what it means.
	Kind        string `json:"kind"`
	Class       string `json:"class"`
	Explanation string `json:"explanation"`
	// Message is the checker's one-line account.
	Message string `json:"message"`
	// Schedule is the minimised schedule (Path = ...).
	Schedule string `json:"schedule"`
	// Story tells the schedule in plain words, a sentence per line.
	Story []string `json:"story"`
	// Lines are the source lines of the student's files the story goes
	// through, "file:line: text".
	Lines []string `json:"lines,omitempty"`
	// Hints name the mistake when its pattern is recognised.
	Hints []Hint `json:"hints,omitempty"`
	// Replay is the command that replays the failure; Debug, under GDB
	// or Delve.
	Replay string `json:"replay"`
	Debug  string `json:"debug"`
	// HTML is the trace page's file name, when one was written.
	HTML string `json:"html,omitempty"`
	// Report is the full report.
	Report *report.Report `json:"report,omitempty"`

	page []byte // the HTML trace
}

// Grade checks the submission (a directory holding the assignment's
// Submit files, or, for a one-file assignment, that file) against a. An
// error means the grading itself could not run (the submission is not
// there, or stdbg is not installed correctly: a *goinstr.InstallError,
// under which no submission is graded); what is wrong with the submission (missing files, a build
// error, bugs) is in the Result.
func Grade(ctx context.Context, a *Assignment, submission string, o Options) (*Result, error) {
	start := time.Now()
	files, err := submitted(a, submission)
	if err != nil {
		return nil, err
	}
	// Every build goes through stdbg's cache: without one no submission
	// builds, and none is graded.
	if _, err := cachedir.Usable(); err != nil {
		return nil, &goinstr.InstallError{Err: err}
	}
	conf := o.Confinement
	if conf == nil {
		c := Probe()
		conf = &c
	}
	res := &Result{Assignment: a.Name, Submission: submission, Confinement: conf.describe()}
	var missing []string
	for _, f := range a.Submit {
		if _, ok := files[f]; !ok {
			missing = append(missing, f)
		}
	}
	sb, err := newSandbox(*conf)
	if err != nil {
		return nil, err
	}
	defer sb.close()
	g := &grader{a: a, sb: sb, files: files, builds: map[string]*built{}, log: o.Log, version: o.Version}
	if len(missing) > 0 {
		for i := range a.Checks {
			c := &a.Checks[i]
			cr := CheckResult{Status: StatusIncomplete, Message: "your submission has no " + strings.Join(missing, ", ") + ": hand in every file the assignment names"}
			cr.Name, cr.Kind, cr.MaxScore, cr.Visibility = c.Name, c.Kind, c.Points, c.Visibility
			res.Checks = append(res.Checks, cr)
			res.MaxScore += c.Points
		}
	} else {
		wait := g.prebuild()
		res.Checks = g.checks(ctx)
		wait()
		if g.broken != nil {
			// stdbg cannot build any submission: no grade at all
			// rather than a wrong one.
			return nil, g.broken
		}
		for i, c := range a.Checks {
			res.MaxScore += c.Points
			if i < len(res.Checks) {
				res.Score += res.Checks[i].Score
			}
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, ctx.Err()
}

// submitted maps each file of the submission the assignment names to its
// path.
func submitted(a *Assignment, path string) (map[string]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", path)
		}
		return nil, err
	}
	files := map[string]string{}
	if !st.IsDir() {
		if len(a.Submit) != 1 {
			return nil, fmt.Errorf("%s is a file, and the assignment asks for %d files: give the directory holding them", path, len(a.Submit))
		}
		files[a.Submit[0]] = path
		return files, nil
	}
	for _, f := range a.Submit {
		p := filepath.Join(path, f)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			files[f] = p
		}
	}
	return files, nil
}

// grader grades one submission.
type grader struct {
	a      *Assignment
	sb     *sandbox
	files  map[string]string
	builds map[string]*built // by harness, race and run (entry), under mu
	// srcDirs are the directories of a Go submission's files, by
	// harness (entry), under mu: the builds of one harness with and
	// without the race detector share theirs.
	srcDirs map[string]*sourceDir
	mu      sync.Mutex
	log     func(string)
	// broken is set when stdbg itself cannot build Go programs
	// (goinstr.InstallError): grading stops there.
	broken error
	// version is stdbg's, for the HTML traces.
	version string
}

// built is a submission built with a check's harness.
type built struct {
	once sync.Once // the build, run once (prebuild or build)
	name string    // its directory's name in the sandbox
	// src is the directory of the program's files: its own (C), or
	// shared by the Go builds of one harness.
	src *sourceDir
	t   *session.Target
	dir string // the program's files (src's)
	run string // the program's working directory, its own
	lib string // the C library, reachable by the program's user
	err error  // the build failed: the compiler's messages
}

// build builds the submission for check c, once per harness and build
// mode, or waits for prebuild's build of it.
func (g *grader) build(c *Check) *built {
	b := g.entry(c)
	b.once.Do(func() { g.make(c, b) })
	return b
}

// entry returns the build of check c, made or not.
func (g *grader) entry(c *Check) *built {
	key := fmt.Sprintf("%q/%v/%s", c.Harness, c.wantsRace(), c.Run)
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.builds[key]; ok {
		return b
	}
	b := &built{name: fmt.Sprintf("build%d", len(g.builds)+1)}
	b.src = &sourceDir{name: b.name}
	if g.a.Language == "go" {
		// A Go program's race build and its plain build read the same
		// files in the same directory: its listing and instrumentation,
		// made once, serve both (goinstr keys them by directory and
		// content), and the go command builds each with other flags into
		// an executable of its own.
		if g.srcDirs == nil {
			g.srcDirs = map[string]*sourceDir{}
		}
		// The directory holds the sources alone: a file added there (a
		// build's executable, its program's working directory) would
		// make goinstr list the package again.
		hk := fmt.Sprintf("%q", c.Harness)
		src, ok := g.srcDirs[hk]
		if !ok {
			src = &sourceDir{name: fmt.Sprintf("src%d", len(g.srcDirs)+1)}
			g.srcDirs[hk] = src
		}
		b.src = src
	}
	g.builds[key] = b
	return b
}

// sourceDir is a directory of the sandbox holding a submission's files and
// a harness, made once.
type sourceDir struct {
	once sync.Once
	name string // its name in the sandbox
	dir  string
	err  error
}

// make makes d with files (as workDir does) and, if goMod is not "", a
// go.mod file holding it, once.
func (d *sourceDir) make(sb *sandbox, files map[string]string, goMod string) (string, error) {
	d.once.Do(func() {
		d.dir, d.err = sb.workDir(d.name, files)
		if d.err == nil && goMod != "" {
			d.err = os.WriteFile(filepath.Join(d.dir, "go.mod"), []byte(goMod), 0o644)
		}
	})
	return d.dir, d.err
}

// prebuild starts the builds of every check of a C assignment, as many at
// once as the machine has CPUs, and returns a function that waits for
// them: a check's build then runs while an earlier check searches (a
// search keeps about one CPU busy, the program and the checker taking
// turns), instead of after it. Each build is the one build of the check
// would run, in the same directory. Go builds are left to each check:
// the go command runs its own work in parallel.
func (g *grader) prebuild() (wait func()) {
	if g.a.Language == "go" {
		return func() {}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i := range g.a.Checks {
		c := &g.a.Checks[i]
		b := g.entry(c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			b.once.Do(func() { g.make(c, b) })
		}()
	}
	return wg.Wait
}

// make builds the submission with check c's harness into b.
func (g *grader) make(c *Check, b *built) {
	race := c.wantsRace()
	files := map[string]string{}
	for name, p := range g.files {
		files[name] = p
	}
	for _, h := range c.Harness {
		files[h] = filepath.Join(g.a.Dir, h)
	}
	mod := ""
	if g.a.Language == "go" {
		mod = goMod()
	}
	dir, err := b.src.make(g.sb, files, mod)
	if err != nil {
		b.err = err
		return
	}
	b.dir = dir
	// The build's own directory: its program's working directory and
	// executable (the source directory, unless that is shared).
	own := dir
	if b.src.name != b.name {
		if own, err = g.sb.workDir(b.name, nil); err != nil {
			b.err = err
			return
		}
	}
	var arg string
	build := session.Build{Run: c.Run}
	if g.a.Language == "go" {
		// Nothing debugs a grading's build (a student replays under
		// Delve with a build of their own): linked without DWARF, which
		// takes a third of the link's time (the reports name the code
		// from Go's line table).
		arg, build.Race, build.NoDWARF = dir, race, true
	} else {
		main := g.a.Submit[0]
		if len(c.Harness) > 0 {
			main = c.Harness[0]
		}
		// A race check builds with the memory instrumentation and
		// checks every schedule's accesses for races without making
		// them scheduling points, as stdbg find does by default.
		arg, build.Memory, build.Race = filepath.Join(dir, main), race, race
	}
	t, err := session.Resolve(append([]string{arg}, c.Args...), build)
	if err != nil {
		b.err = err
		return
	}
	t.SeedRand(session.DefaultRandSeed)
	if b.run, err = g.sb.runDir(own); err != nil {
		b.err = err
		return
	}
	if t.Binary, err = g.sb.reachable(t.Binary, own); err != nil {
		b.err = err
		return
	}
	if !t.Go && g.sb.conf.User >= 0 {
		lib, err := ctarget.Library()
		if err != nil {
			b.err = err
			return
		}
		if b.lib, err = g.sb.reachable(lib, own); err != nil {
			b.err = err
			return
		}
	}
	b.t = t
}

// goMod is the module file of a Go submission: the module stdbg builds,
// at the language version of the go command that builds it (which may be
// older than the Go stdbg was built with: a go line above it would have
// the go command fetch a newer toolchain, or refuse the module).
func goMod() string {
	goCmdOnce.Do(func() {
		goCmdVersion = runtime.Version()
		cmd := exec.Command("go", "env", "GOVERSION")
		cmd.Dir = os.TempDir() // where submissions are built: no go.mod around
		if out, err := cmd.Output(); err == nil {
			if f := strings.Fields(string(out)); len(f) > 0 {
				goCmdVersion = f[0]
			}
		}
	})
	return goModAt(goCmdVersion)
}

var (
	goCmdOnce    sync.Once
	goCmdVersion string
)

// goModAt is goMod for the go command of version (go1.26.8).
func goModAt(version string) string {
	v := strings.TrimPrefix(version, "go")
	if parts := strings.SplitN(v, ".", 3); len(parts) >= 2 {
		v = parts[0] + "." + parts[1]
	}
	return "module submission\n\ngo " + v + "\n"
}

// classOf is the bug class (of an assignment) of a search's kind.
func classOf(kind string) string {
	if _, ok := classes[kind]; ok {
		return kind
	}
	names := make([]string, 0, len(classes))
	for class := range classes {
		names = append(names, class)
	}
	sort.Strings(names)
	for _, class := range names {
		for _, k := range classes[class] {
			if k == kind {
				return class
			}
		}
	}
	return kind
}
