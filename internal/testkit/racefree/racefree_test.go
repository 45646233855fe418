package racefree_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/racefree"
)

// Every file parses, each test draws distinct idioms, and over a few
// seeds every idiom is drawn. (frontend/cli/e2e/gotest's
// TestCorrectGoCorpus builds and runs them, under go test -race and stdbg
// test.)
func TestFile(t *testing.T) {
	seen := map[string]bool{}
	for s := uint64(1); s <= 30; s++ {
		src := racefree.File("gen", []uint64{s}, 3)
		if _, err := parser.ParseFile(token.NewFileSet(), "gen_test.go", src, 0); err != nil {
			t.Fatalf("seed %d: %v\n%s", s, err, src)
		}
		head, _, _ := strings.Cut(src[strings.Index(src, "// TestGen"):], "\n")
		_, list, _ := strings.Cut(head, "): ")
		names := strings.Split(strings.TrimSuffix(list, "."), ", ")
		if len(names) != 3 {
			t.Errorf("seed %d: idioms %q", s, names)
		}
		for _, n := range names {
			if seen[n] && strings.Count(list, n) > 1 {
				t.Errorf("seed %d: %s twice", s, n)
			}
			seen[n] = true
		}
	}
	for _, n := range racefree.Idioms() {
		if !seen[n] {
			t.Errorf("idiom %s never drawn in 30 seeds", n)
		}
	}
	if a, b := racefree.File("gen", []uint64{7}, 3), racefree.File("gen", []uint64{7}, 3); a != b {
		t.Error("one seed gave two files")
	}
}

// A racy test is its seed's correct test with the race planted among its
// idioms.
func TestRacy(t *testing.T) {
	for s := uint64(1); s <= 10; s++ {
		src := racefree.File("gen", []uint64{s}, 3, s)
		if _, err := parser.ParseFile(token.NewFileSet(), "gen_test.go", src, 0); err != nil {
			t.Fatalf("seed %d: %v\n%s", s, err, src)
		}
		correct, _ := racefree.Test("T", s, 3)
		racy, _ := racefree.Racy("T", s, 3)
		_, names, _ := strings.Cut(strings.SplitN(correct, "\n", 2)[0], "): ")
		_, racyNames, _ := strings.Cut(strings.SplitN(racy, "\n", 2)[0], "): ")
		if strings.Count(racyNames, "lost update (a race)") != 1 || strings.Count(names, "lost update") != 0 ||
			len(strings.Split(racyNames, ", ")) != 4 || !strings.Contains(src, "func TestRace"+fmt.Sprint(s)+"(") {
			t.Errorf("seed %d: correct %q, racy %q", s, names, racyNames)
		}
	}
}

// A test of two idioms: its first line names them.
func ExampleTest() {
	code, imports := racefree.Test("TestGen1", 1, 2)
	first, _, _ := strings.Cut(code, "\n")
	fmt.Println(first)
	fmt.Println(imports)
	// Output:
	// // TestGen1 (seed 1): random, syncmap.
	// [sync math/rand randv2 "math/rand/v2" sync]
}

// Every bug plants into every seed's test, once, among the seed's own
// idioms; Reduced keeps the idioms asked for, as they are in the whole
// test, and the bug.
func TestPlanted(t *testing.T) {
	for b, bug := range racefree.Bugs() {
		for s := uint64(1); s <= 5; s++ {
			code, imps := racefree.Planted("TestP", s, 3, b)
			src := racefree.Join("gen", []string{code}, imps)
			if _, err := parser.ParseFile(token.NewFileSet(), "gen_test.go", src, 0); err != nil {
				t.Fatalf("%s, seed %d: %v\n%s", bug.Name, s, err, src)
			}
			correct, _ := racefree.Test("TestP", s, 3)
			names := idiomNames(correct)
			planted := idiomNames(code)
			if len(planted) != 4 || !slices.Contains(planted, bug.Name) || !slices.Equal(slices.DeleteFunc(slices.Clone(planted), func(n string) bool { return n == bug.Name }), names) {
				t.Errorf("%s, seed %d: idioms %q, want %q and the bug", bug.Name, s, planted, names)
			}
			reduced, _ := racefree.Reduced("TestP", s, 3, b, []int{2})
			if got := idiomNames(reduced); len(got) != 2 || !slices.Contains(got, bug.Name) || !slices.Contains(got, names[2]) {
				t.Errorf("%s, seed %d: reduced to idiom 2: %q", bug.Name, s, got)
			}
			if !strings.Contains(code, idiomBody(reduced)) {
				t.Errorf("%s, seed %d: idiom 2 differs once reduced:\n%s\nin\n%s", bug.Name, s, reduced, code)
			}
		}
	}
	if none, _ := racefree.Reduced("TestP", 1, 3, -1, nil); len(idiomNames(none)) != 0 {
		t.Errorf("reduced to nothing: %s", none)
	}
}

// idiomNames are the idioms a test's first line names.
func idiomNames(code string) []string {
	first, _, _ := strings.Cut(code, "\n")
	_, list, _ := strings.Cut(first, "): ")
	list = strings.TrimSuffix(list, ".")
	if list == "" {
		return nil
	}
	return strings.Split(list, ", ")
}

// idiomBody is the first lines of a test's body, to find in a test that
// holds the same idioms and more.
func idiomBody(code string) string {
	lines := strings.Split(code, "\n")
	return strings.Join(lines[2:min(len(lines), 6)], "\n")
}
