package ctarget

import (
	"fmt"
	"strings"
	"testing"
)

// libstdbg.c is one translation unit made of the parts under rt/: each
// part is included exactly once (a part left out would leave the library
// without what it owns, a part included twice would not compile), and
// each says what it owns at its top.
func TestLibraryPartsIncludedOnce(t *testing.T) {
	main, err := csrc.ReadFile("csrc/libstdbg.c")
	if err != nil {
		t.Fatal(err)
	}
	parts := 0
	for _, n := range sources() {
		if !strings.HasPrefix(n, "rt/") {
			continue
		}
		parts++
		if c := strings.Count(string(main), fmt.Sprintf("#include %q\n", n)); c != 1 {
			t.Errorf("libstdbg.c includes %s %d times, want once", n, c)
		}
		b, _ := csrc.ReadFile("csrc/" + n)
		if !strings.HasPrefix(string(b), "/* "+n+": part of libstdbg") || !strings.Contains(string(b), " * Owns ") {
			t.Errorf("%s does not start by saying what it owns", n)
		}
	}
	if got := strings.Count(string(main), "#include \"rt/"); got != parts {
		t.Errorf("libstdbg.c includes %d parts, %d are embedded", got, parts)
	}
	if parts < 10 {
		t.Errorf("%d parts: the library is not split by concern", parts)
	}
}
