package cli

import (
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stdbg/stdbg/internal/cachedir"
	"github.com/stdbg/stdbg/internal/configload"
)

// version is stdbg's version, recorded in reports.
const version = "0.1.0"

// app holds what the commands share: the settings (flags, STDBG_*
// variables and stdbg.yaml, through configload), stdbg's output, and how a
// target is resolved, started and searched with the settings. Each command
// is a type of its own built from it (findCmd, tester, replayer,
// corpusCmd and rerunner, grader, ccCmd, configCmd), which holds the
// command's own flags and state.
type app struct {
	v *configload.Values
	// s are the settings, read once from v when the command starts.
	s          Settings
	stdin      io.Reader // what GDB, Delve, stdbg dap and cc's program read
	stdout     io.Writer
	stderr     io.Writer
	configFile string // the file read, "" if none
	cfgInvalid []string
	cmd        *cobra.Command // the command running, once its settings are loaded
}

// explicit reports whether the user chose the setting key (by flag,
// environment or configuration file) rather than left its default.
func (a *app) explicit(key string) bool {
	return a.cmd != nil && a.source(a.cmd, key) != "default"
}

// newRoot is stdbg's command tree, every command in it.
func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newRootOf(stdin, stdout, stderr, "")
}

// commandBuilders build stdbg's commands, by name, in the order of stdbg --help.
var commandBuilders = []struct {
	name  string
	build func(a *app) *cobra.Command
}{
	{"find", func(a *app) *cobra.Command { return (&findCmd{app: a}).command() }},
	{"test", func(a *app) *cobra.Command { return (&tester{app: a}).command() }},
	{"replay", func(a *app) *cobra.Command { return (&replayer{app: a}).command() }},
	{"dap", func(a *app) *cobra.Command { return (&dapCmd{app: a}).command() }},
	{"corpus", func(a *app) *cobra.Command { return (&corpusCmd{app: a}).command() }},
	{"grade", func(a *app) *cobra.Command { return (&grader{app: a}).command() }},
	{"cc", func(a *app) *cobra.Command { return (&ccCmd{app: a}).command() }},
	{"config", func(a *app) *cobra.Command { return (&configCmd{app: a}).command() }},
	{"version", func(a *app) *cobra.Command { return (&configCmd{app: a}).versionCommand() }},
}

// commandNamed returns the command a command line runs when its first word
// names one ("find"), or "" when it does not (a flag first, help, a typo):
// then the whole tree is needed, for cobra's help and suggestions.
func commandNamed(args []string) string {
	if len(args) == 0 {
		return ""
	}
	for _, c := range commandBuilders {
		if c.name == args[0] {
			return c.name
		}
	}
	return ""
}

// newRootOf is stdbg's command tree with the command only alone under the
// root, or every command when only is "". Building the tree (each
// command's flags, settings and help) was most of what stdbg version
// spent after the runtime's start, and a command line runs one command:
// Run builds that one (commandNamed).
func newRootOf(stdin io.Reader, stdout, stderr io.Writer, only string) *cobra.Command {
	a := &app{v: newValues(), stdin: stdin, stdout: &lockedWriter{w: stdout}, stderr: &lockedWriter{w: stderr}}
	root := &cobra.Command{
		Use:   "stdbg",
		Short: "find, shrink and replay concurrency bugs in real programs",
		Long: `stdbg runs a real program under a scheduler that decides which thread runs at
every synchronization point (mutex, condition variable, semaphore, thread
creation and join, yield, ...). It explores those schedules, reports deadlocks,
leaked threads, assertion failures, crashes and misuse of the thread API with
the exact schedule (Path = 1;1;2) and every step's thread, call and source line,
and replays any schedule deterministically.

Targets: C and C++ programs using POSIX threads, C11 threads or std::thread,
given as a source file (compiled with -g -O0 -pthread) or as an unmodified,
dynamically linked executable; and Go packages (programs, or with --run their
tests), written with package sthread or in plain Go, which stdbg instruments
at build time.

Every flag can also be set in stdbg.yaml (in the current directory or a parent,
or --config FILE) or in an STDBG_* environment variable (STDBG_MAX_DEPTH=10);
a flag beats the environment, which beats the file. The paper's spelling
--cfg=model-check/max-depth:10 is accepted too.

Exit status: 0 no bug within the bounds, 1 a bug was found, 2 bad usage or input.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if len(a.cfgInvalid) > 0 {
				return usageErr("--cfg=%s: expected SECTION/KEY:VALUE, e.g. --cfg=model-check/max-depth:10", a.cfgInvalid[0])
			}
			a.cmd = cmd
			if cmd.Name() != "version" && cmd.Name() != "config" {
				// The command will start programs (the target, a
				// compiler, the go command): the check os/exec makes
				// before the first runs beside the command's start.
				go warmProcessStart()
				// Entries of the cache unused for days go, once a day.
				if dir, err := cachedir.Dir(); err == nil {
					cachedir.Trim(dir)
				}
			}
			return a.load(cmd)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// --race, the setting's earlier name, still works.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "race" {
			name = "races"
		}
		return pflag.NormalizedName(name)
	})
	root.SetVersionTemplate("stdbg {{.Version}}\n")
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "read settings from this YAML file instead of searching for stdbg.yaml")
	root.PersistentFlags().StringSliceVar(&a.cfgInvalid, "cfg-invalid", nil, "")
	root.PersistentFlags().MarkHidden("cfg-invalid")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErr("%v (see stdbg %s --help)", err, cmd.Name())
	})
	for _, c := range commandBuilders {
		if only == "" || c.name == only {
			root.AddCommand(c.build(a))
		}
	}
	return root
}

// warmProcessStart makes the check the os package makes once per process
// before its first process handle, that the kernel's process descriptors
// (pidfd) work: it starts a child that exits at once and reaps it, 0.3 ms
// on a quiet machine and more on a busy one, where the child waits for a
// CPU. Made here, beside the command's own start, it is out of the way of
// the command's first program (the target's launch in a find).
func warmProcessStart() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
}
