// Package corpus stores the bugs stdbg finds as a regression corpus: one
// self-describing, human-readable JSON file per bug, holding everything
// needed to build and run the target again, the schedule that fails (the
// minimised one and the one first found), how it failed, and the trace.
//
// Writes are atomic (a temporary file renamed into place), so concurrent
// finds writing into one corpus lose nothing, and an entry's file name is
// derived from the bug's kind, place and schedule, so the same bug is
// never stored twice.
package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/model/schedule"
)

// Format is the version of the entry format written by this package.
const Format = 1

// Target says how to build and run the program of an entry.
type Target struct {
	// Kind is "c-source" (compiled by stdbg from Source), "binary", or
	// "go-test" (a Go test that checks a function with sthread.Check: Test
	// in the package whose directory is Source, run by go test).
	Kind string `json:"kind"`
	// Source is the source file (for a Go test, the package directory),
	// relative to the entry's directory when it was given relative to it,
	// else absolute.
	Source string `json:"source,omitempty"`
	// Test is the name of the Go test that found the bug, as testing.T.Name
	// gives it ("TestTransfer", "TestTransfer/two_accounts"); only for
	// Kind "go-test".
	Test string `json:"test,omitempty"`
	// Run is the -run pattern that selects the test, when the entry was
	// made by stdbg find -run (Test is then empty).
	Run string `json:"run,omitempty"`
	// Binary is the executable of Kind "binary", relative to the entry's
	// directory and inside its project (Resolve). Sources are rebuilt
	// instead: their entries hold no binary (older ones held the path of
	// stdbg's build, which is ignored).
	Binary string `json:"binary,omitempty"`
	// Memory says that the source was built with stdbg's memory
	// instrumentation (plain loads and stores as scheduling points): it is
	// rebuilt the same way, so that the schedule meets the same points.
	Memory bool `json:"memory,omitempty"`
	// BinarySHA256 is the hash of the executable that ran when the bug was
	// found (for a source, stdbg's build of it): a rerun says when the
	// binary changed since. It decides nothing.
	BinarySHA256 string `json:"binary_sha256"`
	// Args are the program's arguments.
	Args []string `json:"args,omitempty"`
	// Env lists environment variables given to the program (NAME=VALUE):
	// only those of RecordedEnv.
	Env []string `json:"env,omitempty"`
}

// Search records the configuration of the search that found the bug.
type Search struct {
	Strategy  string `json:"strategy"`
	MaxDepth  int    `json:"max_depth"`
	Reduction string `json:"reduction"`
	Seed      int64  `json:"seed,omitempty"`
}

// Failure is how the program failed.
type Failure struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Where identifies the place of the failure (kind + Where is the bug's
	// identity across runs).
	Where string `json:"where"`
}

// Entry is one stored bug.
type Entry struct {
	Format       int       `json:"format"`
	StdbgVersion string    `json:"stdbg_version"`
	Created      time.Time `json:"created"`
	Target       Target    `json:"target"`
	Search       Search    `json:"search"`
	Failure      Failure   `json:"failure"`
	Schedule     string    `json:"schedule"`
	// Cycle, for a livelock or a violated liveness property, is the cycle
	// repeated forever after Schedule.
	Cycle       string         `json:"cycle,omitempty"`
	Original    string         `json:"original_schedule,omitempty"`
	Length      int            `json:"length"`
	Preemptions int            `json:"preemptions"`
	Report      *report.Report `json:"report,omitempty"`
}

// Key is the identity of the entry for de-duplication: kind, place and
// schedule.
func (e *Entry) Key() string {
	if e.Cycle != "" {
		return e.Failure.Kind + "\x00" + e.Failure.Where + "\x00" + e.Schedule + "\x00" + e.Cycle
	}
	return e.Failure.Kind + "\x00" + e.Failure.Where + "\x00" + e.Schedule
}

// FileName is the entry's file name: its kind and a short hash of its key.
func (e *Entry) FileName() string {
	sum := sha256.Sum256([]byte(e.Key()))
	return e.Failure.Kind + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// Validate checks that an entry has what a rerun needs.
func (e *Entry) Validate() error {
	switch {
	case e.Format != Format:
		return fmt.Errorf("entry format %d, this stdbg reads format %d", e.Format, Format)
	case e.Target.Kind != "c-source" && e.Target.Kind != "binary" && e.Target.Kind != "go-test" &&
		e.Target.Kind != "go-program":
		return fmt.Errorf("unknown target kind %q", e.Target.Kind)
	case e.Target.Kind == "c-source" && e.Target.Source == "":
		return errors.New("target has no source")
	case (e.Target.Kind == "go-test" || e.Target.Kind == "go-program") && e.Target.Source == "":
		return fmt.Errorf("%s target has no package directory (source)", e.Target.Kind)
	case e.Target.Kind == "go-test" && e.Target.Test == "" && e.Target.Run == "":
		return errors.New("go test target has no test name")
	case e.Target.Kind == "binary" && e.Target.Binary == "":
		return errors.New("target has no binary")
	case e.Failure.Kind == "":
		return errors.New("entry has no failure kind")
	case e.Schedule == "":
		return errors.New("entry has no schedule")
	}
	if _, err := schedule.Parse(e.Schedule); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	if e.Cycle != "" {
		if _, err := schedule.Parse(e.Cycle); err != nil {
			return fmt.Errorf("cycle: %w", err)
		}
	}
	return nil
}

// Root is the directory, relative to a target's directory, under which
// its corpora are kept: testdata/stdbg (go test ignores testdata).
var Root = filepath.Join("testdata", "stdbg")

// DefaultDir is where the bugs of a target are stored by default:
// Root/<name> next to the target, name being the target's file name
// without extension.
func DefaultDir(target string) string {
	base := filepath.Base(target)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	return filepath.Join(filepath.Dir(target), Root, name)
}

// Save writes e into dir (created if needed) and returns the file's path.
// When an entry with the same key is already there, nothing is written and
// existed is true.
func Save(dir string, e *Entry) (path string, existed bool, err error) {
	path, data, existed, err := encode(dir, e)
	if err != nil || existed {
		return path, existed, err
	}
	if err := atomicfile.Write(path, data); err != nil {
		return "", false, fmt.Errorf("saving to corpus %s: %w", dir, err)
	}
	return path, false, nil
}

// Replace stores e in dir in place of the entry at old, a file of dir (a
// bug as found, replaced by its minimisation): at every moment one of the
// two is there, whole, and never both. When e has old's name, old is
// rewritten; when an entry with e's key is already in dir, old is removed
// and existed is true; otherwise old's file takes e's content, then e's
// name.
func Replace(dir, old string, e *Entry) (path string, existed bool, err error) {
	path, data, existed, err := encode(dir, e)
	if err != nil {
		return "", false, err
	}
	switch {
	case existed && path != old:
		if err := os.Remove(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("replacing %s: %w", old, err)
		}
		return path, true, nil
	case path == old:
		// The same schedule: the entry gets what the minimisation says.
		if err := atomicfile.Write(path, data); err != nil {
			return "", false, fmt.Errorf("saving to corpus %s: %w", dir, err)
		}
		return path, false, nil
	}
	if err := atomicfile.Write(old, data); err != nil {
		return "", false, fmt.Errorf("replacing %s: %w", old, err)
	}
	if err := os.Rename(old, path); err != nil {
		return "", false, fmt.Errorf("replacing %s: %w", old, err)
	}
	return path, false, nil
}

// encode validates e and returns where it goes in dir (created if needed)
// and what it is stored as; existed reports an entry with the same key
// already there.
func encode(dir string, e *Entry) (path string, data []byte, existed bool, err error) {
	if e.Format == 0 {
		e.Format = Format
	}
	if err := e.Validate(); err != nil {
		return "", nil, false, fmt.Errorf("saving to corpus %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, false, fmt.Errorf("saving to corpus %s: %w", dir, err)
	}
	path = filepath.Join(dir, e.FileName())
	existed = false
	if old, err := Load(path); err == nil && old.Key() == e.Key() {
		existed = true
	}
	// The corpus moves with its repository: the report's paths are
	// stored relative to the entry.
	stored := *e
	if absDir, err := filepath.Abs(dir); err == nil && e.Report != nil {
		stored.Report = mapPaths(e.Report, func(p string) string {
			if rel, err := filepath.Rel(absDir, p); err == nil && filepath.IsAbs(p) {
				return rel
			}
			return p
		})
	}
	data, err = json.MarshalIndent(&stored, "", "  ")
	if err != nil {
		return "", nil, false, fmt.Errorf("saving to corpus %s: %w", dir, err)
	}
	return path, append(data, '\n'), existed, nil
}

// Update rewrites an existing entry in place, atomically.
func Update(path string, e *Entry) error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("updating %s: %w", path, err)
	}
	return atomicfile.Write(path, append(data, '\n'))
}

// Load reads one entry.
func Load(path string) (*Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading corpus entry %s: %w", path, err)
	}
	e, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("reading corpus entry %s: %w", path, err)
	}
	if dir, err := filepath.Abs(filepath.Dir(path)); err == nil && e.Report != nil {
		e.Report = mapPaths(e.Report, func(p string) string {
			if p != "" && !filepath.IsAbs(p) {
				return filepath.Join(dir, p)
			}
			return p
		})
	}
	return e, nil
}

// mapPaths returns a copy of r with f applied to every file path in it.
func mapPaths(r *report.Report, f func(string) string) *report.Report {
	c := *r
	loc := func(l report.Location) report.Location {
		l.File = f(l.File)
		return l
	}
	c.Steps = append([]report.Step(nil), r.Steps...)
	for i := range c.Steps {
		c.Steps[i].Where = loc(c.Steps[i].Where)
	}
	c.Waits = append([]report.Wait(nil), r.Waits...)
	for i := range c.Waits {
		c.Waits[i].Where = loc(c.Waits[i].Where)
		if s := c.Waits[i].Started; s != nil {
			l := loc(*s)
			c.Waits[i].Started = &l
		}
	}
	if r.Failure != nil {
		w := *r.Failure
		w.Where = loc(w.Where)
		c.Failure = &w
	}
	c.Stack = append([]report.Frame(nil), r.Stack...)
	for i := range c.Stack {
		c.Stack[i].File = f(c.Stack[i].File)
	}
	return &c
}

// Parse reads an entry from its JSON text and validates it.
func Parse(data []byte) (*Entry, error) {
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return &e, nil
}

// Item is one file found in a corpus: its entry, or why it could not be
// read.
type Item struct {
	Path  string
	Entry *Entry
	Err   error
}

// List returns the entries under the given directories or files (all
// *.json files, recursively), sorted by path. Unreadable entries are
// returned with their error, never dropped.
func List(paths ...string) ([]Item, error) {
	var items []Item
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		e, err := Load(p)
		items = append(items, Item{Path: p, Entry: e, Err: err})
	}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("listing corpus %s: %w", root, err)
		}
		if !st.IsDir() {
			add(root)
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") && !strings.HasPrefix(d.Name(), ".") {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing corpus %s: %w", root, err)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Path < items[j].Path })
	return items, nil
}

// FileSHA256 returns the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// SourcePath resolves an entry's source relative to the entry's file.
func SourcePath(entryPath string, e *Entry) string {
	if e.Target.Source == "" || filepath.IsAbs(e.Target.Source) {
		return e.Target.Source
	}
	return filepath.Join(filepath.Dir(entryPath), e.Target.Source)
}

// RelSource expresses source relative to dir when it can.
func RelSource(dir, source string) string {
	absDir, err1 := filepath.Abs(dir)
	absSrc, err2 := filepath.Abs(source)
	if err1 != nil || err2 != nil {
		return source
	}
	rel, err := filepath.Rel(absDir, absSrc)
	if err != nil {
		return absSrc
	}
	return rel
}
