package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stdbg/stdbg/ltl"
	"github.com/stdbg/stdbg/rtnames"
	"github.com/stdbg/stdbg/search"
	"github.com/stdbg/stdbg/syncmodel"
)

// This file holds the configuration keys every command shares: their
// defaults and help, how flags, STDBG_* variables and stdbg.yaml combine,
// and the checks of their values.

// setting is one configuration key: a flag, an STDBG_* environment
// variable and a key of stdbg.yaml.
type setting struct {
	key   string
	def   any
	usage string
}

// defaultMaxStall is the max-stall setting's default: the model's.
var defaultMaxStall = rtnames.FormatMaxStall(syncmodel.DefaultMaxStall)

// maxStall is the max-stall setting, validated by validate.
func (a *app) maxStall() time.Duration {
	d, _ := rtnames.ParseMaxStall(a.v.GetString("max-stall"))
	return d
}

// defaultRandSeed is the seed of a Go target's random numbers when none is
// given, as sthread's own default.
const defaultRandSeed = 1

// settings are every configurable key, in display order.
var settings = []setting{
	{"max-depth", 1000, "most transitions in one execution (the paper's model-check/max-depth); Go targets: 20000 unless set"},
	{"all", false, "keep exploring after the first bug and report each distinct bug once"},
	{"transition-timeout", 5 * time.Second, "longest a thread may run between two scheduling points"},
	{"start-timeout", 30 * time.Second, "longest the program may take to reach its first thread operation"},
	{"reduction", "dpor", "state-space reduction: dpor (optimal dynamic partial-order reduction: one execution per class of schedules that differ only in the order of independent operations) or none (every schedule)"},
	{"jobs", 0, "executions run at once, each by its own copy of the program (0: one per two CPUs, each copy running beside its own checker thread); an exhaustive search is divided only once it outlives 2000 executions or 2s in one copy"},
	{"shard", "", "run only part I of N of the search (I/N, 0 <= I < N, e.g. 3/8), for one search spread over machines; join their corpora with stdbg corpus merge"},
	{"json", false, "print one JSON document instead of text"},
	{"quiet", false, "no progress on stderr (by default a live line on a terminal, otherwise a line every 10s during a long search)"},
	{"no-minimise", false, "report bugs as found, without shrinking their schedules to the shortest with the fewest preemptions"},
	{"minimise-executions", 20000, "most executions spent minimising one bug"},
	{"corpus", "", "directory where find saves the bugs it finds (default: testdata/stdbg/<target> next to the target)"},
	{"no-save", false, "do not save the bugs found in the corpus"},
	// Search strategy and limits.
	{"strategy", "portfolio", "search strategy: portfolio (DPOR sharing the search with pct, delay bounding and a random walk; exhaustive when DPOR finishes; the default, unless --reduction, --preemptions, --delays or a stateful search name dfs), dfs (exhaustive, depth first, alone), random (random walk) or pct (probabilistic concurrency testing)"},
	{"pct-depth", 3, "pct and the portfolio's pct: the bug depth d, i.e. d-1 priority change points per execution"},
	{"seed", 0, "random, pct and the portfolio: the seed; the same seed repeats the same search (0: pick one and print it)"},
	{"preemptions", -1, "dfs: explore the schedules with 0 preemptions, then 1, ... up to this many (-1: no bound)"},
	{"delays", -1, "dfs: explore the schedules that deviate 0 times from a round-robin scheduler, then 1, ... up to this many (-1: no bound); scales to many threads"},
	{"executions", 0, "stop after this many executions (0: no limit; random and pct stop at 10000 unless --budget is given)"},
	{"budget", time.Duration(0), "stop searching after this much wall time, e.g. 30s or 10m (0: no limit), counted from when the search begins: building and starting the program are not counted; minimising the bugs found comes after"},
	{"profile", "", "write a pprof profile of the exploration (where the schedules branch and the time goes) to this file"},
	{"visited", false, "stateful search: cut executions at program states already explored (busy-wait loops end); C targets hash the program's memory, Go targets their declared state"},
	{"livelock", false, "report a reachable, weakly fair cycle of states without progress (stdbg_progress, sthread.Progress) as a livelock; implies --visited"},
	{"ltl", "", "check an LTL formula over the program's propositions (stdbg_prop, sthread.Prop) under weak fairness, e.g. 'G(r -> F cs)'; implies --visited"},
	{"cycles", 3, "replay of a lasso (livelock, LTL violation): how many times to run its cycle"},
	{"in-target", true, "Go targets: run the whole search inside the program's process (ten times faster), confirming each bug in a fresh process; false drives the program from stdbg transition by transition, as C targets are"},
	{"memory", true, "C and C++ sources: compile with the compiler's thread-sanitizer instrumentation (-fsanitize=thread, linked with stdbg's entry points instead of its runtime), so that stdbg sees the loads and stores of global variables and of the heap, and atomic operations, while threads run: atomics are scheduling points; plain loads and stores are checked for data races in every schedule (with --races=false, they are scheduling points instead); off: only thread operations and stdbg.h annotations are seen"},
	{"spurious-wakeups", true, "C targets: each thread's first condition wait (pthread_cond_wait, cnd_wait, timed or not) in an execution may also return at once without a signal, as POSIX allows, so that a wait guarded by if instead of while is found; false: a wait returns only when signalled or timed out"},
	{"races", true, "report data races: in C targets, accesses to the same memory that no synchronization orders (a happens-before detector over every schedule run; it sees the memory accesses stdbg sees); plain Go targets (not importing sthread) are built with Go's race detector (needs cgo)"},
	{"rand-seed", defaultRandSeed, "Go targets: the seed of the generator that math/rand and math/rand/v2 draw from in every execution (STDBG_RAND_SEED); recorded in the corpus entries, which replay with it"},
	{"max-stall", defaultMaxStall, "Go targets: how long virtual time may pass while a goroutine that can run does not, so that a timer fires before it (a timeout that beats a worker a loaded machine delays; a report that needs it says so): a duration, 0 (time passes only when every goroutine is blocked or waits for time, as in testing/synctest) or none (at any moment); recorded in the corpus entries, which replay with it (STDBG_MAX_STALL)"},
}

// addSettings defines the flags of the given keys on cmd.
func addSettings(cmd *cobra.Command, keys ...string) {
	for _, k := range keys {
		s := lookupSetting(k)
		switch d := s.def.(type) {
		case int:
			if s.key == "jobs" {
				cmd.Flags().IntP(s.key, "j", d, s.usage)
				continue
			}
			cmd.Flags().Int(s.key, d, s.usage)
		case bool:
			cmd.Flags().Bool(s.key, d, s.usage)
		case time.Duration:
			cmd.Flags().Duration(s.key, d, s.usage)
		case string:
			cmd.Flags().String(s.key, d, s.usage)
		}
	}
}

func lookupSetting(key string) setting {
	for _, s := range settings {
		if s.key == key {
			return s
		}
	}
	panic("unknown setting " + key)
}

// load reads the configuration file and environment and binds the
// command's flags, so that flag > environment > file > default.
func (a *app) load(cmd *cobra.Command) error {
	v := a.v
	for _, s := range settings {
		v.SetDefault(s.key, s.def)
	}
	v.SetEnvPrefix("STDBG")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		for _, s := range settings {
			if s.key == f.Name {
				if err := v.BindPFlag(s.key, f); err != nil && bindErr == nil {
					bindErr = err
				}
			}
		}
	})
	if bindErr != nil {
		return bindErr
	}
	file := a.configFile
	if file == "" {
		file = findConfig()
	} else if _, err := os.Stat(file); err != nil {
		return usageErr("config file %s: %v", file, errors.Unwrap(err))
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return usageErr("reading %s: %v", file, err)
		}
		a.configFile = file
		for _, k := range v.AllKeys() {
			if !knownKey(k) {
				return usageErr("%s: unknown setting %q (known: %s)", file, k, strings.Join(knownKeys(), ", "))
			}
		}
	}
	return a.validate()
}

func knownKey(k string) bool {
	for _, s := range settings {
		if s.key == k {
			return true
		}
	}
	return false
}

func knownKeys() []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.key
	}
	return out
}

// validate checks values that may come from any source.
func (a *app) validate() error {
	if n := a.v.GetInt("minimise-executions"); n < 2 {
		return usageErr("minimise-executions must be at least 2, not %d", n)
	}
	if d := a.v.GetInt("max-depth"); d < 1 {
		return usageErr("max-depth must be at least 1, not %d", d)
	}
	for _, k := range []string{"transition-timeout", "start-timeout"} {
		if d := a.v.GetDuration(k); d <= 0 {
			return usageErr("%s must be a positive duration such as 5s, not %q", k, a.v.GetString(k))
		}
	}
	// The names, in search.Spec's vocabulary (what goes with what is
	// plan's).
	if err := (search.Spec{Strategy: a.v.GetString("strategy")}).Check(); err != nil {
		return usageErr("%v", err)
	}
	if err := (search.Spec{Reduction: a.v.GetString("reduction")}).Check(); err != nil {
		return usageErr("%v", err)
	}
	if d := a.v.GetInt("pct-depth"); d < 1 {
		return usageErr("pct-depth must be at least 1, not %d", d)
	}
	if k := a.v.GetInt("preemptions"); k < -1 {
		return usageErr("preemptions must be -1 (no bound) or more, not %d", k)
	}
	if k := a.v.GetInt("delays"); k < -1 {
		return usageErr("delays must be -1 (no bound) or more, not %d", k)
	}
	if n := a.v.GetInt("executions"); n < 0 {
		return usageErr("executions must be 0 (no limit) or more, not %d", n)
	}
	if raw := a.v.GetString("budget"); raw != "0" {
		if d, err := time.ParseDuration(raw); err != nil || d < 0 {
			return usageErr("budget must be a duration such as 30s or 10m (0: no limit), not %q", raw)
		}
	}

	if _, err := rtnames.ParseMaxStall(a.v.GetString("max-stall")); err != nil {
		return usageErr("max-stall must be a duration of at least 0 (such as 50ms or 1s) or none, not %q", a.v.GetString("max-stall"))
	}
	if s := a.v.GetString("rand-seed"); !validRandSeed(s) {
		return usageErr("rand-seed must be a whole number from 0 to %d, not %q", uint64(math.MaxInt64), s)
	}
	if j := a.v.GetInt("jobs"); j < 0 {
		return usageErr("jobs must be 0 (one per two CPUs) or more, not %d", j)
	}
	if _, _, err := parseShard(a.v.GetString("shard")); err != nil {
		return err
	}
	return a.validateStateful()
}

// validateStateful checks the settings of stateful search and liveness:
// the lasso replay's cycles, the formula, and what search.Spec refuses to
// combine with a stateful search (in the words of the flags).
func (a *app) validateStateful() error {
	if n := a.v.GetInt("cycles"); n < 1 {
		return usageErr("cycles must be at least 1, not %d", n)
	}
	if f := a.v.GetString("ltl"); f != "" {
		if _, err := ltl.Parse(f); err != nil {
			return usageErr("--ltl: %v", err)
		}
	}
	if !a.stateful() {
		return nil
	}
	_, err := a.searchSpec()
	return err
}

// validRandSeed reports whether s is a seed the Go runtime accepts.
func validRandSeed(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil && !strings.HasPrefix(s, "-")
}

// findConfig looks for stdbg.yaml in the current directory and its parents.
func findConfig() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "stdbg.yaml")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// source says where the effective value of key comes from.
func (a *app) source(cmd *cobra.Command, key string) string {
	if f := cmd.Flags().Lookup(key); f != nil && f.Changed {
		return "flag --" + key
	}
	env := "STDBG_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
	if _, ok := os.LookupEnv(env); ok {
		return "environment " + env
	}
	if a.configFile != "" && a.v.InConfig(key) {
		return "file " + a.configFile
	}
	return "default"
}
