package corpus

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestReplace: a bug's entry as found gives way to its minimisation's,
// leaving one entry for the bug in every case.
func TestReplace(t *testing.T) {
	found := entry("deadlock", "m.c:9", "1;2;1;2")
	tests := []struct {
		name    string
		before  []*Entry // besides the entry as found
		replace *Entry
		existed bool
	}{
		{name: "a shorter schedule", replace: entry("deadlock", "m.c:9", "1;1;2")},
		{name: "the same schedule, now with its minimisation", replace: func() *Entry {
			e := entry("deadlock", "m.c:9", "1;2;1;2")
			e.Original = "1;2;1;2;1"
			return e
		}()},
		{name: "a minimised schedule already in the corpus", before: []*Entry{entry("deadlock", "m.c:9", "1;1;2")},
			replace: entry("deadlock", "m.c:9", "1;1;2"), existed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			old, _, err := Save(dir, entry("deadlock", "m.c:9", found.Schedule))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.before {
				if _, _, err := Save(dir, e); err != nil {
					t.Fatal(err)
				}
			}
			path, existed, err := Replace(dir, old, tc.replace)
			if err != nil {
				t.Fatal(err)
			}
			if existed != tc.existed || path != filepath.Join(dir, tc.replace.FileName()) {
				t.Errorf("Replace = %s, existed %v; want %s, existed %v", path, existed, tc.replace.FileName(), tc.existed)
			}
			names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if !slices.Equal(names, []string{path}) {
				t.Fatalf("the corpus holds %q, want only %s", names, path)
			}
			got, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Schedule != tc.replace.Schedule || got.Original != tc.replace.Original {
				t.Errorf("stored %+v, want %+v", got, tc.replace)
			}
		})
	}
}
