package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// TestMain gives the package's tests a stdbg cache (testcache: the test
// run's shared one, or one of their own); the
// end-to-end tests of the commands are in the packages under e2e/, which
// share this setting up through internal/testkit/clirun.
func TestMain(m *testing.M) {
	remove, err := testcache.Setup()
	if err != nil {
		panic(err)
	}
	// Tests never write corpora into the repository; those that test the
	// corpus pass --no-save=false with their own directories.
	os.Setenv("STDBG_NO_SAVE", "1")
	// The tests resolve the same example packages again and again: each
	// is built once while its files stay the same.
	session.ShareBuilds(true)
	for _, k := range []string{"STDBG_MAX_DEPTH", "STDBG_ALL", "STDBG_JSON", "STDBG_TRANSITION_TIMEOUT"} {
		os.Unsetenv(k)
	}
	// The plain progress lines of long searches would mix with the stderr
	// tests check; TestProgressWithoutTerminal asks for them.
	ProgressEvery = time.Hour
	code := m.Run()
	remove()
	os.Exit(code)
}

func example(name string) string {
	return filepath.Join("..", "..", "examples", "c", name)
}

// stdbg runs the command line in-process and returns stdout, stderr and
// the exit status.
func stdbg(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(args, nil, &out, &errb)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "stdbg.yaml", "max-depth: 7\nall: true\n")
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(sub); err != nil {
		t.Fatal(err)
	}
	out, _, code := stdbg(t, "config")
	if code != 0 || !strings.Contains(out, "max-depth") || !strings.Contains(out, "= 7") || !strings.Contains(out, "file "+filepath.Join(dir, "stdbg.yaml")) {
		t.Fatalf("file not used:\n%s", out)
	}
	t.Setenv("STDBG_MAX_DEPTH", "9")
	out, _, _ = stdbg(t, "config")
	if !strings.Contains(out, "= 9") || !strings.Contains(out, "environment STDBG_MAX_DEPTH") {
		t.Fatalf("environment does not beat the file:\n%s", out)
	}
	out, _, _ = stdbg(t, "config", "--max-depth", "11")
	if !strings.Contains(out, "= 11") || !strings.Contains(out, "flag --max-depth") {
		t.Fatalf("flag does not beat the environment:\n%s", out)
	}
	out, _, _ = stdbg(t, "config", "--cfg=model-check/max-depth:12")
	if !strings.Contains(out, "= 12") {
		t.Fatalf("--cfg not applied:\n%s", out)
	}
	writeFile(t, dir, "stdbg.yaml", "max-dept: 7\n")
	_, errs, code := stdbg(t, "config")
	if code != exitUsage || !strings.Contains(errs, `unknown setting "max-dept"`) {
		t.Fatalf("typo in file accepted: %d %q", code, errs)
	}
}

func TestVersionAndConfigJSON(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errs, code := stdbg(t, args...)
		if code != exitClean || out != "stdbg "+version+"\n" {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errs)
		}
	}
	t.Setenv("STDBG_MAX_DEPTH", "9")
	out, errs, code := stdbg(t, "config", "--json")
	var doc struct {
		ConfigFile string `json:"config_file"`
		Settings   map[string]struct {
			Value  any    `json:"value"`
			Source string `json:"source"`
		} `json:"settings"`
	}
	if code != exitClean || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("config --json: exit %d, not JSON:\n%s\n%s", code, out, errs)
	}
	if d := doc.Settings["max-depth"]; fmt.Sprint(d.Value) != "9" || d.Source != "environment STDBG_MAX_DEPTH" {
		t.Errorf("max-depth %+v", d)
	}
	if len(doc.Settings) != len(knownKeys()) {
		t.Errorf("%d settings, want %d", len(doc.Settings), len(knownKeys()))
	}
}

func TestTranslateCfg(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want []string }{
		{[]string{"find", "--cfg=model-check/max-depth:10", "x"}, []string{"find", "--max-depth=10", "x"}},
		{[]string{"find", "--cfg", "model-check/reduction:none"}, []string{"find", "--reduction=none"}},
		{[]string{"find", "x", "--", "--cfg=a/b:c"}, []string{"find", "x", "--", "--cfg=a/b:c"}},
		{[]string{"--cfg=bad"}, []string{"--cfg-invalid=bad"}},
	}
	for _, tt := range tests {
		got := translateCfg(tt.in)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("translateCfg(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
