// Command stdbg finds concurrency bugs by running a real program under a
// scheduler that decides which thread runs at every synchronization point.
//
//	stdbg find examples/c/deadly-embrace.c          explore schedules, report the first bug
//	stdbg replay --schedule '1;1;2' PROG            run one schedule again, deterministically
//	stdbg cc -o prog prog.c                         compile with the flags stdbg wants
//	stdbg config                                    show the effective settings
//
// Exit status: 0 no bug within the bounds, 1 a bug was found, 2 bad usage
// or input. The commands are package cli's; stdbg --help lists them.
package main

//go:generate go test -run TestSettingsPage ../../frontend/cli -args -update-settings-page

import (
	"os"

	"github.com/stdbg/stdbg/frontend/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
