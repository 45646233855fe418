package targettmp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	tests := []struct {
		name string
		env  []string
	}{
		{"no TMPDIR", []string{"A=1"}},
		{"TMPDIR replaced", []string{"TMPDIR=/elsewhere", "A=1", "TMPDIR=/again"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := New(false)
			defer d.Remove()
			if d.Path() == "" {
				t.Fatal("no directory made")
			}
			if !strings.HasPrefix(d.Path(), os.TempDir()) {
				t.Errorf("%s is not under %s", d.Path(), os.TempDir())
			}
			env := d.Env(tc.env)
			var tmp []string
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
					tmp = append(tmp, v)
				}
			}
			if len(tmp) != 1 || tmp[0] != d.Path() {
				t.Errorf("TMPDIR in %q, want only %s", env, d.Path())
			}
			if tc.env[0] != "A=1" && tc.env[0] != "TMPDIR=/elsewhere" {
				t.Errorf("the caller's env was modified: %q", tc.env)
			}
		})
	}
}

// TestNothingLeft runs a process that leaves a directory and a file in its
// temporary directory, as a test killed before its cleanups does, and checks
// that they go with the process's directory.
func TestNothingLeft(t *testing.T) {
	parent := t.TempDir()
	t.Setenv("TMPDIR", parent)
	for _, shared := range []bool{false, true} {
		d := New(shared)
		cmd := exec.Command("sh", "-c", `d=$(mktemp -d) && echo x > "$d/f" && mktemp >/dev/null`)
		cmd.Env = d.Env(os.Environ())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		left, _ := filepath.Glob(filepath.Join(d.Path(), "*"))
		if len(left) != 2 {
			t.Fatalf("the process made %q in %s, want a directory and a file", left, d.Path())
		}
		if fi, err := os.Stat(d.Path()); err != nil || (shared && fi.Mode()&os.ModeSticky == 0) {
			t.Errorf("shared=%v: mode %v, %v", shared, fi.Mode(), err)
		}
		d.Remove()
		d.Remove()
		if all, _ := os.ReadDir(parent); len(all) != 0 {
			t.Errorf("left in the temporary directory: %v", all)
		}
	}
}
