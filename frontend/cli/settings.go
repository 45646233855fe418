package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/ltl"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/frontend/session"
	"github.com/stdbg/stdbg/internal/configload"
	"github.com/stdbg/stdbg/internal/rtnames"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// This file holds the configuration keys every command shares: their
// defaults and help, how flags, STDBG_* variables and stdbg.yaml combine
// into one Settings value, and the checks of their values.

// Settings are the value of every setting for the command that runs, read
// once (app.load) from its flags, the STDBG_* environment variables and
// stdbg.yaml, a flag beating the environment, which beats the file, which
// beats the default. Each field is the setting of its setting tag, a
// key of the settings table; nothing writes them back.
type Settings struct {
	MaxDepth           int           `setting:"max-depth"`
	All                bool          `setting:"all"`
	TransitionTimeout  time.Duration `setting:"transition-timeout"`
	StartTimeout       time.Duration `setting:"start-timeout"`
	Reduction          string        `setting:"reduction"`
	Jobs               int           `setting:"jobs"`
	Shard              string        `setting:"shard"`
	JSON               bool          `setting:"json"`
	Quiet              bool          `setting:"quiet"`
	NoMinimise         bool          `setting:"no-minimise"`
	MinimiseExecutions int64         `setting:"minimise-executions"`
	Corpus             string        `setting:"corpus"`
	NoSave             bool          `setting:"no-save"`
	Strategy           string        `setting:"strategy"`
	PCTDepth           int           `setting:"pct-depth"`
	Seed               int64         `setting:"seed"`
	Preemptions        int           `setting:"preemptions"`
	Delays             int           `setting:"delays"`
	Executions         int64         `setting:"executions"`
	Budget             time.Duration `setting:"budget"`
	Profile            string        `setting:"profile"`
	Visited            bool          `setting:"visited"`
	Livelock           bool          `setting:"livelock"`
	LTL                string        `setting:"ltl"`
	Cycles             int           `setting:"cycles"`
	InTarget           bool          `setting:"in-target"`
	Memory             bool          `setting:"memory"`
	SpuriousWakeups    bool          `setting:"spurious-wakeups"`
	Races              bool          `setting:"races"`
	RandSeed           int64         `setting:"rand-seed"`
	MaxStall           string        `setting:"max-stall"`
}

// setting is one configuration key: a flag, an STDBG_* environment
// variable and a key of stdbg.yaml, the field of Settings tagged with it.
type setting struct {
	key   string
	def   any
	usage string
	// want says what a value must be, for a value that is not one.
	want string
}

// searchSettings are the settings of a search, which stdbg find and
// stdbg test both take: a setting of the search request is listed here,
// and read into it by Settings.request.
var searchSettings = []string{"max-depth", "all", "transition-timeout", "start-timeout", "reduction", "json", "corpus", "jobs",
	"no-save", "no-minimise", "minimise-executions", "strategy", "pct-depth", "seed", "preemptions", "delays", "executions",
	"budget", "in-target", "races", "rand-seed", "max-stall"}

// request is the search request of the settings, but for what plan
// decides: the search's spec, its seed, the default limit of a sampled
// search, the part of a divided search and the depth bound left to the
// target's.
func (s *Settings) request() hunt.Request {
	return hunt.Request{MaxDepth: s.MaxDepth, All: s.All, MaxExecutions: s.Executions, Budget: s.Budget,
		Minimise: !s.NoMinimise, MinimiseExecutions: s.MinimiseExecutions}
}

// defaultMaxStall is the max-stall setting's default: the model's.
var defaultMaxStall = rtnames.FormatMaxStall(syncmodel.DefaultMaxStall)

// maxStall is the stall bound the max-stall setting says (validated by
// validate; negative: none).
func (s *Settings) maxStall() time.Duration {
	d, _ := rtnames.ParseMaxStall(s.MaxStall)
	return d
}

// defaultRandSeed is the seed of a Go target's random numbers when none is
// given, as sthread's own default.
const defaultRandSeed = session.DefaultRandSeed

// settings are every configurable key, in display order.
var settings = []setting{
	{"max-depth", session.DefaultMaxDepth, fmt.Sprintf("most transitions in one execution (the paper's model-check/max-depth); Go targets: %d unless set", session.GoMaxDepth), ""},
	{"all", false, "keep exploring after the first bug and report each distinct bug once", ""},
	{"transition-timeout", 5 * time.Second, "longest a thread may run between two scheduling points", "a positive duration such as 5s"},
	{"start-timeout", 30 * time.Second, "longest the program may take to reach its first thread operation", "a positive duration such as 5s"},
	{"reduction", "dpor", "state-space reduction: dpor (optimal dynamic partial-order reduction: one execution per class of schedules that differ only in the order of independent operations) or none (every schedule)", ""},
	{"jobs", 0, fmt.Sprintf("executions run at once, each by its own copy of the program (0: one per two CPUs, each copy running beside its own checker thread); an exhaustive search is divided only once it outlives %d executions or %s in one copy", session.TrialExecutions, session.TrialTime), ""},
	{"shard", "", "run only part I of N of the search (I/N, 0 <= I < N, e.g. 3/8), for one search spread over machines; join their corpora with stdbg corpus merge", ""},
	{"json", false, "print one JSON document instead of text", ""},
	{"quiet", false, "no progress on stderr (by default a live line on a terminal, otherwise a line every 10s during a long search)", ""},
	{"no-minimise", false, "report bugs as found, without shrinking their schedules to the shortest with the fewest preemptions", ""},
	{"minimise-executions", 20000, "most executions spent minimising one bug", ""},
	{"corpus", "", "directory where find saves the bugs it finds (default: testdata/stdbg/<target> next to the target)", ""},
	{"no-save", false, "do not save the bugs found in the corpus", ""},
	// Search strategy and limits.
	{"strategy", "portfolio", "search strategy: portfolio (DPOR sharing the search with pct, delay bounding and a random walk; exhaustive when DPOR finishes; the default, unless --reduction, --preemptions, --delays or a stateful search name dfs), dfs (exhaustive, depth first, alone), random (random walk) or pct (probabilistic concurrency testing)", ""},
	{"pct-depth", 3, "pct and the portfolio's pct: the bug depth d, i.e. d-1 priority change points per execution", ""},
	{"seed", 0, "random, pct and the portfolio: the seed; the same seed repeats the same search (0: pick one and print it)", ""},
	{"preemptions", -1, "dfs: explore the schedules with 0 preemptions, then 1, ... up to this many (-1: no bound)", ""},
	{"delays", -1, "dfs: explore the schedules that deviate 0 times from a round-robin scheduler, then 1, ... up to this many (-1: no bound); scales to many threads", ""},
	{"executions", 0, "stop after this many executions (0: no limit; random and pct stop at 10000 unless --budget is given)", ""},
	{"budget", time.Duration(0), fmt.Sprintf("stop searching after this much wall time, e.g. 30s or 10m (0: no limit), counted from when the search begins: building and starting the program are not counted; it bounds every phase, a step still running at its end included (cut there): the search (four fifths of it when bugs are minimised), the minimisation of the bugs found (up to nine tenths), and the replays that confirm and explain a bug (a bug whose replay it cuts is reported and saved as the search found it, without stacks); stdbg test's run as go test runs it gets what the search left of it, at least 10s (cut there: incomplete); unset, the search of a Go test (stdbg test, find --run) stops after %s", defaultTestBudget), "a duration such as 30s or 10m (0: no limit)"},
	{"profile", "", "write a pprof profile of the exploration (where the schedules branch and the time goes) to this file", ""},
	{"visited", false, "stateful search: cut executions at program states already explored (busy-wait loops end); C targets hash the program's memory, Go targets their declared state", ""},
	{"livelock", false, "report a reachable, weakly fair cycle of states without progress (stdbg_progress, sthread.Progress) as a livelock; implies --visited", ""},
	{"ltl", "", "check an LTL formula over the program's propositions (stdbg_prop, sthread.Prop) under weak fairness, e.g. 'G(r -> F cs)'; implies --visited", ""},
	{"cycles", 3, "replay of a lasso (livelock, LTL violation): how many times to run its cycle", ""},
	{"in-target", true, "Go targets: run the whole search inside the program's process (ten times faster), confirming each bug in a fresh process; false drives the program from stdbg transition by transition, as C targets are", ""},
	{"memory", true, "C and C++ sources: compile with the compiler's thread-sanitizer instrumentation (-fsanitize=thread, linked with stdbg's entry points instead of its runtime), so that stdbg sees the loads and stores of global variables and of the heap, and atomic operations, while threads run: atomics are scheduling points; plain loads and stores are checked for data races in every schedule (with --races=false, they are scheduling points instead); off: only thread operations and stdbg.h annotations are seen", ""},
	{"spurious-wakeups", true, "C targets: each thread's first condition wait (pthread_cond_wait, cnd_wait, timed or not) in an execution may also return at once without a signal, as POSIX allows, so that a wait guarded by if instead of while is found; false: a wait returns only when signalled or timed out", ""},
	{"races", true, "report data races: in C targets, accesses to the same memory that no synchronization orders (a happens-before detector over every schedule run; it sees the memory accesses stdbg sees); plain Go targets (not importing sthread) are built with Go's race detector (needs cgo)", ""},
	{"rand-seed", defaultRandSeed, "Go targets: the seed of the generator that math/rand and math/rand/v2 draw from in every execution (STDBG_RAND_SEED); recorded in the corpus entries, which replay with it", fmt.Sprintf("a whole number from 0 to %d", uint64(math.MaxInt64))},
	{"max-stall", defaultMaxStall, "Go targets: how long virtual time may pass while a goroutine that can run does not, so that a timer fires before it (a timeout that beats a worker a loaded machine delays; a report that needs it says so): a duration, 0 (time passes only when every goroutine is blocked or waits for time, as in testing/synctest) or none (at any moment); recorded in the corpus entries, which replay with it (STDBG_MAX_STALL)", "a duration of at least 0 (such as 50ms or 1s) or none"},
}

// addSettings defines the flags of the given keys on cmd.
func addSettings(cmd *cobra.Command, keys ...string) {
	for _, k := range keys {
		s := lookupSetting(k)
		switch d := s.def.(type) {
		case int:
			if s.key == "jobs" {
				cmd.Flags().IntP(s.key, "j", d, s.usage)
				break
			}
			cmd.Flags().Int(s.key, d, s.usage)
		case bool:
			cmd.Flags().Bool(s.key, d, s.usage)
		case time.Duration:
			cmd.Flags().Duration(s.key, d, s.usage)
		case string:
			cmd.Flags().String(s.key, d, s.usage)
		}
		// The flag of the setting, not a command's own flag of the same
		// name (grade's --json FILE): load binds it.
		cmd.Flags().SetAnnotation(s.key, settingFlag, []string{"true"})
	}
}

// settingFlag annotates the flags of settings.
const settingFlag = "stdbg-setting"

func lookupSetting(key string) setting {
	for _, s := range settings {
		if s.key == key {
			return s
		}
	}
	panic("unknown setting " + key)
}

// load reads the configuration file and environment, binds the command's
// flags, so that flag > environment > file > default, and reads every
// setting once into a.s.
func (a *app) load(cmd *cobra.Command) error {
	v := a.v
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[settingFlag]; ok {
			v.BindFlag(f)
		}
	})
	file := a.configFile
	if file == "" {
		file = findConfig()
	} else if _, err := os.Stat(file); err != nil {
		return usageErr("config file %s: %v", file, errors.Unwrap(err))
	}
	if file != "" {
		if err := v.ReadFile(file); err != nil {
			return usageErr("reading %s: %v", file, err)
		}
		a.configFile = file
		for _, k := range v.FileKeys() {
			if !knownKey(k) {
				return usageErr("%s: unknown setting %q (known: %s)", file, k, strings.Join(knownKeys(), ", "))
			}
		}
	}
	if err := v.Decode(&a.s, "setting"); err != nil {
		return a.badValue(err)
	}
	return a.validate()
}

// newValues returns the settings' sources, with their defaults and the
// STDBG_* environment variables.
func newValues() *configload.Values {
	defaults := make(map[string]any, len(settings))
	for _, s := range settings {
		defaults[s.key] = s.def
	}
	return configload.New(defaults, "STDBG")
}

// badValue says which setting holds a value of the wrong type, after the
// settings could not be read (err).
func (a *app) badValue(err error) error {
	var ve *configload.ValueError
	if !errors.As(err, &ve) {
		return usageErr("reading the settings: %v", err)
	}
	st := lookupSetting(ve.Name)
	want := st.want
	if want == "" {
		f := settingField(&Settings{}, st.key)
		want = map[reflect.Kind]string{reflect.Int: "a whole number", reflect.Int64: "a whole number", reflect.Bool: "true or false"}[f.Kind()]
	}
	return usageErr("%s must be %s, not %q", st.key, want, fmt.Sprint(ve.Value))
}

// settingField is the field of s that holds the setting key.
func settingField(s *Settings, key string) reflect.Value {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Tag.Get("setting") == key {
			return v.Field(i)
		}
	}
	panic("no field of Settings holds the setting " + key)
}

// value is the effective value of the setting key.
func (s *Settings) value(key string) any { return settingField(s, key).Interface() }

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
	s := &a.s
	switch {
	case s.MinimiseExecutions < 2:
		return usageErr("minimise-executions must be at least 2, not %d", s.MinimiseExecutions)
	case s.MaxDepth < 1:
		return usageErr("max-depth must be at least 1, not %d", s.MaxDepth)
	case s.TransitionTimeout <= 0:
		return usageErr("transition-timeout must be a positive duration such as 5s, not %q", s.TransitionTimeout)
	case s.StartTimeout <= 0:
		return usageErr("start-timeout must be a positive duration such as 5s, not %q", s.StartTimeout)
	}
	// The names, in search.Spec's vocabulary (what goes with what is
	// plan's).
	if err := (search.Spec{Strategy: s.Strategy}).Check(); err != nil {
		return usageErr("%v", err)
	}
	if err := (search.Spec{Reduction: s.Reduction}).Check(); err != nil {
		return usageErr("%v", err)
	}
	switch {
	case s.PCTDepth < 1:
		return usageErr("pct-depth must be at least 1, not %d", s.PCTDepth)
	case s.Preemptions < -1:
		return usageErr("preemptions must be -1 (no bound) or more, not %d", s.Preemptions)
	case s.Delays < -1:
		return usageErr("delays must be -1 (no bound) or more, not %d", s.Delays)
	case s.Executions < 0:
		return usageErr("executions must be 0 (no limit) or more, not %d", s.Executions)
	case s.Budget < 0:
		return usageErr("budget must be a duration such as 30s or 10m (0: no limit), not %q", s.Budget)
	case s.RandSeed < 0:
		return usageErr("rand-seed must be a whole number from 0 to %d, not %q", uint64(math.MaxInt64), fmt.Sprint(s.RandSeed))
	case s.Jobs < 0:
		return usageErr("jobs must be 0 (one per two CPUs) or more, not %d", s.Jobs)
	}
	if _, err := rtnames.ParseMaxStall(s.MaxStall); err != nil {
		return usageErr("max-stall must be a duration of at least 0 (such as 50ms or 1s) or none, not %q", s.MaxStall)
	}
	if _, _, err := parseShard(s.Shard); err != nil {
		return err
	}
	return a.validateStateful()
}

// validateStateful checks the settings of stateful search and liveness:
// the lasso replay's cycles, the formula, and what search.Spec refuses to
// combine with a stateful search (in the words of the flags).
func (a *app) validateStateful() error {
	s := &a.s
	if s.Cycles < 1 {
		return usageErr("cycles must be at least 1, not %d", s.Cycles)
	}
	if s.LTL != "" {
		if _, err := ltl.Parse(s.LTL); err != nil {
			return usageErr("--ltl: %v", err)
		}
	}
	if !s.stateful() {
		return nil
	}
	_, err := a.searchSpec()
	return err
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
	env := a.v.EnvName(key)
	if _, ok := os.LookupEnv(env); ok {
		return "environment " + env
	}
	if a.configFile != "" && a.v.InFile(key) {
		return "file " + a.configFile
	}
	return "default"
}
