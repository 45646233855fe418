package sarif_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/internal/testkit/sarifschema"
	"github.com/stdbg/stdbg/output/sarif"
)

func loc(file string, line int, src string) report.Location {
	return report.Location{Func: "f", File: file, Line: line, Source: src}
}

// deadlock is the deadly embrace's report, as find builds it.
var deadlock = &report.Report{Kind: "deadlock", Bug: true, Banner: "*** DEADLOCK DETECTED ***",
	Message: "no thread can go on: threads 1, 2 are blocked", Path: "1;1;2",
	Steps: []report.Step{
		{N: 1, Thread: 1, Call: "pthread_create -> thread 2", Where: loc("/repo/embrace.c", 26, "pthread_create(&t, NULL, worker, NULL);")},
		{N: 2, Thread: 1, Call: "pthread_mutex_lock(first)", Where: loc("/repo/embrace.c", 28, "pthread_mutex_lock(&first);")},
		{N: 3, Thread: 2, Call: "pthread_mutex_lock(second)", Where: loc("/repo/embrace.c", 14, "pthread_mutex_lock(&second);")},
	},
	Waits: []report.Wait{
		{Thread: 1, Text: "waits in pthread_mutex_lock for second (held by thread 2)", Where: loc("/repo/embrace.c", 29, "")},
		{Thread: 2, Text: "waits in pthread_mutex_lock for first (held by thread 1)", Where: loc("/repo/embrace.c", 15, "")},
	},
	Replay: "stdbg replay testdata/stdbg/embrace.c/deadlock-1.json"}

func TestLogIsValidSARIF(t *testing.T) {
	assertion := &report.Report{Kind: "assertion", Bug: true, Banner: "*** PROPERTY NOT VALID: ASSERTION FAILED ***",
		Message: "assertion `x == 2' failed", Path: "1;2;2",
		Steps:   []report.Step{{N: 1, Thread: 1, Call: "go -> thread 2", Where: loc("/elsewhere/x.go", 3, "go f()")}},
		Failure: &report.Where{Thread: 2, Where: loc("/repo/pkg/x y.go", 9, "assert(x == 2)")}}
	lasso := &report.Report{Kind: "livelock", Bug: true, Banner: "*** LIVELOCK: NO PROGRESS ***", Path: "1", Cycle: "2;1", CycleStart: 2,
		Steps: []report.Step{{N: 1, Thread: 1, Call: "yield"}, {N: 2, Thread: 2, Call: "yield"}, {N: 3, Thread: 1, Call: "yield"}}}
	clean := &report.Report{Kind: "exited", Banner: "No property violation found."}
	tests := []struct {
		name    string
		reports []*report.Report
		opts    sarif.Options
		results int
	}{
		{"no bug", nil, sarif.Options{ToolVersion: "0.1.0"}, 0},
		{"a clean report is not a result", []*report.Report{clean}, sarif.Options{}, 0},
		{"deadlock", []*report.Report{deadlock}, sarif.Options{ToolVersion: "0.1.0", Base: "/repo"}, 1},
		{"three kinds", []*report.Report{deadlock, assertion, lasso}, sarif.Options{Base: "/repo"}, 3},
		{"problems", []*report.Report{deadlock}, sarif.Options{Problems: []string{"x.json: corrupt"}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := sarif.New(tc.reports, tc.opts).JSON()
			if err != nil {
				t.Fatal(err)
			}
			if err := sarifschema.Validate(b); err != nil {
				t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, b)
			}
			var l sarif.Log
			if err := json.Unmarshal(b, &l); err != nil {
				t.Fatal(err)
			}
			if got := len(l.Runs[0].Results); got != tc.results {
				t.Errorf("%d results, want %d", got, tc.results)
			}
		})
	}
}

// The deadlock is shown at the first wait, relative to the base, with one
// thread flow per thread in the order the schedule ran them.
func TestDeadlockResult(t *testing.T) {
	l := sarif.New([]*report.Report{deadlock}, sarif.Options{Base: "/repo"})
	r := l.Runs[0].Results[0]
	p := r.Locations[0].Physical
	if r.RuleID != "deadlock" || l.Runs[0].Tool.Driver.Rules[r.RuleIndex].ID != "deadlock" || p.Artifact.URI != "embrace.c" ||
		p.Artifact.URIBaseID != "SRCROOT" || p.Region.StartLine != 29 || !strings.Contains(r.Message.Text, "Path = 1;1;2") {
		t.Fatalf("result %+v at %+v", r, p)
	}
	flows := r.CodeFlows[0].ThreadFlows
	if len(flows) != 2 || flows[0].ID != "thread 1" || flows[1].ID != "thread 2" {
		t.Fatalf("thread flows %+v", flows)
	}
	var order []string
	for _, f := range flows {
		for _, fl := range f.Locations {
			order = append(order, fmt.Sprintf("%d:%s:%d", fl.ExecutionOrder, f.ID, fl.Location.Physical.Region.StartLine))
		}
	}
	want := "1:thread 1:26 2:thread 1:28 4:thread 1:29 3:thread 2:14 5:thread 2:15"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("flow locations %s, want %s", got, want)
	}
}

// The validator bites: a log without its version is refused.
func TestValidatorRefusesInvalid(t *testing.T) {
	b, _ := sarif.New([]*report.Report{deadlock}, sarif.Options{}).JSON()
	bad := strings.Replace(string(b), `"version": "2.1.0"`, `"version": "2.0"`, 1)
	if err := sarifschema.Validate([]byte(bad)); err == nil {
		t.Fatal("a log of version 2.0 passed as SARIF 2.1.0")
	}
}

// Example writes the SARIF log of one deadlock.
func Example() {
	r := &report.Report{Kind: "deadlock", Bug: true, Banner: "*** DEADLOCK DETECTED ***", Path: "1;2",
		Message: "no thread can go on",
		Waits:   []report.Wait{{Thread: 1, Text: "waits for b", Where: report.Location{File: "/src/main.c", Line: 7}}}}
	log := sarif.New([]*report.Report{r}, sarif.Options{ToolVersion: "0.1.0", Base: "/src"})
	res := log.Runs[0].Results[0]
	fmt.Println(res.RuleID, res.Locations[0].Physical.Artifact.URI, res.Locations[0].Physical.Region.StartLine)
	// Output: deadlock main.c 7
}
