package ctarget_test

import (
	"testing"

	"github.com/stdbg/stdbg/ctarget"
	"github.com/stdbg/stdbg/executor"
	"github.com/stdbg/stdbg/targetproc"
	"github.com/stdbg/stdbg/wire"
)

// startChecker starts exe under the library with cfg and returns its
// process and checker, both ended with the test.
func startChecker(t *testing.T, exe string, cfg targetproc.Config) (*targetproc.Process, *executor.Executor) {
	t.Helper()
	cfg.Binary = exe
	p, err := ctarget.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, executor.New(p, executor.Options{FastExit: cfg.Flags&wire.FlagFastExit != 0})
}
