package cli

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stdbg/stdbg/target/ctarget"
)

// ccCmd is stdbg cc: the system compiler with the flags stdbg wants.
type ccCmd struct {
	*app
	cxx, memory bool
}

func (c *ccCmd) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cc [COMPILER ARGS...]",
		Short: "compile a C or C++ program with the flags stdbg wants",
		Long: `Run the system C compiler ($CC, else cc) — or the C++ compiler ($CXX, else c++)
when a C++ source is given or --cxx is set — with -g -O0 -pthread and the
directory of stdbg.h on the include path, followed by your arguments.

The program then runs unchanged outside stdbg: the stdbg.h annotations do
nothing harmful there.

--memory builds with the compiler's thread-sanitizer instrumentation
(-fsanitize=thread) linked with stdbg's entry points instead of the
sanitizer's runtime: stdbg find then sees the program's loads and stores
of global variables and of the heap, and its atomic operations, as it does
for a source it compiles itself ("stdbg find prog.c"): atomics are
scheduling points, plain accesses are checked for data races (scheduling
points with --races=false). It is off unless asked for here, since the
instrumented program runs slower outside stdbg. Sources are compiled to objects
and linked in two steps; objects compiled with "stdbg cc --memory -c" link
the same way. The program still runs normally outside stdbg.`,
		Example: `  stdbg cc -o prog prog.c
  stdbg cc -o bank bank.cpp -std=c++17
  stdbg cc --memory -o counter counter.c && stdbg find ./counter`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.compile(cmd, args)
		},
	}
	cmd.Flags().BoolVar(&c.cxx, "cxx", false, "use the C++ compiler")
	cmd.Flags().BoolVar(&c.memory, "memory", false, "instrument loads, stores and atomics for stdbg's scheduler (-fsanitize=thread without its runtime)")
	return cmd
}

// compile runs the compiler on args (the flags of stdbg cc among them):
// once, or, with --memory, once per source and once to link.
func (c *ccCmd) compile(cmd *cobra.Command, args []string) error {
	var rest []string
	for _, x := range args {
		switch x {
		case "--help", "-h":
			return cmd.Help()
		case "--cxx":
			c.cxx = true
			continue
		case "--memory":
			c.memory = true
			continue
		}
		if ctarget.IsCXX(x) {
			c.cxx = true
		}
		rest = append(rest, x)
	}
	if len(rest) == 0 {
		return usageErr("cc needs compiler arguments, e.g. stdbg cc -o prog prog.c")
	}
	cc, err := ctarget.Compiler(c.cxx)
	if err != nil {
		return usageErr("%v", err)
	}
	inc, err := ctarget.IncludeDir()
	if err != nil {
		return usageErr("%v", err)
	}
	full := append(append([]string{}, ctarget.Flags...), "-I", inc)
	full = append(full, rest...)
	if !c.memory {
		return c.run(cc, full)
	}
	objs, err := os.MkdirTemp("", "stdbg-cc-")
	if err != nil {
		return fmt.Errorf("creating a directory for the objects: %w", err)
	}
	defer os.RemoveAll(objs)
	stub, err := ctarget.MemoryStub()
	if err != nil {
		return usageErr("%v", err)
	}
	plan, err := ctarget.PlanMemoryBuild(full, objs, stub)
	if err != nil {
		return usageErr("%v", err)
	}
	for _, step := range plan.Compiles {
		if err := c.run(cc, step); err != nil {
			return err
		}
	}
	if plan.Link != nil {
		return c.run(cc, plan.Link)
	}
	return nil
}

// run runs one compiler command, its output the user's.
func (c *ccCmd) run(cc string, args []string) error {
	run := exec.Command(cc, args...)
	run.Stdin, run.Stdout, run.Stderr = c.stdin, c.stdout, c.stderr
	if err := run.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s %s failed (status %d)", cc, strings.Join(args, " "), ee.ExitCode())}
		}
		return usageErr("running %s: %v", cc, err)
	}
	return nil
}
