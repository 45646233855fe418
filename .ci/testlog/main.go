// Command testlog reads the events of go test -json on its standard input
// and writes what go test writes without -json (each package's result
// line, the output of the tests that fail), with two differences that CI
// needs: a package that go test's -timeout stopped is said in one line
// that names the tests it was running and for how long, instead of the
// panic and every goroutine's stack (those go to the file of -dump), and
// the packages that took longest are listed at the end, those over
// -budget marked. It exits 1 when a package or a test failed.
//
//	go test -json -timeout 20m ./... | go run ./.ci/testlog -budget 150s -dump timeouts.log
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of go test -json (test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// pkg is what testlog keeps of one package while its events come.
type pkg struct {
	name    string
	tests   map[string][]string // the output of each test under way
	timeout []string            // the panic of go test's -timeout, once it began
	elapsed float64
	done    bool
}

func main() {
	budget := flag.Duration("budget", 150*time.Second, "a package that takes longer is marked in the summary")
	dump := flag.String("dump", "", "write the panics of timed-out packages, every goroutine's stack, to this file")
	slowest := flag.Int("slowest", 10, "how many of the slowest packages the summary lists")
	flag.Parse()
	failed, err := run(os.Stdin, os.Stdout, *budget, *dump, *slowest)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// run reads the events from r and writes the log to w; failed reports a
// package or test that failed.
func run(r io.Reader, w io.Writer, budget time.Duration, dump string, slowest int) (failed bool, err error) {
	pkgs := map[string]*pkg{}
	get := func(name string) *pkg {
		p := pkgs[name]
		if p == nil {
			p = &pkg{name: name, tests: map[string][]string{}}
			pkgs[name] = p
		}
		return p
	}
	var dumps []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (go vet's or the build's messages): as is.
			fmt.Fprintln(w, string(line))
			continue
		}
		p := get(e.Package)
		switch {
		case e.Action == "output" && (p.timeout != nil || strings.HasPrefix(e.Output, "panic: test timed out after")):
			p.timeout = append(p.timeout, e.Output)
		case e.Action == "output" && e.Test != "":
			if !strings.HasPrefix(e.Output, "=== ") {
				p.tests[e.Test] = append(p.tests[e.Test], e.Output)
			}
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "output":
			if o := e.Output; o != "PASS\n" && o != "FAIL\n" && !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "--- ") {
				fmt.Fprint(w, o)
			}
		case e.Action == "fail" && e.Test != "":
			failed = true
			if p.timeout == nil {
				fmt.Fprint(w, strings.Join(p.tests[e.Test], ""))
			}
			delete(p.tests, e.Test)
		case (e.Action == "pass" || e.Action == "skip") && e.Test != "":
			delete(p.tests, e.Test)
		case e.Action == "fail" || e.Action == "pass" || e.Action == "skip":
			p.done, p.elapsed = true, e.Elapsed
			if e.Action == "fail" {
				failed = true
			}
			if p.timeout != nil {
				fmt.Fprintf(w, "FAIL\t%s\t%.1fs: %s\n", p.name, e.Elapsed, timedOut(p.timeout))
				dumps = append(dumps, strings.Join(p.timeout, ""))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	if dump != "" && len(dumps) > 0 {
		if err := os.WriteFile(dump, []byte(strings.Join(dumps, "\n")), 0o644); err != nil {
			return failed, err
		}
		fmt.Fprintf(w, "The stacks of the packages that timed out are in %s.\n", dump)
	}
	summary(w, pkgs, budget, slowest)
	return failed, nil
}

// timedOut says in one line what go test's -timeout panic says: the
// timeout and the tests it found running.
func timedOut(lines []string) string {
	head := strings.TrimSpace(strings.TrimPrefix(lines[0], "panic: "))
	var running []string
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		switch {
		case l == "running tests:":
			continue
		case l == "" || strings.HasPrefix(l, "goroutine "):
			if len(running) > 0 || strings.HasPrefix(l, "goroutine ") {
				return head + "; still running: " + strings.Join(running, ", ")
			}
		default:
			running = append(running, l)
		}
	}
	if len(running) > 0 {
		return head + "; still running: " + strings.Join(running, ", ")
	}
	return head
}

// summary lists the slowest packages, those over budget marked.
func summary(w io.Writer, pkgs map[string]*pkg, budget time.Duration, n int) {
	var done []*pkg
	for _, p := range pkgs {
		if p.done && p.elapsed > 0 {
			done = append(done, p)
		}
	}
	sort.Slice(done, func(i, j int) bool { return done[i].elapsed > done[j].elapsed })
	if len(done) > n {
		done = done[:n]
	}
	if len(done) == 0 {
		return
	}
	fmt.Fprintf(w, "Slowest packages (budget %s each):\n", budget)
	for _, p := range done {
		mark := ""
		if time.Duration(p.elapsed*float64(time.Second)) > budget {
			mark = "  over the budget"
		}
		fmt.Fprintf(w, "  %7.1fs  %s%s\n", p.elapsed, p.name, mark)
	}
}
