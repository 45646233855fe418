package gofind

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// A data race of a plain Go test reads in the program's terms: the
// program's frames only, paths relative to the module, the goroutines
// named by their thread numbers (as the schedule and the trace), each
// with the go statement that started it, and closures named as go test
// names them.
func TestGoRaceReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go tests with the race detector")
	}
	t.Setenv("STDBG_ZOO", "1") // the racy tests skip themselves without it
	const file = "examples/go/plain/raceparity/raceparity_test.go"
	const pkg = "github.com/stdbg/stdbg/examples/go/plain/raceparity."
	for _, tt := range []struct {
		test string
		want []string
	}{
		{"TestStatusReadAfterGo", []string{
			"WARNING: DATA RACE\nWrite at 0x", " by thread 2:\n  " + pkg + "TestStatusReadAfterGo.func1()\n      " + file + ":79\n",
			" by thread 1:\n  " + pkg + "TestStatusReadAfterGo()\n      " + file + ":82\n",
			"Thread 2 (running) started at:\n  " + pkg + "TestStatusReadAfterGo()\n      " + file + ":78\n",
			"write by thread 2 at raceparity_test.go:79; previous read by thread 1 at raceparity_test.go:82"}},
		// Two goroutines of one closure, storing into a map: the map's
		// runtime frames are left out.
		{"TestMapWrittenFromGoroutines", []string{
			" by thread 3:\n  " + pkg + "TestMapWrittenFromGoroutines.func1()\n      " + file + ":121\n",
			"Previous write at 0x", " by thread 2:\n  " + pkg + "TestMapWrittenFromGoroutines.func1()\n      " + file + ":121\n",
			"Thread 3 (running) started at:\n  " + pkg + "TestMapWrittenFromGoroutines()\n      " + file + ":119\n"}},
	} {
		t.Run(tt.test, func(t *testing.T) {
			out, errs, code := clirun.Stdbg(t, "find", "--run", "^"+tt.test+"$", filepath.Join(clirun.Root(), "examples", "go", "plain", "raceparity"))
			if code != cli.ExitBug {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitBug, out, errs)
			}
			race, _, _ := strings.Cut(out, "Path = ")
			for _, w := range tt.want {
				if !strings.Contains(race+errs, w) {
					t.Errorf("the report lacks %q:\n%s\n%s", w, race, errs)
				}
			}
			for _, not := range []string{"sthread/", "testing.", "runtime.", "goroutine ", "Goroutine ", "+0x", "/" + file} {
				if strings.Contains(race, not) {
					t.Errorf("the report holds %q:\n%s", not, race)
				}
			}
		})
	}
}
