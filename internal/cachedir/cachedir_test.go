package cachedir_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/internal/cachedir"
)

func TestDir(t *testing.T) {
	user, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory here:", err)
	}
	for _, tc := range []struct {
		env, want string
	}{
		{"/somewhere/else", "/somewhere/else"},
		{"", filepath.Join(user, "stdbg")},
	} {
		t.Setenv("STDBG_CACHE", tc.env)
		got, err := cachedir.Dir()
		if err != nil || got != tc.want {
			t.Errorf("STDBG_CACHE=%q: Dir() = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}
