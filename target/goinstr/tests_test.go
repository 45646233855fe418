package goinstr

import "testing"

// Testing one package of a module loads the others it uses, and go list
// names each of them: their own tests are not in the build, and are not
// instrumented (nor warned of).
func TestOtherTests(t *testing.T) {
	const root = "example.com/m/p"
	for _, tt := range []struct {
		id    string
		other bool
	}{
		{"example.com/m/p", false},
		{"example.com/m/p [example.com/m/p.test]", false},
		{"example.com/m/p_test [example.com/m/p.test]", false},
		{"example.com/m/p.test", false},
		{"example.com/m/q", false},
		{"example.com/m/q [example.com/m/p.test]", false}, // q recompiled for p's test
		{"example.com/m/q [example.com/m/q.test]", true},
		{"example.com/m/q_test [example.com/m/q.test]", true},
		{"example.com/m/q.test", true},
	} {
		if got := otherTests(tt.id, root); got != tt.other {
			t.Errorf("otherTests(%q) = %v, want %v", tt.id, got, tt.other)
		}
	}
}
