package cli

import (
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/frontend/session"
)

// localTooOld is the go command's refusal of a module that needs a newer
// Go than the local one when GOTOOLCHAIN (from the environment, go env -w
// or the Go installation's go.env) forbids fetching it.
var localTooOld = lazyre.New(`requires go >= (\S+) \(running go \S+; GOTOOLCHAIN=local\)`)

// toolchainAdvice adds to msg, the message of a failed command run with
// args, the command that lets the go command fetch the Go that a module
// needs, when msg is the go command's refusal to (localTooOld): as go
// test would, stdbg builds a module with the toolchain its go.mod asks for.
func toolchainAdvice(msg string, args []string) string {
	m := localTooOld.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	first, rest, _ := strings.Cut(msg, "\n")
	if !strings.Contains(first, m[0]) {
		return msg
	}
	advice := ": GOTOOLCHAIN=auto stdbg " + shellJoin(args) + " lets the go command fetch Go " + m[1] + ", as go test would need too"
	if rest != "" {
		return first + advice + "\n" + rest
	}
	return first + advice
}

// shellJoin joins args as a shell reads them back.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = session.ShellQuote(a)
	}
	return strings.Join(out, " ")
}
