package rtnames

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/internal/cachedir"
)

// Module is the import path of stdbg's module, whose packages the runtime
// links into every Go target.
const Module = "github.com/stdbg/stdbg"

// RaceSuppressions are the race detector's suppressions that keep stdbg's
// own code invisible to it in a Go target built with -race: each is a
// part of a function's name, and the detector makes no report (prints
// none, counts none, so that package testing does not fail the test) of a
// race either of whose two stacks has a frame of a function whose name
// holds one. They name
//
//   - the packages of the search that runs inside a target (its goroutine
//     shares the process with the checked goroutines, and with them the
//     standard library's pools, such as package fmt's printers, which it
//     uses while they are parked);
//   - the scheduler's side of the runtime (its Runner) and the runtime's
//     own state, which the checked goroutines touch at their scheduling
//     points while they hide their hand-overs from the detector (see
//     sthread/internal/rt's race.go): every function of package rt that
//     reaches such state through code the detector sees (the standard
//     library's generators, package fmt) has a name that starts with
//     quiet, or is a method of a type whose name does.
//
// Each names one package, those that the runtime links into a target (a
// test checks the list against go list -deps), never a folder: a package
// of the module's that a target does not link is not left out.
//
// None of them runs the program's code or touches the program's memory on
// its behalf: a race of the program is never in their frames. (A function
// of the runtime that calls the program's, such as the trampoline of every
// checked goroutine, appears in the stacks of all its accesses, and must
// not be named here.)
var RaceSuppressions = []string{
	Module + "/engine/corpus.",
	Module + "/engine/executor.",
	Module + "/engine/hunt.",
	Module + "/internal/atomicfile.",
	Module + "/internal/cachedir.",
	Module + "/internal/hashmix.",
	Module + "/internal/lazyre.",
	Module + "/internal/procgroup.",
	Module + "/engine/ltl.",
	Module + "/engine/report.",
	Module + "/internal/rtnames.",
	Module + "/model/schedule.",
	Module + "/engine/search.",
	Module + "/internal/symbolize.",
	Module + "/internal/targettmp.",
	Module + "/model/syncmodel.",
	Module + "/target/targetsearch.",
	Module + "/model/wire.",
	Package + ".(*checkerLink).",
	Package + "/internal/rt.(*Runner).",
	Package + "/internal/rt.quiet",
	Package + "/internal/rt.(*quiet",
}

// IsSuppressed reports whether the function of the qualified name (as a
// race report spells it) is named by RaceSuppressions.
func IsSuppressed(fn string) bool {
	for _, s := range RaceSuppressions {
		if strings.Contains(fn, s) {
			return true
		}
	}
	return false
}

// WithRaceOptions returns env with GORACE set for a program built with
// -race that stdbg runs:
//
//   - it exits as soon as it is done: the race runtime otherwise sleeps a
//     second at exit (atexit_sleep_ms=1000), which every execution in a
//     fresh process, every replay and every test binary would pay; an
//     atexit_sleep_ms the user chose is kept;
//   - its reports leave out stdbg's own code (RaceSuppressions, written to
//     a file in stdbg's cache directory, with the suppressions of the
//     user's own GORACE if it names a file); when the file cannot be
//     written there are none, and the runtime drops such reports itself,
//     though package testing then counts them.
//
// The user's other GORACE options are kept.
func WithRaceOptions(env []string) []string {
	dir, err := cachedir.Dir()
	if err != nil {
		dir = ""
	}
	return withRaceOptions(env, dir)
}

// WithRaceLog is WithRaceOptions for a Go target that hides its runtime's
// hand-overs from the race detector (one that stdbg find starts to search
// or to run executions in): the detector writes its reports to a file of
// the process's own, RaceLogFile, that the runtime reads, rather than to
// the program's standard error, unless the user's GORACE names a log_path.
// The caller removes the file once the process has ended.
func WithRaceLog(env []string) []string {
	dir, err := cachedir.Dir()
	if err != nil {
		dir = ""
	}
	return withRaceLog(env, dir)
}

// EveryExecution is what WithRaceLog and WithSharedRaceLog add to GORACE
// for a target that runs execution after execution in one process: the
// race detector reports a race on an address it reported before. By
// default it does not, once per process, and a race found in one
// execution and met again in a later one on memory allocated where the
// earlier's was went unreported there: the later execution did not end
// where the earlier one had (at the race), and the search inside the
// target took the program for one that does not repeat itself. (Races
// with the same stacks are still reported once: the runtime calls each
// run of a goroutine's function under frames of its own, so that a race
// is reported once per execution in which it happens; see rt's
// racemark.go.)
const EveryExecution = "suppress_equal_addresses=0"

// withRaceLog is WithRaceLog with stdbg's cache directory dir ("": none).
func withRaceLog(env []string, dir string) []string {
	env = withRaceOptions(env, dir)
	last := len(env) - 1
	env[last] += " " + EveryExecution
	if dir == "" || strings.Contains(env[last], "log_path=") {
		return env
	}
	// The detector dies if it cannot open the file at its first report.
	prefix := raceLogPrefix(dir)
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return env
	}
	env[last] += " log_path=" + prefix
	return env
}

// raceLogPrefix is the log_path of WithRaceLog's targets.
func raceLogPrefix(dir string) string { return filepath.Join(dir, "race", "reports") }

// WithSharedRaceLog is WithRaceLog for a target that runs as another user
// than stdbg (confined, as stdbg grade runs a submission as nobody): the
// detector dies when it cannot create its file at its first report, and
// such a user may not enter stdbg's cache directory. Its file is made in
// a directory of stdbg's user in the system's temporary directory that
// every user may add files to (sticky, as /tmp is); without one, the
// reports go to standard error, unseen by the runtime.
//
// Its suppressions file is written there too: the detector also dies when
// it cannot read that file, which it could not in stdbg's cache directory
// when that is private to stdbg's user (root's ~/.cache is, as is a
// directory made by mktemp).
func WithSharedRaceLog(env []string) []string {
	shared := sharedRaceDir()
	dir := shared
	if dir == "" {
		if d, err := cachedir.Dir(); err == nil {
			dir = d
		}
	}
	env = withRaceOptions(env, dir)
	last := len(env) - 1
	env[last] += " " + EveryExecution
	if shared == "" || strings.Contains(env[last], "log_path=") {
		return env
	}
	env[last] += " log_path=" + filepath.Join(shared, "reports")
	return env
}

// sharedRacePath is where sharedRaceDir makes its directory.
func sharedRacePath() string {
	return filepath.Join(os.TempDir(), "stdbg-race-"+strconv.Itoa(os.Getuid()))
}

// sharedRaceDir returns the directory of WithSharedRaceLog's files, made
// if need be: os.TempDir()/stdbg-race-UID, a directory (not a link) that
// the calling user owns, with mode 1777; "" if there cannot be one.
func sharedRaceDir() string {
	dir := sharedRacePath()
	if err := os.Mkdir(dir, 0o700); err == nil {
		if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
			return ""
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o777 || fi.Mode()&os.ModeSticky == 0 {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return ""
	}
	return dir
}

// RaceLogFile is the file of the race reports of the process pid started
// with env, WithRaceLog's or WithSharedRaceLog's environment ("" if its
// reports go elsewhere: to standard error, or to a log_path of the
// user's, which stays theirs).
func RaceLogFile(env []string, pid int) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			path = ""
			for _, o := range strings.Fields(v) {
				if p, ok := strings.CutPrefix(o, "log_path="); ok {
					path = p
				}
			}
		}
	}
	ours := filepath.Join(sharedRacePath(), "reports")
	if dir, err := cachedir.Dir(); err == nil && path == raceLogPrefix(dir) {
		ours = path
	}
	if path == "" || path != ours {
		return ""
	}
	return path + "." + strconv.Itoa(pid)
}

// withRaceOptions is WithRaceOptions with the suppressions file under dir
// ("": none).
func withRaceOptions(env []string, dir string) []string {
	old := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			old = v
		}
	}
	opts := strings.Fields(old)
	theirs := ""
	kept := opts[:0]
	for _, o := range opts {
		if v, ok := strings.CutPrefix(o, "suppressions="); ok {
			theirs = v
			continue
		}
		kept = append(kept, o)
	}
	opts = kept
	if !strings.Contains(old, "atexit_sleep_ms") {
		opts = append(opts, "atexit_sleep_ms=0")
	}
	if path, err := suppressionsFile(dir, theirs); err == nil {
		opts = append(opts, "suppressions="+path)
	} else if theirs != "" {
		opts = append(opts, "suppressions="+theirs)
	}
	return append(env, "GORACE="+strings.Join(opts, " "))
}

// suppressions caches the files written, by directory and the user's file.
var suppressions struct {
	mu    sync.Mutex
	paths map[[2]string]string
}

// suppressionsFile writes the race detector's suppressions file under dir
// (once per process and inputs): RaceSuppressions, then the lines of the
// user's file theirs, if any. Its name holds a hash of its contents, so
// that programs of another stdbg version read their own.
func suppressionsFile(dir, theirs string) (string, error) {
	if dir == "" {
		return "", os.ErrNotExist
	}
	suppressions.mu.Lock()
	defer suppressions.mu.Unlock()
	key := [2]string{dir, theirs}
	if p, ok := suppressions.paths[key]; ok {
		return p, nil
	}
	var b strings.Builder
	b.WriteString("# stdbg's own code, which the race detector must not see in a target (rtnames.RaceSuppressions)\n")
	for _, s := range RaceSuppressions {
		b.WriteString("race:" + s + "\n")
	}
	if theirs != "" {
		data, err := os.ReadFile(theirs)
		if err != nil {
			return "", err
		}
		b.WriteString("# from " + theirs + "\n")
		b.Write(data)
		b.WriteString("\n")
	}
	sum := sha256.Sum256([]byte(b.String()))
	path := filepath.Join(dir, "race", "suppressions-"+hex.EncodeToString(sum[:8])+".txt")
	if data, err := os.ReadFile(path); err != nil || string(data) != b.String() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := atomicfile.Write(path, []byte(b.String())); err != nil {
			return "", err
		}
	}
	if suppressions.paths == nil {
		suppressions.paths = map[[2]string]string{}
	}
	suppressions.paths[key] = path
	return path, nil
}
