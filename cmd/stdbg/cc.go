package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/ctarget"
)

func (a *app) ccCmd() *cobra.Command {
	var cxx bool
	cmd := &cobra.Command{
		Use:   "cc [COMPILER ARGS...]",
		Short: "compile a C or C++ program with the flags stdbg wants",
		Long: `Run the system C compiler ($CC, else cc) — or the C++ compiler ($CXX, else c++)
when a C++ source is given or --cxx is set — with -g -O0 -pthread and the
directory of stdbg.h on the include path, followed by your arguments.

The program then runs unchanged outside stdbg: the stdbg.h annotations do
nothing harmful there.`,
		Example: `  stdbg cc -o prog prog.c
  stdbg cc -o bank bank.cpp -std=c++17`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rest []string
			for _, x := range args {
				switch x {
				case "--help", "-h":
					return cmd.Help()
				case "--cxx":
					cxx = true
					continue
				}
				if ctarget.IsCXX(x) {
					cxx = true
				}
				rest = append(rest, x)
			}
			if len(rest) == 0 {
				return usageErr("cc needs compiler arguments, e.g. stdbg cc -o prog prog.c")
			}
			cc, err := ctarget.Compiler(cxx)
			if err != nil {
				return usageErr("%v", err)
			}
			inc, err := ctarget.IncludeDir()
			if err != nil {
				return usageErr("%v", err)
			}
			full := append(append([]string{}, ctarget.Flags...), "-I", inc)
			full = append(full, rest...)
			c := exec.Command(cc, full...)
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, a.stdout, a.stderr
			if err := c.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); ok {
					return &exitError{code: exitUsage, err: fmt.Errorf("%s %s failed (status %d)", cc, strings.Join(full, " "), ee.ExitCode())}
				}
				return usageErr("running %s: %v", cc, err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&cxx, "cxx", false, "use the C++ compiler")
	return cmd
}
