package htmltrace_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/htmltrace"
	"github.com/stdbg/stdbg/report"
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
	tests := []struct {
		name   string
		r      *report.Report
		want   []string
		absent []string
	}{
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
