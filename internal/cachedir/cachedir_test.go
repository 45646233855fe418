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

// TestUsable checks that Usable creates the cache directory, and fails
// where it cannot be found or created.
func TestUsable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "a", "b")
	for _, tc := range []struct {
		name, cache, home string
		ok                bool
	}{
		{"missing, created", fresh, "/", true},
		{"under a file", filepath.Join(file, "c"), "/", false},
		{"no STDBG_CACHE and no home", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("STDBG_CACHE", tc.cache)
			t.Setenv("HOME", tc.home)
			t.Setenv("XDG_CACHE_HOME", "")
			got, err := cachedir.Usable()
			if (err == nil) != tc.ok {
				t.Fatalf("Usable() = %q, %v; want ok=%v", got, err, tc.ok)
			}
			if !tc.ok {
				return
			}
			if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
				t.Errorf("Usable() = %q, not a directory: %v", got, err)
			}
			if ents, _ := os.ReadDir(got); len(ents) != 0 {
				t.Errorf("Usable() left %v in %s", ents, got)
			}
		})
	}
}
