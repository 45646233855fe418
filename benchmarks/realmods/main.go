// Command realmods runs stdbg test on widely used open-source Go modules
// with concurrent code, beside go test -race on the same module, and prints
// a markdown table: tests run, bugs reported, searches left incomplete,
// tests that failed or could not be searched, and the wall time of each.
// Then, on the same copy (its builds cached for both), the tests whose
// searches completed (all but those left incomplete at their budget) are
// run again by both, alternately (go test -race, stdbg test, go test -race
// again, whose mean is the ratio's denominator): the last columns are their
// times and their ratios, of wall time and of CPU time (user and system, of
// each command and the children it waited for, which the machine's load
// changes least). -complete=false leaves that second part out.
//
// Each module is fetched at a pinned version through the module proxy
// (go mod download), copied into a temporary directory (the module cache
// is read-only, and stdbg test writes its corpus next to the tests) and
// tested there; nothing is kept. -local DIR uses copies already fetched,
// DIR/<name> for each module's short name. -events DIR keeps what stdbg
// test said of each test (its -json events, DIR/<name>.json), to tell which
// tests the counts are made of.
//
//	benchmarks/modules                    # every module, 5s per test
//	benchmarks/modules -budget 10s -run conc
//	benchmarks/modules -local /tmp/realmods
//	benchmarks/modules -run ants -events /tmp/events
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stdbg/stdbg/internal/loadavg"
)

// A module to test: its path, a pinned version and a short name.
type module struct {
	name, path, version string
}

var modules = []module{
	{"gocache", "github.com/patrickmn/go-cache", "v2.1.0+incompatible"},
	{"conc", "github.com/sourcegraph/conc", "v0.3.0"},
	{"xsync", "golang.org/x/sync", "v0.23.0"},
	{"ants", "github.com/panjf2000/ants/v2", "v2.10.0"},
	{"lru", "github.com/hashicorp/golang-lru/v2", "v2.0.7"},
	// Modules first run here for issue 43's item 6 (docs/go-test.md).
	{"xtime", "golang.org/x/time", "v0.16.0"},
	{"backoff", "github.com/cenkalti/backoff/v4", "v4.3.0"},
	{"clock", "github.com/benbjohnson/clock", "v1.3.5"},
	{"clockwork", "github.com/jonboulle/clockwork", "v0.5.0"},
	{"ratelimit", "go.uber.org/ratelimit", "v0.3.1"},
	{"gobreaker", "github.com/sony/gobreaker/v2", "v2.4.0"},
	{"xsyncmap", "github.com/puzpuzpuz/xsync/v4", "v4.5.0"},
	// First run on 2026-12-07 for issue 43's items 5-6: a resource pool
	// (pgx's) and groupcache (singleflight, a cache of groups).
	{"puddle", "github.com/jackc/puddle/v2", "v2.2.4"},
	{"groupcache", "github.com/golang/groupcache", "v0.0.0-20241129210726-2c02b8208cf8"},
}

func main() {
	budget := flag.Duration("budget", 5*time.Second, "stdbg's search budget per test")
	local := flag.String("local", "", "use the modules already fetched under this directory (DIR/<name>) instead of the proxy")
	run := flag.String("run", "", "only the modules whose name matches this regular expression")
	stdbg := flag.String("stdbg", os.Getenv("STDBG"), "the stdbg to run (default: built from this tree)")
	events := flag.String("events", "", "write each module's stdbg test -json events to this directory, as <name>.json")
	complete := flag.Bool("complete", true, "run the tests whose searches completed again with both, builds cached, and give the ratio")
	flag.Parse()
	sel, err := regexp.Compile(*run)
	if err != nil {
		fail(err)
	}
	root, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "realmods-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	if *stdbg == "" {
		*stdbg = filepath.Join(work, "stdbg")
		if out, err := command(root, "go", "build", "-o", *stdbg, "./cmd/stdbg").CombinedOutput(); err != nil {
			fail(fmt.Errorf("building stdbg: %v\n%s", err, out))
		}
	}
	fmt.Printf("stdbg test --budget %s -count=1 beside go test -race -count=1, %s\n\n", *budget, time.Now().Format("2006-01-02 15:04 MST"))
	fmt.Println("Times: wall (CPU, user and system, of the command and its children); ratios: stdbg test's over the mean of go test's two.")
	fmt.Println()
	fmt.Println("| module | tests | bugs | incomplete | failed or errors | stdbg test | go test -race | complete | stdbg test on them | go test -race on them | ratio | CPU ratio | load |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, m := range modules {
		if !sel.MatchString(m.name) {
			continue
		}
		dir, err := fetch(m, *local, work)
		if err != nil {
			fmt.Printf("| %s %s | error: %s ||||||||||| %s |\n", m.path, m.version, oneLine(err.Error()), loadavg.Read(1))
			continue
		}
		goTime, goOK := timed(command(dir, "go", "test", "-race", "-count=1", "./..."))
		c, out, stdbgTime := stdbgTest(*stdbg, dir, *budget, "")
		if *events != "" {
			if err := os.MkdirAll(*events, 0o755); err != nil {
				fail(err)
			}
			if err := os.WriteFile(filepath.Join(*events, m.name+".json"), out, 0o644); err != nil {
				fail(err)
			}
		}
		mark := ""
		if !goOK {
			mark = " (fails)"
		}
		rest := " | | | | |"
		if names := c.completed(); *complete && len(names) > 0 {
			run := "^(" + strings.Join(names, "|") + ")$"
			goBefore, _ := timed(command(dir, "go", "test", "-race", "-count=1", "-run", run, "./..."))
			_, _, stdbgAgain := stdbgTest(*stdbg, dir, *budget, run)
			goAfter, _ := timed(command(dir, "go", "test", "-race", "-count=1", "-run", run, "./..."))
			goWall, goCPU := (goBefore.wall+goAfter.wall)/2, (goBefore.cpu+goAfter.cpu)/2
			rest = fmt.Sprintf(" %d | %s | %s, %s | %.1fx | %.1fx |", len(names), stdbgAgain, goBefore, goAfter,
				stdbgAgain.wall.Seconds()/goWall.Seconds(), stdbgAgain.cpu.Seconds()/goCPU.Seconds())
		}
		fmt.Printf("| %s %s | %d | %d | %d | %d | %s | %s%s |%s %s |\n", m.path, m.version, c.tests, c.bugs, c.incomplete, c.failed,
			stdbgTime, goTime, mark, rest, loadavg.Read(1))
	}
}

// fetch returns a writable copy of the module's source.
func fetch(m module, local, work string) (string, error) {
	src := filepath.Join(local, m.name)
	if local == "" {
		out, err := command(work, "go", "mod", "download", "-json", m.path+"@"+m.version).Output()
		if err != nil {
			return "", fmt.Errorf("go mod download %s@%s: %v", m.path, m.version, err)
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return "", fmt.Errorf("go mod download %s@%s: %s", m.path, m.version, info.Error)
		}
		src = info.Dir
	}
	dst := filepath.Join(work, m.name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return "", err
	}
	// A module from before modules (go-cache, +incompatible) has no
	// go.mod: the go command needs one to test it as the main module.
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte("module "+m.path+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	// The module's requirements (through the proxy, or the module cache).
	if out, err := command(dst, "go", "mod", "download").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go mod download in %s: %v: %s", m.name, err, out)
	}
	return dst, nil
}

// counts are what stdbg test said of a module's tests.
type counts struct {
	tests, bugs, incomplete, failed int
	// status holds each test's statuses, by name (a name may be a test's
	// in several packages).
	status map[string][]string
}

// completed are the names of the tests whose searches completed (in every
// package that has a test of that name), sorted.
func (c counts) completed() []string {
	var names []string
	for name, sts := range c.status {
		if !slices.Contains(sts, "incomplete") && !slices.Contains(sts, "unjudged") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// status is the first word of a test's line in stdbg test's output, and
// the test's name.
var status = regexp.MustCompile(`^(ok|BUG|incomplete|unjudged|SKIP|FAIL|ERROR) +(Test\S*)`)

// stdbgTest runs stdbg test -json on the module (on the tests that run
// selects, "": all) and counts its tests' statuses; it returns the events
// too.
func stdbgTest(stdbg, dir string, budget time.Duration, run string) (counts, []byte, took) {
	args := []string{"test", "--no-save", "--budget", budget.String(), "-count=1", "-json"}
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := command(dir, stdbg, append(args, "./...")...)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	cmd.Run() // its exit status says a bug: the events say which
	spent := tookBy(cmd, start)
	c := counts{status: map[string][]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action != "output" || e.Test == "" {
			continue
		}
		m := status.FindStringSubmatch(e.Output)
		if m == nil {
			continue
		}
		c.tests++
		c.status[m[2]] = append(c.status[m[2]], m[1])
		switch m[1] {
		case "BUG":
			c.bugs++
		case "incomplete", "unjudged":
			// (A test stdbg cannot judge is counted with the searches
			// that did not cover everything.)
			c.incomplete++
		case "FAIL", "ERROR":
			c.failed++
		}
	}
	return c, out.Bytes(), spent
}

func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	return cmd
}

// timed runs cmd, discarding its output, and returns how long it took and
// whether it succeeded.
func timed(cmd *exec.Cmd) (took, bool) {
	start := time.Now()
	err := cmd.Run()
	return tookBy(cmd, start), err == nil
}

// took is how long a command took: its wall time, and the CPU time (user
// and system) of it and the children it waited for.
type took struct{ wall, cpu time.Duration }

// tookBy is what cmd, started at start and ended, took.
func tookBy(cmd *exec.Cmd, start time.Time) took {
	t := took{wall: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		t.cpu = ps.UserTime() + ps.SystemTime()
	}
	return t
}

func (t took) String() string {
	return fmt.Sprintf("%.1f s (%.1f s CPU)", t.wall.Seconds(), t.cpu.Seconds())
}

func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "realmods:", err)
	os.Exit(2)
}
