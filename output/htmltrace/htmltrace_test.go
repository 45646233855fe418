package htmltrace_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/output/htmltrace"
)

func TestPage(t *testing.T) {
	deadlock := &report.Report{Kind: "deadlock", Bug: true, Banner: "*** DEADLOCK DETECTED ***", Path: "1;2",
		Message: `threads <script>alert(1)</script> blocked`,
		Steps:   []report.Step{{N: 1, Thread: 1, Call: "lock(a)"}, {N: 2, Thread: 3, Call: "lock(b)"}},
		Waits: []report.Wait{
			{Thread: 1, Text: "waits for b (held by thread 3)"},
			{Thread: 3, Text: "waits for a", Holders: []int{1}},
		}}
	lasso := &report.Report{Kind: "livelock", Bug: true, Banner: "*** LIVELOCK: NO PROGRESS ***", Path: "1", Cycle: "2;1", CycleStart: 2,
		Steps: []report.Step{{N: 1, Thread: 1, Call: "yield"}, {N: 2, Thread: 2, Call: "yield"}, {N: 3, Thread: 1, Call: "yield"}}}
	crash := &report.Report{Kind: "crash", Bug: true, Banner: "*** CRASH IN THE PROGRAM ***", Path: "1", Message: "SIGSEGV",
		Steps:   []report.Step{{N: 1, Thread: 1, Call: "pthread_create -> thread 2"}},
		Failure: &report.Where{Thread: 2}, Stack: []report.Frame{{Func: "worker", File: "w.c", Line: 9, User: true}, {Func: "start_thread", Module: "libc.so.6"}}}
	// A deadlock of every kind of wait: main joins thread 2, which waits
	// for a lock thread 3 holds; thread 3 waits on a condition variable
	// that only thread 2 could signal.
	kinds := &report.Report{Kind: "deadlock", Bug: true, Banner: "*** DEADLOCK DETECTED ***", Path: "1;2;3",
		Steps: []report.Step{{N: 1, Thread: 1, Call: "pthread_create -> thread 2"}},
		Waits: []report.Wait{
			{Thread: 1, Text: "waits in pthread_join for thread 2 to exit"},
			{Thread: 2, Text: "waits in pthread_mutex_lock for b.lock (held by thread 3)"},
			{Thread: 3, Text: "waits on b.not_empty with b.lock released (never signalled)"},
		}}
	// A leak: the waiter has nobody left to signal it.
	leak := &report.Report{Kind: "leak", Bug: true, Banner: "*** THREADS LEFT BLOCKED ***", Path: "1",
		Steps: []report.Step{{N: 1, Thread: 1, Call: "go"}},
		Waits: []report.Wait{{Thread: 2, Text: "waits in Chan.Recv for jobs (no sender)"}}}
	tests := []struct {
		name   string
		r      *report.Report
		want   []string
		absent []string
	}{
		{"every kind of wait", kinds, []string{
			`class="edge" data-from="1" data-to="2"`, `class="edge" data-from="2" data-to="3"`,
			`class="edge could" data-from="3" data-to="1"`, `class="edge could" data-from="3" data-to="2"`,
			"<title>waits in pthread_join for thread 2 to exit</title>", "Written by stdbg test.",
		}, []string{`data-from="3" data-to="3"`}},
		{"nobody left", leak, []string{`class="edge could" data-from="2" data-to="0"`, ">nobody</text>"}, nil},
		{"deadlock", deadlock, []string{
			`<th class="lane" data-thread="1">thread 1</th><th class="lane" data-thread="3">thread 3</th>`,
			`data-from="1" data-to="3"`, `data-from="3" data-to="1"`, "threads &lt;script&gt;alert(1)&lt;/script&gt; blocked",
		}, []string{"<script>alert(1)"}},
		{"lasso", lasso, []string{`<tr class="cycle-start">`, `<tr class="step in-cycle" data-step="2">`, `<tr class="step in-cycle" data-step="3">`,
			`<tr class="step" data-step="1">`, "Path = 1 (2;1)*"}, []string{`class="waits-for"`}},
		{"crash", crash, []string{`<tr class="failure">`, "crashes: SIGSEGV", "Stack of thread 2", "<li>worker (w.c:9)</li>", `<li class="sys">start_thread (libc.so.6)</li>`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := htmltrace.Write(&b, []*report.Report{tc.r}, htmltrace.Options{Title: "prog", Version: "test"}); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(page, w) {
					t.Errorf("page holds %q", w)
				}
			}
		})
	}
}

// TestFooterWithoutVersion: a page written without a version says so
// without a gap ("Written by stdbg ." was).
func TestFooterWithoutVersion(t *testing.T) {
	var b bytes.Buffer
	if err := htmltrace.Write(&b, nil, htmltrace.Options{Title: "prog"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<footer>Written by stdbg.</footer>") {
		t.Errorf("footer: %s", b.String()[strings.Index(b.String(), "<footer>"):])
	}
}

// Example renders the page of a two-thread deadlock.
func Example() {
	r := &report.Report{Kind: "deadlock", Bug: true, Banner: "*** DEADLOCK DETECTED ***", Path: "1;2",
		Steps: []report.Step{{N: 1, Thread: 1, Call: "lock(a)"}, {N: 2, Thread: 2, Call: "lock(b)"}},
		Waits: []report.Wait{{Thread: 1, Text: "waits for b", Holders: []int{2}}, {Thread: 2, Text: "waits for a", Holders: []int{1}}}}
	var b bytes.Buffer
	if err := htmltrace.Write(&b, []*report.Report{r}, htmltrace.Options{Title: "example"}); err != nil {
		fmt.Println(err)
	}
	fmt.Println(strings.Count(b.String(), `<th class="lane"`), "lanes,", strings.Count(b.String(), `<tr class="step"`), "steps")
	// Output: 2 lanes, 2 steps
}
