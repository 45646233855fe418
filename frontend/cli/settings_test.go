package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
)

// Every key of the settings table is a field of Settings and every field
// a key: a setting added to one and not the other would be read as its
// zero value, or never be read.
func TestSettingsStructMatchesTable(t *testing.T) {
	tags := map[string]bool{}
	st := reflect.TypeOf(Settings{})
	for i := range st.NumField() {
		tag := st.Field(i).Tag.Get("setting")
		if !knownKey(tag) {
			t.Errorf("Settings.%s holds %q, which is not a setting", st.Field(i).Name, tag)
		}
		tags[tag] = true
	}
	for _, s := range settings {
		if !tags[s.key] {
			t.Errorf("no field of Settings holds the setting %q", s.key)
			continue
		}
		if got, want := settingField(&Settings{}, s.key).Kind(), reflect.TypeOf(s.def).Kind(); got != want && !(got == reflect.Int64 && want == reflect.Int) {
			t.Errorf("%s: a field of kind %v for a default of kind %v", s.key, got, want)
		}
	}
}

// A value of the wrong type, from the environment or stdbg.yaml, is named
// with its setting and what it must be, in one line, exit 2: not read as
// zero and blamed on a bound it never set.
func TestBadSettingValues(t *testing.T) {
	for _, tc := range []struct {
		env, value, want string
	}{
		{"STDBG_MAX_DEPTH", "deep", `max-depth must be a whole number, not "deep"`},
		{"STDBG_BUDGET", "soon", `budget must be a duration such as 30s or 10m (0: no limit), not "soon"`},
		{"STDBG_TRANSITION_TIMEOUT", "-1s", `transition-timeout must be a positive duration such as 5s, not "-1s"`},
		{"STDBG_RAND_SEED", "-3", `rand-seed must be a whole number from 0 to 9223372036854775807, not "-3"`},
		{"STDBG_MAX_STALL", "soon", `max-stall must be a duration of at least 0 (such as 50ms or 1s) or none, not "soon"`},
		{"STDBG_MAX_STALL", "-1ms", `max-stall must be a duration of at least 0 (such as 50ms or 1s) or none, not "-1ms"`},
		{"STDBG_ALL", "maybe", `all must be true or false, not "maybe"`},
		{"STDBG_MINIMISE_EXECUTIONS", "1", "minimise-executions must be at least 2, not 1"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			out, errs, code := stdbg(t, "config")
			if code != exitUsage || errs != "stdbg: "+tc.want+"\n" {
				t.Errorf("%s=%s: exit %d, stderr %q, want %q\n%s", tc.env, tc.value, code, errs, tc.want, out)
			}
		})
	}
	// The same from stdbg.yaml.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "stdbg.yaml")
	if err := os.WriteFile(cfg, []byte("max-depth: deep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := stdbg(t, "config", "--config", cfg); code != exitUsage || !strings.Contains(errs, `max-depth must be a whole number, not "deep"`) {
		t.Errorf("max-depth: deep in %s: exit %d, stderr %q", cfg, code, errs)
	}
}

// The help says what the code does: the numbers in it are the code's
// constants.
func TestHelpFromConstants(t *testing.T) {
	out, _, code := stdbg(t, "find", "--help")
	if code != 0 {
		t.Fatalf("find --help: exit %d", code)
	}
	text := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		fmt.Sprintf("runs alone for its first %s, then takes half of the time", search.PortfolioLeadTime),
		fmt.Sprintf("delay bounding (up to %d delays)", search.PortfolioDelays),
		fmt.Sprintf("only once it outlives %d executions or %s in one copy", session.TrialExecutions, session.TrialTime),
		fmt.Sprintf("Go targets: %d unless set", session.GoMaxDepth),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("find --help lacks %q:\n%s", want, out)
		}
	}
}
