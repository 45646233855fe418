package ltl

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/mutate"
)

var formulaSeeds = []string{
	"G(want1 -> F in1)", "G F progress", "!(a && b) U (c || X d)", "G(r -> (s R t))",
	"true", "false", "((a))", "a -> b -> c", "F G !x",
}

// checkFormula parses text: it must not panic, and a formula it accepts
// prints as text that parses to the same formula.
func checkFormula(t *testing.T, text string) {
	f, err := Parse(text)
	if err != nil {
		return
	}
	g, err := Parse(f.String())
	if err != nil || g.String() != f.String() {
		t.Fatalf("%q parses to %q, which parses to %v (%v)", text, f.String(), g, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range formulaSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkFormula(t, text) })
}

// TestParseMutated runs FuzzParse's check on 20000 mutated formulas, and
// on formulas nested far deeper than any user writes: a parse error, never
// a crash.
func TestParseMutated(t *testing.T) {
	seeds := make([][]byte, len(formulaSeeds))
	for i, s := range formulaSeeds {
		seeds[i] = []byte(s)
	}
	mutate.Inputs(seeds, 20000, func(b []byte) { checkFormula(t, string(b)) })
	for _, deep := range []string{strings.Repeat("(", 100000) + "a" + strings.Repeat(")", 100000),
		strings.Repeat("!", 100000) + "a", strings.Repeat("a U ", 100000) + "b"} {
		if _, err := Parse(deep); err == nil || !strings.Contains(err.Error(), "nests more than") {
			t.Errorf("a formula nested 100000 deep: %v", err)
		}
	}
}
