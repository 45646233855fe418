package gotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/engine/report"
)

// This file writes what a run found, as go test writes it: a line per
// test, a line per package and, without -json, a summary; or with -json
// the event stream of go test -json (test2json's TestEvent objects), for
// the tools that read it (gotestsum, go-junit-report, CI annotations).
// Packages are written in the order the patterns listed them, each as a
// whole: the output of a package explored while an earlier one is under
// way waits for it.

// event is one of test2json's TestEvent objects, its fields in the same
// order; Time is left out of cached results.
type event struct {
	Time        *time.Time `json:",omitempty"`
	Action      string
	Package     string   `json:",omitempty"`
	Test        string   `json:",omitempty"`
	Elapsed     *float64 `json:",omitempty"`
	Output      string   `json:",omitempty"`
	FailedBuild string   `json:",omitempty"`
}

// The statuses of a test.
const (
	statusOK         = "ok"         // the search found no bug, and covered what it had to
	statusBug        = "BUG"        // the search found a bug
	statusIncomplete = "incomplete" // no bug in what the search covered, but it did not cover all
	statusUnjudged   = "unjudged"   // stdbg cannot judge the test: code it does not control decides (the detail says why)
	statusSkip       = "SKIP"       // the test skipped itself (t.Skip)
	statusFail       = "FAIL"       // the test fails as go test runs it, though no schedule explored failed
	statusError      = "ERROR"      // stdbg could not search the test
)

// A result is what became of one test.
type result struct {
	Name    string
	Status  string
	Elapsed time.Duration
	// Detail follows the status line's name; Lines are shown below it,
	// indented (a bug's report, a failure's output).
	Detail string
	Lines  []string
	// Cached: the result of an earlier run with the same inputs.
	Cached bool `json:"-"`
	// bugs are the reports of a BUG.
	bugs []*report.Report
	// pending, until the test has run as go test runs it, is what its
	// result waits for (its search found no bug); native is what it
	// printed then, shown with -v and -json.
	pending *pending
	native  []string
}

// failed reports whether the result fails its package.
func (r *result) failed() bool {
	return r.Status == statusBug || r.Status == statusFail || r.Status == statusError
}

// printer writes packages' output to w in the order of their indexes.
type printer struct {
	w       io.Writer
	json    bool
	verbose bool

	mu   sync.Mutex
	head int // the package whose output goes straight to w
	bufs map[int]*bytes.Buffer
	done map[int]bool
}

func newPrinter(w io.Writer, jsonOut, verbose bool) *printer {
	return &printer{w: w, json: jsonOut, verbose: verbose, bufs: map[int]*bytes.Buffer{}, done: map[int]bool{}}
}

// write writes b as package i's output.
func (p *printer) write(i int, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i == p.head {
		p.w.Write(b)
		return
	}
	if p.bufs[i] == nil {
		p.bufs[i] = &bytes.Buffer{}
	}
	p.bufs[i].Write(b)
}

// finish ends package i's output, and writes that of the packages after it
// that waited.
func (p *printer) finish(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[i] = true
	for p.done[p.head] {
		p.head++
		if b := p.bufs[p.head]; b != nil {
			p.w.Write(b.Bytes())
			delete(p.bufs, p.head)
		}
	}
}

// pkgOut is the output of one package.
type pkgOut struct {
	p     *printer
	index int
	path  string
}

func (o *pkgOut) emit(e event, cached bool) {
	if !cached {
		now := time.Now()
		e.Time = &now
	}
	e.Package = o.path
	b, _ := json.Marshal(e)
	o.p.write(o.index, append(b, '\n'))
}

// line writes one line of output, of test (or of the package when "").
func (o *pkgOut) line(test, text string, cached bool) {
	if o.p.json {
		o.emit(event{Action: "output", Test: test, Output: text + "\n"}, cached)
		return
	}
	o.p.write(o.index, []byte(text+"\n"))
}

// start says that the package's tests begin.
func (o *pkgOut) start() {
	if o.p.json {
		o.emit(event{Action: "start"}, false)
	}
}

// run says that test begins.
func (o *pkgOut) run(test string, cached bool) {
	if o.p.json {
		o.emit(event{Action: "run", Test: test}, cached)
	}
	if o.p.json || o.p.verbose {
		o.line(test, "=== RUN   "+test, cached)
	}
}

// output writes lines a test printed (its output under go test), shown
// with -v or -json.
func (o *pkgOut) output(test string, lines []string) {
	if !o.p.json && !o.p.verbose {
		return
	}
	for _, l := range lines {
		o.line(test, l, false)
	}
}

// result writes a test's result: its status line and the lines below it,
// then in JSON its pass, fail or skip.
func (o *pkgOut) result(r *result) {
	o.output(r.Name, r.native)
	took := fmt.Sprintf("(%.2fs)", r.Elapsed.Seconds())
	if r.Cached {
		took = "(cached)"
	}
	head := fmt.Sprintf("%-10s %s %s", r.Status, r.Name, took)
	if r.Detail != "" {
		head += ": " + r.Detail
	}
	o.line(r.Name, head, r.Cached)
	for _, l := range r.Lines {
		for _, part := range strings.Split(strings.TrimRight(l, "\n"), "\n") {
			o.line(r.Name, "    "+part, r.Cached)
		}
	}
	if o.p.json {
		action := "pass"
		switch {
		case r.failed():
			action = "fail"
		case r.Status == statusSkip:
			action = "skip"
		}
		secs := roundSeconds(r.Elapsed)
		o.emit(event{Action: action, Test: r.Name, Elapsed: &secs}, r.Cached)
	}
}

// end writes the package's line, as go test does ("ok  \tpath\t1.234s"),
// and in JSON its pass, fail or skip.
func (o *pkgOut) end(action, text string, elapsed time.Duration, failedBuild bool) {
	o.line("", text, false)
	if o.p.json {
		secs := roundSeconds(elapsed)
		e := event{Action: action, Elapsed: &secs}
		if failedBuild {
			e.FailedBuild = o.path
		}
		o.emit(e, false)
	}
	o.p.finish(o.index)
}

// roundSeconds is d in seconds, to the millisecond as go test gives it.
func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}
