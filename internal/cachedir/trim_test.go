package cachedir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestTrim makes a cache with entries used at different times and checks
// which a trim removes: those unused for longer than Unused, in every
// directory it looks after, and nothing else of the cache.
func TestTrim(t *testing.T) {
	base := t.TempDir()
	now := time.Now()
	old := now.Add(-Unused - time.Hour)
	recent := now.Add(-Unused + time.Hour)
	entries := []struct {
		path string
		used time.Time
		kept bool
	}{
		{"targets/0123abcd", old, false},
		{"targets/go-4567ef01", recent, true},
		{"goinstr/work-89ab", old, false},
		{"gosrc/c0ffee", now, true},
		{"dwarf/feed", old, false},
		{"lib-0011", old, false},
		{"lib-2233", recent, true},
		{"cpus", old, true},   // not an entry Trim looks after
		{"oracle", old, true}, // nor this
		{"targets/.trash-dead", now, false},
	}
	for _, e := range entries {
		p := filepath.Join(base, e.path)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, e.used, e.used); err != nil {
			t.Fatal(err)
		}
	}
	n := trimAt(base, now.Add(-Unused))
	if n != 4 {
		t.Errorf("trimAt took out %d entries, want 4", n)
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(base, e.path)); e.kept != (err == nil) {
			t.Errorf("%s: kept=%v, want %v", e.path, err == nil, e.kept)
		}
	}
	left, _ := filepath.Glob(filepath.Join(base, "*", trashPrefix+"*"))
	more, _ := filepath.Glob(filepath.Join(base, trashPrefix+"*"))
	if left = slices.Concat(left, more); len(left) > 0 {
		t.Errorf("trash left: %v", left)
	}
}

// TestTrimOnceADay checks that Trim looks at the cache only when its last
// look is a day old, and that a new cache is not trimmed at its first use.
func TestTrimOnceADay(t *testing.T) {
	base := t.TempDir()
	entry := filepath.Join(base, "targets", "old")
	if err := os.MkdirAll(entry, 0o755); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-Unused - time.Hour)
	os.Chtimes(entry, long, long)
	if n := Trim(base); n != 0 {
		t.Fatalf("the first Trim of a cache took out %d entries", n)
	}
	if n := Trim(base); n != 0 {
		t.Fatalf("a second Trim within the day took out %d entries", n)
	}
	day := time.Now().Add(-trimEvery - time.Minute)
	os.Chtimes(filepath.Join(base, stampName), day, day)
	if n := Trim(base); n != 1 {
		t.Fatalf("Trim a day later took out %d entries, want 1", n)
	}
}

// TestUsed checks that Used keeps an entry from being trimmed.
func TestUsed(t *testing.T) {
	base := t.TempDir()
	entry := filepath.Join(base, "targets", "kept")
	if err := os.MkdirAll(entry, 0o755); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-Unused - time.Hour)
	os.Chtimes(entry, long, long)
	Used(entry)
	if n := trimAt(base, time.Now().Add(-Unused)); n != 0 {
		t.Fatalf("an entry just used was trimmed")
	}
	if fi, err := os.Stat(entry); err != nil || time.Since(fi.ModTime()) > time.Minute {
		t.Fatalf("Used did not mark %s: %v", entry, err)
	}
}
