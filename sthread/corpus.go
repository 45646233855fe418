package sthread

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

// The corpus of a Go test. Check saves each bug it finds as a corpus entry
// (package corpus, target kind "go-test") under
// testdata/stdbg/<test name>/ in the test's package directory, the working
// directory of go test, and replays the entries stored there before it
// searches, the way Go's fuzzing replays testdata/fuzz.

// NoSaveEnv names the environment variable that stops Check from saving
// the bugs it finds when set to a true value (STDBG_NO_SAVE=1), like
// NoSave. The stored entries are still replayed.
const NoSaveEnv = "STDBG_NO_SAVE"

// goTestKind is the corpus target kind of the entries Check writes.
const goTestKind = "go-test"

// NoSave stops Check from saving the bugs it finds under testdata/stdbg
// (see Check). The entries already stored are still replayed.
//
//go:norace
func NoSave() Option { return func(c *config) { c.noSave = true } }

// saving reports whether Check saves the bugs it finds.
//
//go:norace
func (c *config) saving() bool {
	if c.noSave {
		return false
	}
	v := os.Getenv(NoSaveEnv)
	if v == "" {
		return true
	}
	off, err := strconv.ParseBool(v)
	return err == nil && !off
}

// corpusDir is the directory, relative to the package directory, holding
// the corpus of the test named test: corpus.Root/<test name>, a subtest
// in a subdirectory of its parent's.
//
//go:norace
func corpusDir(test string) string {
	parts := []string{corpus.Root}
	for _, p := range strings.Split(test, "/") {
		parts = append(parts, safeName(p))
	}
	return filepath.Join(parts...)
}

// safeName makes one element of a test name usable as a directory name on
// every system: characters other than letters, digits and -_.#=+,@ become
// '_', and an empty, "." or ".." element becomes "_".
//
//go:norace
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_.#=+,@", c) >= 0:
		default:
			b[i] = '_'
		}
	}
	if s = string(b); s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// corpusConfig is where and how Check saves the bugs of the test t: nil
// when saving is off.
//
//go:norace
func corpusConfig(t testing.TB, cfg *config) *hunt.Corpus {
	if !cfg.saving() {
		return nil
	}
	dir := corpusDir(t.Name())
	return &hunt.Corpus{
		Dir:     dir,
		Target:  corpus.Target{Kind: goTestKind, Source: corpus.RelSource(dir, "."), Test: t.Name()},
		Search:  corpus.Search{Strategy: "dfs", Reduction: cfg.reduction()},
		Version: stdbgVersion(),
		// The corpus replays plain schedules: lassos (livelocks, LTL
		// violations) are not stored.
		NoLassos: true,
	}
}

// footer is what Check says of a bug after its report: how it was
// minimised, and where it was saved or why it was not.
//
//go:norace
func (b *Bug) footer() string {
	var sb strings.Builder
	if b.Report != nil && b.Report.Minimised != nil {
		fmt.Fprintln(&sb, b.Report.Minimised)
	}
	switch {
	case b.saveErr != nil:
		fmt.Fprintf(&sb, "Not saved: %v\n", b.saveErr)
	case b.alreadySaved:
		fmt.Fprintf(&sb, "Already saved %s\n", b.savedAt)
	case b.savedAt != "":
		fmt.Fprintf(&sb, "Saved %s\n", b.savedAt)
	}
	return sb.String()
}

// replayCorpus replays, before any search, the entries of the test t
// stored directly in dir (those of subtests, in subdirectories, are
// theirs). Each entry that still fails fails t, with its report and its
// path, and replayCorpus then returns true: no search is needed. Entries
// that now run cleanly (fixed) or no longer fit f (diverged), corrupt
// entries and entries of another test are logged. The replays end with
// the budget, counted from start: an entry whose replay the budget cut,
// or that it left no time to replay, fails t too (its bug is not known
// to be fixed).
//
//go:norace
func replayCorpus(t testing.TB, dir string, f func(), cfg *config, start time.Time) bool {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Logf("sthread: not replaying the stored bugs: %v", err)
		}
		return false
	}
	items, err := corpus.List(dir)
	if err != nil {
		t.Logf("sthread: not replaying the stored bugs: %v", err)
		return false
	}
	var failures []string
	runs := 0
	ctx := context.Background()
	if cfg.req.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(cfg.req.Budget))
		defer cancel()
	}
	for _, it := range items {
		if filepath.Dir(it.Path) != filepath.Clean(dir) {
			continue
		}
		if it.Err != nil {
			t.Logf("sthread: corrupt corpus entry %s skipped: %s", it.Path, oneLine(it.Err.Error()))
			continue
		}
		e := it.Entry
		if e.Target.Kind != goTestKind || e.Target.Test != t.Name() {
			t.Logf("sthread: corpus entry %s skipped: it is not a bug of %s (target %s %q)", it.Path, t.Name(), e.Target.Kind, e.Target.Test)
			continue
		}
		s, err := schedule.Parse(e.Schedule)
		if err != nil {
			t.Logf("sthread: corrupt corpus entry %s skipped: schedule: %s", it.Path, oneLine(err.Error()))
			continue
		}
		var rd *hunt.Replayed
		if ctx.Err() == nil {
			checkMu.Lock()
			rd, err = describe(ctx, f, cfg, hunt.Replay{Schedule: s, MaxDepth: cfg.req.MaxDepth}, false)
			checkMu.Unlock()
			runs++
		}
		// Not replayed (no time left), or cut by the budget.
		if rd == nil && err == nil || err != nil && (ctx.Err() != nil || errors.Is(err, search.ErrStepCut)) {
			failures = append(failures, fmt.Sprintf("sthread.Check: the budget (%s) ran out before the replay of the bug "+
				"stored in %s ended: it is not known to be fixed (stored: %s at %s: %s)\nReplay: %s\n",
				cfg.req.Budget, it.Path, e.Failure.Kind, e.Failure.Where, e.Failure.Message, replayCommand(t, e.Schedule)))
			continue
		}
		if err != nil {
			t.Logf("sthread: corpus entry %s could not be replayed: %s", it.Path, oneLine(err.Error()))
			continue
		}
		var sb strings.Builder
		rd.Report.WriteText(&sb)
		replay := "Replay: " + replayCommand(t, e.Schedule) + "\n"
		o := rd.Outcome
		switch v := rd.Judge(e.Failure); v.Status {
		case hunt.Diverged:
			t.Logf("sthread: %s diverged: its schedule no longer fits the function (%s); searching anew", it.Path, oneLine(v.Detail))
		case hunt.Fixed:
			t.Logf("sthread: %s fixed: its schedule now runs without failing (the file stays as a regression test)", it.Path)
		case hunt.Reproduces:
			failures = append(failures, fmt.Sprintf("sthread.Check: the bug stored in %s still reproduces:\n%s%s",
				it.Path, sb.String(), replay))
		default:
			failures = append(failures, fmt.Sprintf("sthread.Check: the schedule stored in %s now fails differently "+
				"(%s at %s; stored: %s at %s):\n%s%s", it.Path, o.Kind, o.Where, e.Failure.Kind, e.Failure.Where, sb.String(), replay))
		}
	}
	stats := fmt.Sprintf("Executions = %d (the stored schedules replayed; no new search)", runs)
	for _, msg := range failures {
		t.Errorf("%s%s", msg, stats)
	}
	return len(failures) > 0
}

// oneLine joins the lines of s, for one-line log messages.
//
//go:norace
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// stdbgVersion is the version of the stdbg module linked into the test
// binary, "(devel)" when it cannot tell.
//
//go:norace
func stdbgVersion() string {
	const module = "github.com/stdbg/stdbg"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if bi.Main.Path == module && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			if d.Replace != nil && d.Replace.Version != "" {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "(devel)"
}
