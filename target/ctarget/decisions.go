package ctarget

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/engine/executor"

	"github.com/stdbg/stdbg/internal/atomicfile"
)

// Decisions renders an execution's trace as a decision log: for every
// step the thread, the kind of its operation and the operation's result.
// The interposition library follows such a log without a checker when
// started with STDBG_REPLAY=FILE (as a debugger session does); a thread
// that is not at the logged operation is reported as a divergence.
func Decisions(trace []executor.Step, comment string) []byte {
	var b strings.Builder
	b.WriteString("stdbg-decisions 1\n")
	for _, line := range strings.Split(strings.TrimSpace(comment), "\n") {
		if line != "" {
			b.WriteString("# " + line + "\n")
		}
	}
	for _, st := range trace {
		fmt.Fprintf(&b, "%d %d %d\n", st.Thread, uint16(st.Op.Kind), st.Result.Code)
	}
	return []byte(b.String())
}

// WriteDecisions writes a decision log atomically.
func WriteDecisions(path string, trace []executor.Step, comment string) error {
	return atomicfile.Write(path, Decisions(trace, comment))
}
