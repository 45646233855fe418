package configload

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

type config struct {
	Depth   int           `cfg:"max-depth"`
	All     bool          `cfg:"all"`
	Timeout time.Duration `cfg:"timeout"`
	Name    string        `cfg:"name"`
	Big     int64         `cfg:"big"`
	Other   string
}

var defaults = map[string]any{"max-depth": 100, "all": false, "timeout": 5 * time.Second, "name": "x", "big": int64(1)}

// TestPrecedence checks that a flag the user set beats the environment,
// which beats the file, which beats the default; and that a flag left
// alone or an empty variable counts for nothing.
func TestPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("max-depth: 7\nALL: true\ntimeout: 2s\nname: 12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   map[string]string
		flags []string
		file  bool
		want  config
	}{
		{"defaults", nil, nil, false, config{Depth: 100, Timeout: 5 * time.Second, Name: "x", Big: 1}},
		{"file", nil, nil, true, config{Depth: 7, All: true, Timeout: 2 * time.Second, Name: "12", Big: 1}},
		{"environment over file", map[string]string{"T_MAX_DEPTH": "9", "T_ALL": "false", "T_BIG": "0x10"}, nil, true,
			config{Depth: 9, Timeout: 2 * time.Second, Name: "12", Big: 16}},
		{"empty variable", map[string]string{"T_MAX_DEPTH": ""}, nil, true, config{Depth: 7, All: true, Timeout: 2 * time.Second, Name: "12", Big: 1}},
		{"flag over environment", map[string]string{"T_MAX_DEPTH": "9"}, []string{"--max-depth=3", "--timeout=1m"}, true,
			config{Depth: 3, All: true, Timeout: time.Minute, Name: "12", Big: 1}},
		{"flag left alone", map[string]string{"T_NAME": "env"}, []string{"--all"}, false, config{Depth: 100, All: true, Timeout: 5 * time.Second, Name: "env", Big: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.Int("max-depth", 100, "")
			fs.Bool("all", false, "")
			fs.Duration("timeout", 5*time.Second, "")
			fs.String("name", "x", "")
			if err := fs.Parse(tt.flags); err != nil {
				t.Fatal(err)
			}
			v := New(defaults, "T")
			fs.VisitAll(v.BindFlag)
			if tt.file {
				if err := v.ReadFile(file); err != nil {
					t.Fatal(err)
				}
			}
			var got config
			if err := v.Decode(&got, "cfg"); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestBadValues checks that a value that is not of its setting's type is
// an error naming the setting and the value, wherever it comes from.
func TestBadValues(t *testing.T) {
	tests := []struct {
		name, env, yaml, key string
	}{
		{"text for a number", "T_MAX_DEPTH=deep", "", "max-depth"},
		{"fraction for a number", "", "max-depth: 1.5", "max-depth"},
		{"text for a boolean", "T_ALL=maybe", "", "all"},
		{"text for a duration", "T_TIMEOUT=soon", "", "timeout"},
		{"list for a string", "", "name: [a, b]", "name"},
		{"number out of range", "T_MAX_DEPTH=99999999999999999999", "", "max-depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := New(defaults, "T")
			if tt.env != "" {
				k, val, _ := cut(tt.env)
				t.Setenv(k, val)
			}
			if tt.yaml != "" {
				file := filepath.Join(t.TempDir(), "c.yaml")
				if err := os.WriteFile(file, []byte(tt.yaml+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := v.ReadFile(file); err != nil {
					t.Fatal(err)
				}
			}
			var got config
			err := v.Decode(&got, "cfg")
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Name != tt.key {
				t.Errorf("error %v, want a ValueError of %s", err, tt.key)
			}
		})
	}
}

func cut(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestFileKeys checks what the file gives, names in lower case, and that
// a file that is not a mapping is refused.
func TestFileKeys(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("Max-Depth: 3\nbogus: 1\n"), 0o644)
	v := New(defaults, "T")
	if err := v.ReadFile(good); err != nil {
		t.Fatal(err)
	}
	if keys := v.FileKeys(); len(keys) != 2 || keys[0] != "bogus" || keys[1] != "max-depth" {
		t.Errorf("keys %q, want bogus and max-depth", keys)
	}
	if !v.InFile("max-depth") || v.InFile("all") {
		t.Error("InFile is wrong")
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("- a\n- b\n"), 0o644)
	if err := New(defaults, "T").ReadFile(bad); err == nil {
		t.Error("a list was read as settings")
	}
	if err := New(defaults, "T").ReadFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing file was read")
	}
}
