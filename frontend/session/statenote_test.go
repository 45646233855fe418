package session

import (
	"strings"
	"testing"
)

func TestStateNote(t *testing.T) {
	for _, tt := range []struct {
		vars []string
		want string
	}{
		{[]string{"hits (a.go:3)"}, "package-level variables: hits (a.go:3)"},
		{[]string{"a (x.go:1)", "b (x.go:2)", "c (x.go:3)", "d (x.go:4)", "e (x.go:5)", "f (x.go:6)", "g (x.go:7)"},
			"package-level variables: a (x.go:1), b (x.go:2), c (x.go:3), d (x.go:4), e (x.go:5) and 2 more"},
	} {
		got := StateNote(tt.vars)
		if !strings.HasSuffix(got, tt.want) || !strings.HasPrefix(got, "each execution runs in a fresh process") {
			t.Errorf("StateNote(%q) = %q", tt.vars, got)
		}
	}
}
