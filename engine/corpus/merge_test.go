package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMergeShards(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "prog.c")
	if err := os.WriteFile(src, []byte("int main(void){return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shard := func(name string, entries ...*Entry) string {
		dir := filepath.Join(base, name, "testdata", "stdbg", "prog")
		for _, e := range entries {
			e.Target.Source = RelSource(dir, src)
			if _, _, err := Save(dir, e); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(base, name)
	}
	a := shard("shard0", entry("deadlock", "a.c:1", "1;2"), entry("assertion", "a.c:9", "1;1;2"))
	b := shard("shard1", entry("deadlock", "a.c:1", "1;2"), entry("leak", "a.c:5", "2;1"))
	if err := os.WriteFile(filepath.Join(b, "testdata", "stdbg", "prog", "broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "merged")
	res, err := Merge(out, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 3 || res.Present != 1 || len(res.Skipped) != 1 {
		t.Fatalf("added %v, present %d, skipped %v", res.Added, res.Present, res.Skipped)
	}
	items, err := List(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Err != nil {
			t.Fatalf("%s: %v", it.Path, it.Err)
		}
		if filepath.Dir(it.Path) != filepath.Join(out, "testdata", "stdbg", "prog") {
			t.Errorf("entry at %s: the layout below the shard root is not kept", it.Path)
		}
		if got := SourcePath(it.Path, it.Entry); filepath.Clean(got) != src {
			t.Errorf("source %s resolves to %s, want %s", it.Entry.Target.Source, got, src)
		}
	}
	// Merging again changes nothing.
	again, err := Merge(out, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Added) != 0 || again.Present != 4 {
		t.Fatalf("second merge: added %v, present %d", again.Added, again.Present)
	}
}
