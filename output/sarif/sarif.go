// Package sarif writes stdbg's bug reports as a SARIF 2.1.0 log (the OASIS
// Static Analysis Results Interchange Format), the format code-scanning
// services and editors read: one result per bug, at the line where it
// shows (the failing statement, or the first blocked thread's wait), with
// one code flow per bug whose thread flows hold every step of the schedule
// in the order it ran (executionOrder), so that a viewer shows the
// interleaving thread by thread.
//
// Paths under the base directory (the repository root, usually the
// current directory) are written relative to it, under the uriBaseId
// SRCROOT, as code-scanning services expect; others as file:// URIs.
package sarif

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stdbg/stdbg/engine/report"
)

// Version is the SARIF version written.
const Version = "2.1.0"

// SchemaURI is the official schema of that version.
const SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Log is a SARIF log: the top-level document.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of the tool.
type Run struct {
	Tool               Tool                   `json:"tool"`
	OriginalURIBaseIDs map[string]ArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []Result               `json:"results"`
	Invocations        []Invocation           `json:"invocations,omitempty"`
}

// Tool describes stdbg and the kinds of bug it reports.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool component.
type Driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules"`
}

// Rule is one kind of bug.
type Rule struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	ShortDescription Message `json:"shortDescription"`
	FullDescription  Message `json:"fullDescription"`
	Help             Message `json:"help"`
	DefaultConfig    Config  `json:"defaultConfiguration"`
}

// Config is a rule's default configuration.
type Config struct {
	Level string `json:"level"`
}

// Message is a plain-text message.
type Message struct {
	Text string `json:"text"`
}

// Result is one bug.
type Result struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations,omitempty"`
	CodeFlows           []CodeFlow        `json:"codeFlows,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

// Location is a place in the source, with an optional message.
type Location struct {
	Physical *Physical `json:"physicalLocation,omitempty"`
	Message  *Message  `json:"message,omitempty"`
}

// Physical is a file and a region of it.
type Physical struct {
	Artifact ArtifactLoc `json:"artifactLocation"`
	Region   *Region     `json:"region,omitempty"`
}

// ArtifactLoc names a file.
type ArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// Region is a line of a file.
type Region struct {
	StartLine int      `json:"startLine"`
	Snippet   *Message `json:"snippet,omitempty"`
}

// CodeFlow is the schedule of one bug.
type CodeFlow struct {
	Message     Message      `json:"message"`
	ThreadFlows []ThreadFlow `json:"threadFlows"`
}

// ThreadFlow is what one thread did in the schedule.
type ThreadFlow struct {
	ID        string         `json:"id"`
	Message   Message        `json:"message"`
	Locations []FlowLocation `json:"locations"`
}

// FlowLocation is one step of a thread; ExecutionOrder orders the steps of
// all threads.
type FlowLocation struct {
	Location       Location `json:"location"`
	ExecutionOrder int      `json:"executionOrder"`
	Importance     string   `json:"importance"`
}

// Invocation says whether the run went well, with notifications for the
// inputs that could not be judged (a corrupt corpus entry).
type Invocation struct {
	Successful    bool           `json:"executionSuccessful"`
	Notifications []Notification `json:"toolExecutionNotifications,omitempty"`
}

// Notification is a problem of the run itself.
type Notification struct {
	Level   string  `json:"level"`
	Message Message `json:"message"`
}

// Options are what a log needs besides the reports.
type Options struct {
	// ToolVersion is stdbg's version.
	ToolVersion string
	// Base is the directory paths are made relative to (absolute).
	Base string
	// Problems are inputs that could not be judged, as one-line texts.
	Problems []string
}

// rules are the kinds of bug, by the report's kind.
var rules = []struct{ kind, name, short, full string }{
	{"deadlock", "Deadlock", "Threads wait for each other forever",
		"In some schedule every live thread waits for something (a lock, a condition, a join, a channel) that no thread can give."},
	{"leak", "ThreadLeak", "Threads left blocked forever when the program ends",
		"The program ended (or the checked function returned) while threads were still blocked, with nothing left that could wake them."},
	{"assertion", "AssertionFailure", "An assertion or check of the program fails",
		"In some schedule an assertion of the program (assert, a failed check, a panic) does not hold."},
	{"crash", "Crash", "The program crashes",
		"In some schedule the program is killed by a signal or a fatal runtime error."},
	{"misuse", "ThreadAPIMisuse", "The thread API is used wrongly",
		"In some schedule the program uses a thread primitive wrongly (unlocking a lock it does not hold, destroying a lock in use, ...)."},
	{"livelock", "Livelock", "Threads run forever without progress",
		"A fair cycle of states in which the threads keep running but the program never makes progress."},
	{"timeout", "TransitionTimeout", "A thread runs too long between two thread operations",
		"A thread ran longer than the transition timeout without reaching a thread operation: an endless loop, or a wait stdbg does not see."},
	{"liveness", "LivenessViolation", "A temporal property does not hold",
		"A fair run of the program, as a lasso, on which the LTL formula checked does not hold."},
	{"data-race", "DataRace", "Two threads access the same memory unordered",
		"Two accesses to the same memory, at least one a write, that nothing orders."},
}

// ruleIndex returns the index of the rule of kind, adding a rule for a
// kind not listed.
func ruleIndex(ruleSet *[]Rule, kind string) int {
	for i, r := range *ruleSet {
		if r.ID == kind {
			return i
		}
	}
	*ruleSet = append(*ruleSet, Rule{ID: kind, Name: kind, ShortDescription: Message{kind}, FullDescription: Message{kind},
		Help: Message{"Replay the schedule with stdbg replay to see the failure."}, DefaultConfig: Config{"error"}})
	return len(*ruleSet) - 1
}

// New builds the log of the given bug reports (reports that are not bugs
// are left out).
func New(reports []*report.Report, o Options) *Log {
	var rs []Rule
	for _, r := range rules {
		rs = append(rs, Rule{ID: r.kind, Name: r.name, ShortDescription: Message{r.short}, FullDescription: Message{r.full},
			Help:          Message{"stdbg prints the schedule that shows it; stdbg replay runs that schedule again, natively, under GDB (--gdb) or Delve (--dlv)."},
			DefaultConfig: Config{"error"}})
	}
	run := Run{Results: []Result{}}
	if o.Base != "" {
		run.OriginalURIBaseIDs = map[string]ArtifactLoc{"SRCROOT": {URI: fileURI(o.Base, true)}}
	}
	for _, r := range reports {
		if r == nil || !r.Bug {
			continue
		}
		run.Results = append(run.Results, result(r, ruleIndex(&rs, r.Kind), o.Base))
	}
	run.Tool = Tool{Driver: Driver{Name: "stdbg", Version: o.ToolVersion, InformationURI: "https://github.com/stdbg/stdbg", Rules: rs}}
	inv := Invocation{Successful: len(o.Problems) == 0}
	for _, p := range o.Problems {
		inv.Notifications = append(inv.Notifications, Notification{Level: "error", Message: Message{p}})
	}
	run.Invocations = []Invocation{inv}
	return &Log{Schema: SchemaURI, Version: Version, Runs: []Run{run}}
}

// JSON renders the log.
func (l *Log) JSON() ([]byte, error) {
	return json.MarshalIndent(l, "", "  ")
}

// result is the SARIF result of one bug.
func result(r *report.Report, rule int, base string) Result {
	msg := r.Message
	if msg == "" {
		msg = strings.Trim(r.Banner, "* ")
	}
	text := fmt.Sprintf("%s: %s. Schedule: Path = %s", strings.Trim(r.Banner, "* "), msg, r.Path)
	if r.Cycle != "" {
		text += " (" + r.Cycle + ")*"
	}
	if r.Replay != "" {
		text += ". Replay: " + r.Replay
	}
	res := Result{RuleID: r.Kind, RuleIndex: rule, Level: "error", Message: Message{text},
		PartialFingerprints: map[string]string{"stdbgSchedule/v1": r.Kind + ":" + r.Path},
		Properties:          map[string]any{"schedule": r.Path}}
	if r.Replay != "" {
		res.Properties["replay"] = r.Replay
	}
	if r.Saved != "" {
		res.Properties["corpusEntry"] = r.Saved
	}
	if at, ok := primary(r); ok {
		if loc, ok := location(at, base, ""); ok {
			res.Locations = []Location{loc}
		}
	}
	if flow := codeFlow(r, base); len(flow.ThreadFlows) > 0 {
		res.CodeFlows = []CodeFlow{flow}
	}
	return res
}

// primary is where a bug shows: the failure, else the first wait, else
// the last step with a place.
func primary(r *report.Report) (report.Location, bool) {
	if r.Failure != nil && r.Failure.Where.File != "" {
		return r.Failure.Where, true
	}
	for _, w := range r.Waits {
		if w.Where.File != "" {
			return w.Where, true
		}
	}
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if r.Steps[i].Where.File != "" {
			return r.Steps[i].Where, true
		}
	}
	return report.Location{}, false
}

// codeFlow holds the schedule: one thread flow per thread, its steps
// numbered in the order they ran, then where each blocked thread waits and
// where the failing thread fails.
func codeFlow(r *report.Report, base string) CodeFlow {
	flows := map[int]*ThreadFlow{}
	order := 0
	add := func(thread int, at report.Location, text, importance string) {
		f := flows[thread]
		if f == nil {
			f = &ThreadFlow{ID: fmt.Sprintf("thread %d", thread), Message: Message{fmt.Sprintf("thread %d", thread)}}
			flows[thread] = f
		}
		order++
		loc, ok := location(at, base, text)
		if !ok {
			loc = Location{Message: &Message{text}}
		}
		f.Locations = append(f.Locations, FlowLocation{Location: loc, ExecutionOrder: order, Importance: importance})
	}
	for _, s := range r.Steps {
		text := fmt.Sprintf("step %d: thread %d %s", s.N, s.Thread, s.Call)
		if r.Cycle != "" && s.N >= r.CycleStart {
			text += " (in the cycle, repeated forever)"
		}
		add(s.Thread, s.Where, text, "important")
	}
	for _, w := range r.Waits {
		add(w.Thread, w.Where, fmt.Sprintf("thread %d %s", w.Thread, w.Text), "essential")
	}
	if f := r.Failure; f != nil {
		add(f.Thread, f.Where, fmt.Sprintf("thread %d fails: %s", f.Thread, r.Message), "essential")
	}
	ids := make([]int, 0, len(flows))
	for id := range flows {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	cf := CodeFlow{Message: Message{"Path = " + r.Path}}
	for _, id := range ids {
		cf.ThreadFlows = append(cf.ThreadFlows, *flows[id])
	}
	return cf
}

// location is the SARIF location of a source place, false when the place
// has no file and line.
func location(at report.Location, base, text string) (Location, bool) {
	if at.File == "" || at.Line <= 0 {
		return Location{}, false
	}
	art := ArtifactLoc{URI: fileURI(at.File, false)}
	if base != "" && filepath.IsAbs(at.File) {
		if rel, err := filepath.Rel(base, at.File); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			art = ArtifactLoc{URI: (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath(), URIBaseID: "SRCROOT"}
		}
	}
	reg := &Region{StartLine: at.Line}
	if at.Source != "" {
		reg.Snippet = &Message{at.Source}
	}
	loc := Location{Physical: &Physical{Artifact: art, Region: reg}}
	if text != "" {
		loc.Message = &Message{text}
	}
	return loc, true
}

// fileURI renders a path as a URI: file:// for an absolute path (a
// directory ends with a slash), the escaped relative path otherwise.
func fileURI(p string, dir bool) string {
	p = filepath.ToSlash(p)
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	if strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).EscapedPath()
}
