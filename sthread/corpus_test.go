package sthread_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stdbg/stdbg/engine/corpus"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

// fetcher gives up waiting for a result when a timeout fires first. The
// result channel is unbuffered, so that the worker then blocks for ever on
// its send (a leak), until fixed gives the channel room for the result. It
// counts its executions.
type fetcher struct {
	fixed bool
	runs  atomic.Int64
}

func (f *fetcher) fetch() {
	f.runs.Add(1)
	capacity := 0
	if f.fixed {
		capacity = 1
	}
	result := sthread.MakeChan[int](capacity)
	timeout := sthread.MakeChan[struct{}](0)
	sthread.Go(func() { timeout.Close() })
	sthread.Go(func() { result.Send(42) })
	sthread.Select(result.RecvCase(nil, nil), timeout.RecvCase(nil, nil))
}

// inTempDir makes a fresh temporary directory the working directory (the
// package directory, for Check) until the test ends, so that nothing is
// ever written into the repository.
func inTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

// entries lists the JSON files directly in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func joined(lines []string) string { return strings.Join(lines, "\n") }

// TestCheckCorpusLifecycle: a bug found is saved; the next Check replays it
// and fails at once, without searching; once the bug is fixed the entry is
// reported fixed and the search runs and comes out clean.
func TestCheckCorpusLifecycle(t *testing.T) {
	inTempDir(t)
	b := &fetcher{}
	dir := filepath.Join("testdata", "stdbg", "TestBank")

	rec := &recorder{TB: t, name: "TestBank"}
	sthread.Check(rec, b.fetch)
	if len(rec.errors) != 1 || len(rec.fatals) != 0 {
		t.Fatalf("search: errors %q, fatals %q", rec.errors, rec.fatals)
	}
	files := entries(t, dir)
	if len(files) != 1 {
		t.Fatalf("entries %q, want one", files)
	}
	contains(t, rec.errors[0], "THREADS LEAKED", "Saved "+files[0]+"\n", "Replay: STDBG_REPLAY_SCHEDULE=")
	if !strings.HasPrefix(filepath.Base(files[0]), "leak-") {
		t.Errorf("entry file %s, want leak-<hash>.json", files[0])
	}
	e, err := corpus.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if e.Target.Kind != "go-test" || e.Target.Test != "TestBank" || e.Target.Source != filepath.Join("..", "..", "..") {
		t.Errorf("target %+v", e.Target)
	}
	if got := corpus.SourcePath(files[0], e); got != "." {
		t.Errorf("the entry's package directory resolves to %q, want the package directory", got)
	}
	if e.Failure.Kind != "leak" || e.Failure.Where == "" || e.Failure.Message == "" {
		t.Errorf("failure %+v", e.Failure)
	}
	if e.Schedule == "" || e.Length != len(strings.Split(e.Schedule, ";")) || e.Created.IsZero() || e.StdbgVersion == "" {
		t.Errorf("schedule %q, length %d, created %v, version %q", e.Schedule, e.Length, e.Created, e.StdbgVersion)
	}
	contains(t, rec.errors[0], "Path = "+e.Schedule+"\n", e.Failure.Message)
	if e.Search != (corpus.Search{Strategy: "dfs", MaxDepth: sthread.DefaultMaxDepth, Reduction: "dpor"}) {
		t.Errorf("search %+v", e.Search)
	}
	if e.Report == nil || e.Report.Kind != "leak" || e.Report.Path != e.Schedule || len(e.Report.Steps) == 0 ||
		!strings.Contains(e.Report.Replay, "STDBG_REPLAY_SCHEDULE='"+e.Schedule+"' go test -run '^TestBank$'") {
		t.Errorf("report %+v", e.Report)
	}

	// The next run replays the entry and fails without searching.
	b.runs.Store(0)
	rec = &recorder{TB: t, name: "TestBank"}
	sthread.Check(rec, b.fetch)
	if len(rec.errors) != 1 || len(rec.fatals) != 0 {
		t.Fatalf("replay: errors %q, fatals %q", rec.errors, rec.fatals)
	}
	contains(t, rec.errors[0], "the bug stored in "+files[0]+" still reproduces", "THREADS LEAKED",
		"Path = "+e.Schedule, "Replay: STDBG_REPLAY_SCHEDULE='"+e.Schedule+"'", "Executions = 1 (")
	if n := b.runs.Load(); n != 1 {
		t.Errorf("%d executions, want the replay alone", n)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("entries after the replay: %q", got)
	}

	// Fixed: the entry is reported fixed and kept, the search runs, clean.
	b.fixed = true
	b.runs.Store(0)
	rec = &recorder{TB: t, name: "TestBank"}
	sthread.Check(rec, b.fetch)
	if len(rec.errors)+len(rec.fatals) != 0 {
		t.Fatalf("fixed: errors %q, fatals %q", rec.errors, rec.fatals)
	}
	contains(t, joined(rec.logs), files[0]+" fixed")
	if n := b.runs.Load(); n < 3 {
		t.Errorf("%d executions: the search did not run", n)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("entries after the fix: %q", got)
	}
}

// TestCheckCorpusReplay covers each way a stored entry can replay.
func TestCheckCorpusReplay(t *testing.T) {
	res, err := sthread.Explore((&fetcher{}).fetch)
	if err != nil || len(res.Bugs) != 1 || res.Bugs[0].Kind != search.Leak || res.Bugs[0].Where == "" {
		t.Fatalf("exploring fetch: %v %v", res.Bugs, err)
	}
	bug := res.Bugs[0]
	stored := func() *corpus.Entry {
		return &corpus.Entry{
			Format:   corpus.Format,
			Target:   corpus.Target{Kind: "go-test", Source: "../../..", Test: "TestBank"},
			Failure:  corpus.Failure{Kind: bug.Kind.String(), Message: bug.Message, Where: bug.Where},
			Schedule: bug.Schedule,
		}
	}
	dir := filepath.Join("testdata", "stdbg", "TestBank")
	tests := []struct {
		name  string
		fixed bool
		sub   string              // subdirectory of dir to store the entry in
		edit  func(*corpus.Entry) // changes the stored entry
		raw   string              // stored as junk.json instead of an entry
		opts  []sthread.Option
		// wantErr is in the single error expected ("": no error), wantLog
		// in the logs; search says the search ran after the replay.
		wantErr, wantLog string
		search           bool
	}{
		{name: "reproduces", wantErr: "still reproduces"},
		{name: "fixed", fixed: true, wantLog: " fixed: its schedule now runs without failing", search: true},
		{name: "diverged", fixed: true, edit: func(e *corpus.Entry) { e.Schedule = "1;9" },
			wantLog: " diverged: its schedule no longer fits the function (step 2: thread 9 does not exist", search: true},
		{name: "diverged and still buggy", edit: func(e *corpus.Entry) { e.Schedule = "1;9" }, opts: []sthread.Option{sthread.NoSave()},
			wantLog: " diverged", wantErr: "sthread.Check found a bug", search: true},
		{name: "fails differently", edit: func(e *corpus.Entry) { e.Failure.Where = "elsewhere.go:1" },
			wantErr: "now fails differently (leak at "},
		{name: "corrupt json", fixed: true, raw: "{not json",
			wantLog: "corrupt corpus entry " + filepath.Join(dir, "junk.json") + " skipped: reading corpus entry", search: true},
		{name: "corrupt entry", fixed: true, raw: `{"format": 1}`, wantLog: "junk.json skipped", search: true},
		{name: "corrupt schedule", fixed: true, edit: func(e *corpus.Entry) { e.Schedule = "1;x" },
			wantLog: "corrupt.json: schedule: schedule step 2", search: true},
		{name: "another test", fixed: true, edit: func(e *corpus.Entry) { e.Target.Test = "TestOther" },
			wantLog: `skipped: it is not a bug of TestBank (target go-test "TestOther")`, search: true},
		{name: "a subtest's entry", sub: "sub", opts: []sthread.Option{sthread.NoSave()},
			wantErr: "sthread.Check found a bug", search: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inTempDir(t)
			edir := filepath.Join(dir, tt.sub)
			var path string
			if tt.raw != "" {
				path = filepath.Join(edir, "junk.json")
				if err := os.MkdirAll(edir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				e := stored()
				if tt.edit != nil {
					tt.edit(e)
				}
				if path, _, err = corpus.Save(edir, e); err != nil {
					// Save refuses a corrupt entry: write it as it is.
					b, jerr := json.MarshalIndent(e, "", "  ")
					path = filepath.Join(edir, "corrupt.json")
					if jerr != nil || os.MkdirAll(edir, 0o755) != nil || os.WriteFile(path, b, 0o644) != nil {
						t.Fatalf("writing the corrupt entry: %v", jerr)
					}
				}
			}
			b := &fetcher{fixed: tt.fixed}
			rec := &recorder{TB: t, name: "TestBank"}
			sthread.Check(rec, b.fetch, tt.opts...)
			if len(rec.fatals) != 0 {
				t.Fatalf("fatals %q", rec.fatals)
			}
			if tt.wantErr == "" && len(rec.errors) != 0 || tt.wantErr != "" && len(rec.errors) != 1 {
				t.Fatalf("errors %q, want %q", rec.errors, tt.wantErr)
			}
			if tt.wantErr != "" {
				contains(t, rec.errors[0], tt.wantErr)
				if !tt.search {
					contains(t, rec.errors[0], path, "THREADS LEAKED", "Executions = 1 (")
				}
			}
			if tt.wantLog != "" {
				contains(t, joined(rec.logs), path, tt.wantLog)
			}
			for _, l := range rec.logs {
				if strings.Contains(l, "\n") {
					t.Errorf("log %q is not one line", l)
				}
			}
			if n := b.runs.Load(); tt.search != (n > 1) {
				t.Errorf("%d executions, want search %v", n, tt.search)
			}
		})
	}
}

// TestCheckSaving covers where bugs are saved and the ways to turn saving
// off.
func TestCheckSaving(t *testing.T) {
	tests := []struct {
		name    string
		test    string // the test's name
		env     string // STDBG_NO_SAVE, if not empty
		opts    []sthread.Option
		wantDir string // where the entry is saved ("": nowhere)
		source  string // the package directory from the entry
	}{
		{name: "test", test: "TestBank", wantDir: "testdata/stdbg/TestBank", source: "../../.."},
		{name: "subtest", test: "TestBank/two accounts", wantDir: "testdata/stdbg/TestBank/two_accounts", source: "../../../.."},
		{name: "odd name", test: "TestBank/../a:b", wantDir: "testdata/stdbg/TestBank/_/a_b", source: "../../../../.."},
		{name: "STDBG_NO_SAVE=0", test: "TestBank", env: "0", wantDir: "testdata/stdbg/TestBank", source: "../../.."},
		{name: "NoSave", test: "TestBank", opts: []sthread.Option{sthread.NoSave()}},
		{name: "STDBG_NO_SAVE=1", test: "TestBank", env: "1"},
		{name: "STDBG_NO_SAVE=true", test: "TestBank", env: "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := inTempDir(t)
			if tt.env != "" {
				t.Setenv(sthread.NoSaveEnv, tt.env)
			}
			rec := &recorder{TB: t, name: tt.test}
			sthread.Check(rec, (&fetcher{}).fetch, tt.opts...)
			if len(rec.errors) != 1 {
				t.Fatalf("errors %q, fatals %q", rec.errors, rec.fatals)
			}
			if tt.wantDir == "" {
				if strings.Contains(rec.errors[0], "Saved") {
					t.Errorf("the report claims a save:\n%s", rec.errors[0])
				}
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("written: %v", left)
				}
				return
			}
			files := entries(t, filepath.FromSlash(tt.wantDir))
			if len(files) != 1 {
				t.Fatalf("entries in %s: %q", tt.wantDir, files)
			}
			contains(t, rec.errors[0], "Saved "+files[0]+"\n")
			e, err := corpus.Load(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if e.Target.Test != tt.test || e.Target.Source != filepath.FromSlash(tt.source) {
				t.Errorf("target %+v", e.Target)
			}
		})
	}
}
