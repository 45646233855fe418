package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func entry(kind, where, sched string) *Entry {
	return &Entry{
		Format:   Format,
		Target:   Target{Kind: "c-source", Source: "prog.c", Binary: "/tmp/prog"},
		Failure:  Failure{Kind: kind, Message: "m", Where: where},
		Schedule: sched,
	}
}

func TestSaveDeduplicates(t *testing.T) {
	dir := t.TempDir()
	p1, existed, err := Save(dir, entry("deadlock", "a.c:1", "1;1;2"))
	if err != nil || existed {
		t.Fatalf("first save: %v %v", existed, err)
	}
	p2, existed, err := Save(dir, entry("deadlock", "a.c:1", "1;1;2"))
	if err != nil || !existed || p1 != p2 {
		t.Fatalf("second save of the same bug: %q %v %v", p2, existed, err)
	}
	for _, e := range []*Entry{entry("deadlock", "a.c:1", "1;2;2"), entry("deadlock", "a.c:9", "1;1;2"), entry("crash", "a.c:1", "1;1;2")} {
		if _, existed, err := Save(dir, e); err != nil || existed {
			t.Fatalf("a different bug was taken for a stored one: %+v %v", e.Failure, err)
		}
	}
	items, err := List(dir)
	if err != nil || len(items) != 4 {
		t.Fatalf("List: %d items, %v", len(items), err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				// Every writer also stores bug 0, concurrently.
				for _, n := range []int{w*each + i, 0} {
					if _, _, err := Save(dir, entry("deadlock", fmt.Sprintf("x.c:%d", n), "1;2")); err != nil {
						errs <- err
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	items, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != writers*each {
		t.Fatalf("%d entries, want %d", len(items), writers*each)
	}
	for _, it := range items {
		if it.Err != nil {
			t.Errorf("%s: %v", it.Path, it.Err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestCorruptEntriesAreReportedNotFatal(t *testing.T) {
	dir := t.TempDir()
	Save(dir, entry("deadlock", "a.c:1", "1;1;2"))
	os.WriteFile(filepath.Join(dir, "junk.json"), []byte("{not json"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.json"), []byte("{}"), 0o644)
	items, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var good, bad int
	for _, it := range items {
		if it.Err != nil {
			bad++
			if !strings.Contains(it.Err.Error(), it.Path) {
				t.Errorf("error %q does not name the file", it.Err)
			}
		} else {
			good++
		}
	}
	if good != 1 || bad != 2 {
		t.Fatalf("good %d bad %d", good, bad)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Entry)
		want string
	}{
		{"ok", func(*Entry) {}, ""},
		{"format", func(e *Entry) { e.Format = 99 }, "format 99"},
		{"target kind", func(e *Entry) { e.Target.Kind = "java" }, "unknown target kind"},
		{"no source", func(e *Entry) { e.Target.Source = "" }, "no source"},
		{"no schedule", func(e *Entry) { e.Schedule = "" }, "no schedule"},
		{"no kind", func(e *Entry) { e.Failure.Kind = "" }, "no failure kind"},
		{"go test", func(e *Entry) { e.Target = Target{Kind: "go-test", Source: "../../..", Test: "TestX/sub"} }, ""},
		{"go test without package", func(e *Entry) { e.Target = Target{Kind: "go-test", Test: "TestX"} }, "no package directory"},
		{"go test without name", func(e *Entry) { e.Target = Target{Kind: "go-test", Source: "../../.."} }, "no test name"},
	}
	for _, tt := range tests {
		e := entry("deadlock", "a.c:1", "1")
		tt.edit(e)
		err := e.Validate()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestDefaultDirAndPaths(t *testing.T) {
	if got := DefaultDir("examples/c/deadly-embrace.c"); got != filepath.Join("examples", "c", "testdata", "stdbg", "deadly-embrace") {
		t.Errorf("DefaultDir = %q", got)
	}
	dir := t.TempDir()
	corpusDir := filepath.Join(dir, "testdata", "stdbg", "p")
	src := filepath.Join(dir, "p.c")
	rel := RelSource(corpusDir, src)
	if rel != filepath.Join("..", "..", "..", "p.c") {
		t.Errorf("RelSource = %q", rel)
	}
	e := entry("deadlock", "w", "1")
	e.Target.Source = rel
	if got := SourcePath(filepath.Join(corpusDir, "x.json"), e); got != src {
		t.Errorf("SourcePath = %q, want %q", got, src)
	}
}
