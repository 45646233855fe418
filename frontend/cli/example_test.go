package cli_test

import (
	"os"

	"github.com/stdbg/stdbg/frontend/cli"
)

// Run is the stdbg command in-process: the arguments after the program's
// name, the standard streams, and the exit status it returns.
func ExampleRun() {
	status := cli.Run([]string{"version"}, nil, os.Stdout, os.Stderr)
	if status != cli.ExitClean {
		os.Exit(status)
	}
	// Output: stdbg 0.1.0
}
