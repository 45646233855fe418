package cfind

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// A condition wait guarded by if with a single waiter fails only when the
// wait returns without a signal, which POSIX allows: find lets each
// thread's wait wake spuriously once and reports it in the trace; with
// --spurious-wakeups=false the program is exhausted without a bug; the
// schedule replays.
func TestFindSpuriousWakeup(t *testing.T) {
	t.Parallel()
	prog := clirun.Example("spurious-wakeup.c")
	out, errs, code := clirun.Stdbg(t, "find", prog)
	if code != cli.ExitBug || !strings.Contains(out, "assertion failed") ||
		!strings.Contains(out, "pthread_cond_wait(filled, lock) returns at once, unsignalled (spurious wake-up)") {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	rout, rerrs, rcode := clirun.Stdbg(t, "replay", "--schedule", "1;2;2;2:1", prog)
	if rcode != cli.ExitBug || !strings.Contains(rout, "an item is there after the wait") {
		t.Errorf("replay: exit %d\n%s\n%s", rcode, rout, rerrs)
	}
	out, errs, code = clirun.Stdbg(t, "find", "--spurious-wakeups=false", prog)
	if code != cli.ExitClean || !strings.Contains(out, "Search: exhaustive") {
		t.Errorf("find --spurious-wakeups=false: exit %d\n%s\n%s", code, out, errs)
	}
}
