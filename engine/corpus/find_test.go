package corpus

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Corpora finds every corpus below a directory as ./... finds packages:
// next to the programs and in every package, not in hidden, _ or vendor
// directories nor in a testdata directory's fixtures; inside a corpus,
// that corpus.
func TestCorpora(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{
		"testdata/stdbg/prog",
		"pkg/testdata/stdbg/TestX",
		"pkg/sub/testdata/stdbg/TestY",
		"pkg/testdata/fixture/testdata/stdbg/TestZ", // a fixture's, inside testdata
		".git/testdata/stdbg",
		"_old/testdata/stdbg",
		"vendor/example.com/m/testdata/stdbg",
		"other/testdata/inputs",
	} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	for _, tt := range []struct {
		root string
		want []string
	}{
		{".", []string{"pkg/sub/testdata/stdbg", "pkg/testdata/stdbg", "testdata/stdbg"}},
		{"pkg", []string{"pkg/sub/testdata/stdbg", "pkg/testdata/stdbg"}},
		{"other", nil},
		{"pkg/testdata/stdbg/TestX", []string{"pkg/testdata/stdbg/TestX"}},
		{"testdata/stdbg", []string{"testdata/stdbg"}},
	} {
		got, err := Corpora(tt.root)
		if err != nil {
			t.Fatalf("Corpora(%s): %v", tt.root, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Corpora(%s) = %q, want %q", tt.root, got, tt.want)
		}
	}
	if _, err := Corpora("nothere"); err == nil {
		t.Errorf("Corpora of a directory that does not exist: no error")
	}
}
