package rtnames

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lastGORACE returns the GORACE a program run with env sees (the last).
func lastGORACE(env []string) string {
	last := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			last = v
		}
	}
	return last
}

func TestWithRaceOptions(t *testing.T) {
	dir := t.TempDir()
	theirs := filepath.Join(dir, "theirs.txt")
	if err := os.WriteFile(theirs, []byte("race:example.com/m.flaky\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   []string
		want  string // the GORACE the program sees, but its suppressions
		their bool   // the user's suppressions are in the file too
	}{
		{"none set", []string{"HOME=/h"}, "atexit_sleep_ms=0", false},
		{"the user's options kept", []string{"GORACE=halt_on_error=1"}, "halt_on_error=1 atexit_sleep_ms=0", false},
		{"the user's sleep kept", []string{"GORACE=atexit_sleep_ms=50"}, "atexit_sleep_ms=50", false},
		{"the last of two counts", []string{"GORACE=atexit_sleep_ms=50", "GORACE=log_path=x"}, "log_path=x atexit_sleep_ms=0", false},
		{"the user's suppressions joined", []string{"GORACE=suppressions=" + theirs + " history_size=3"}, "history_size=3 atexit_sleep_ms=0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lastGORACE(withRaceOptions(slices.Clone(tt.env), filepath.Join(dir, "cache")))
			rest, path, ok := strings.Cut(got, " suppressions=")
			if !ok || rest != tt.want {
				t.Fatalf("GORACE is %q, want %q and the suppressions", got, tt.want)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range RaceSuppressions {
				if !strings.Contains(string(data), "\nrace:"+s+"\n") {
					t.Errorf("the suppressions file lacks %q:\n%s", s, data)
				}
			}
			if has := strings.Contains(string(data), "race:example.com/m.flaky"); has != tt.their {
				t.Errorf("the user's suppressions in the file: %v, want %v:\n%s", has, tt.their, data)
			}
		})
	}
	// Without a place for the file, the options are kept and the user's
	// file is still named.
	got := lastGORACE(withRaceOptions([]string{"GORACE=suppressions=" + theirs}, ""))
	if got != "atexit_sleep_ms=0 suppressions="+theirs {
		t.Errorf("without a cache directory, GORACE is %q", got)
	}
}

// Every package of stdbg's module that the runtime links into a Go
// target, but for the runtime's own (package sthread and its packages,
// which run the program's code), is left out of race reports.
func TestRaceSuppressionsName(t *testing.T) {
	for _, tt := range []struct {
		fn   string
		want bool
	}{
		{"github.com/stdbg/stdbg/engine/search.(*DPOR).Next", true},
		{"github.com/stdbg/stdbg/target/targetsearch.Serve", true},
		{"github.com/stdbg/stdbg/sthread/internal/rt.(*Runner).Resume", true},
		{"github.com/stdbg/stdbg/sthread/internal/rt.quietRead", true},
		{"github.com/stdbg/stdbg/sthread/internal/rt.(*quietSource).Int63", true},
		{"github.com/stdbg/stdbg/sthread.(*checkerLink).pump", true},
		// The trampoline of every checked goroutine, the functions that
		// run the program's code and the mirrors: never.
		{"github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).run", false},
		{"github.com/stdbg/stdbg/sthread/internal/rt.(*Thread).Lend", false},
		{"github.com/stdbg/stdbg/sthread/internal/rt.RunCleanups", false},
		{"github.com/stdbg/stdbg/sthread/internal/rt.runOutside", false},
		{"github.com/stdbg/stdbg/sthread/lang.MapRangeLoop[go.shape.int,go.shape.int]", false},
		{"github.com/stdbg/stdbg/sthread/lang.CheckTest.func1", false},
		{"github.com/stdbg/stdbg/sthread/time.AfterFunc.func1", false},
		{"github.com/stdbg/stdbg/sthread.Check", false},
		{"github.com/stdbg/stdbg/examples/go/plain/transfer.TestTransfer", false},
		{"main.main", false},
		// Packages of the module that targets do not link.
		{"github.com/stdbg/stdbg/internal/testkit/racefree.File", false},
		{"github.com/stdbg/stdbg/internal/testkit.Run", false},
	} {
		if got := IsSuppressed(tt.fn); got != tt.want {
			t.Errorf("IsSuppressed(%q) = %v, want %v", tt.fn, got, tt.want)
		}
	}
}

// Every package of stdbg's module that the runtime links into a target,
// but for sthread and its packages, is named by RaceSuppressions: its code
// runs only as the search inside the target, never for the program. And
// RaceSuppressions names those packages one by one, and no other: not a
// folder, whose other packages (internal/testkit/racefree, whose tests are the
// corpus of correct programs) would be left out too.
func TestRaceSuppressionsCoverTheSearch(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", Package+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, Module+"/") || p == Package || strings.HasPrefix(p, Package+"/") {
			continue
		}
		linked[p] = true
		if !IsSuppressed(p + ".F") {
			t.Errorf("package %s is linked into Go targets but not named by RaceSuppressions", p)
		}
	}
	for _, s := range RaceSuppressions {
		if strings.HasPrefix(s, Package+".") || strings.HasPrefix(s, Package+"/") {
			continue
		}
		if p, ok := strings.CutSuffix(s, "."); !ok || !linked[p] {
			t.Errorf("RaceSuppressions holds %q, not a package linked into Go targets", s)
		}
	}
}

// A target that hides its hand-overs has the detector write its reports
// to a file of its own, unless the user's GORACE names one.
func TestWithRaceLog(t *testing.T) {
	dir := t.TempDir()
	got := lastGORACE(withRaceLog([]string{"GORACE=halt_on_error=1"}, dir))
	if !strings.HasPrefix(got, "halt_on_error=1 atexit_sleep_ms=0 suppressions=") ||
		!strings.HasSuffix(got, " log_path="+filepath.Join(dir, "race", "reports")) {
		t.Errorf("GORACE is %q", got)
	}
	if !strings.Contains(got, " "+EveryExecution) {
		t.Errorf("GORACE is %q: a race repeated by a later execution would not be reported there", got)
	}
	got = lastGORACE(withRaceLog([]string{"GORACE=log_path=/mine/r"}, dir))
	if strings.Count(got, "log_path=") != 1 || !strings.Contains(got, "log_path=/mine/r") {
		t.Errorf("with the user's log_path, GORACE is %q", got)
	}
	t.Setenv("STDBG_CACHE", dir)
	env := WithRaceLog([]string{"GORACE=halt_on_error=1"})
	if f := RaceLogFile(env, 42); f != filepath.Join(dir, "race", "reports.42") {
		t.Errorf("RaceLogFile(42) = %q", f)
	}
	for _, env := range [][]string{{"HOME=/h"}, WithRaceOptions(nil), WithRaceLog([]string{"GORACE=log_path=/mine/r"})} {
		if f := RaceLogFile(env, 42); f != "" {
			t.Errorf("RaceLogFile(%q, 42) = %q, want none (not stdbg's file)", env, f)
		}
	}
}

// A target that runs as another user makes its file of reports in a
// directory that user may write to, and no other user may remove.
func TestWithSharedRaceLog(t *testing.T) {
	cache := t.TempDir()
	if err := os.Chmod(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STDBG_CACHE", cache)
	system := os.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	env := WithSharedRaceLog([]string{"GORACE=halt_on_error=1"})
	f := RaceLogFile(env, 42)
	dir := filepath.Dir(f)
	if f == "" || !strings.HasSuffix(lastGORACE(env), " log_path="+filepath.Join(dir, "reports")) ||
		!strings.Contains(lastGORACE(env), " "+EveryExecution) {
		t.Fatalf("GORACE is %q, its file %q", lastGORACE(env), f)
	}
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode().Perm() != 0o777 || fi.Mode()&os.ModeSticky == 0 {
		t.Fatalf("the directory of the reports: %v, %v", fi.Mode(), err)
	}
	if os.Geteuid() != 0 {
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return
	}
	// As nobody, as stdbg grade runs a submission when root; the test's
	// own directories opened to it (and nothing above them).
	for d := filepath.Dir(dir); d != system && strings.HasPrefix(d, system+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		"sh", "-c", "echo report > "+f).CombinedOutput()
	if err != nil {
		t.Fatalf("user nobody cannot write %s: %v %s", f, err, out)
	}
	// The detector dies too when it cannot read its suppressions, and
	// stdbg's cache directory may be private (0700, as root's ~/.cache).
	sup := ""
	for _, o := range strings.Fields(lastGORACE(env)) {
		if p, ok := strings.CutPrefix(o, "suppressions="); ok {
			sup = p
		}
	}
	if sup == "" {
		t.Fatalf("no suppressions in GORACE %q", lastGORACE(env))
	}
	out, err = exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		"cat", sup).CombinedOutput()
	if err != nil {
		t.Fatalf("user nobody cannot read the suppressions %s: %v %s", sup, err, out)
	}
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
}
