package goinstr

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPackageState(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		tests bool
		want  []string
	}{
		{"no variables", map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, false, nil},
		{"a counter and an error", map[string]string{"main.go": "package main\n\nimport \"errors\"\n\nvar (\n\tcount int\n\tErrGone = errors.New(\"gone\")\n\t_ = count\n)\n\nfunc main() { count++ }\n"},
			false, []string{"count (main.go:6)"}},
		{"a variable in another package of the module", map[string]string{
			"main.go":     "package main\n\nimport \"example.com/m/cache\"\n\nfunc main() { cache.Put() }\n",
			"cache/c.go":  "package cache\n\nvar entries = map[string]int{}\n\nfunc Put() { entries[\"a\"]++ }\n",
			"unused/u.go": "package unused\n\nvar ignored int\n",
		}, false, []string{"entries (c.go:3)"}},
		{"test files only with tests", map[string]string{
			"main.go":      "package main\n\nfunc main() {}\n",
			"main_test.go": "package main\n\nimport \"testing\"\n\nvar seen int\n\nfunc TestX(t *testing.T) { seen++ }\n",
		}, true, []string{"seen (main_test.go:5)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
			for name, text := range tt.files {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			vars, err := PackageState(dir, tt.tests)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vars {
				got = append(got, v.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("PackageState = %q, want %q", got, tt.want)
			}
		})
	}
	// In stdbg's own module, an example's state is its own: not that of
	// the runtime it links, nor that of the tests of the packages it
	// imports (which its test binary does not contain).
	got, err := PackageState(filepath.Join("..", "..", "examples", "go", "dpor"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("PackageState(examples/go/dpor) = %q, want none", got)
	}
	if _, err := PackageState(t.TempDir(), false); err == nil {
		t.Error("a directory without a package: no error")
	}
}
