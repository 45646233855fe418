package grade

import (
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/report"
)

// The exercises test the hints on real failures (grade_test.go); these
// tests pin down the source reading and the patterns on small reports,
// including the layouts and the near misses the exercises do not have.

func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		want      string // the guard's text
		guarded   bool
	}{
		{"while without braces", "void f(void)\n{\n\twhile (n == 0)\n\t\tpthread_cond_wait(&c, &m);\n}\n", 4, "while (n == 0)", true},
		{"if without braces", "void f(void)\n{\n\tif (n == 0)\n\t\tpthread_cond_wait(&c, &m);\n}\n", 4, "if (n == 0)", true},
		{"while block, unlock first", "void f(void)\n{\n\twhile (n == 0) {\n\t\tpthread_mutex_unlock(&m);\n\t\tpthread_cond_wait(&c, &m);\n\t}\n}\n", 5, "while (n == 0) {", true},
		{"brace on its own line", "void f(void)\n{\n    if (n == 0)\n    {\n        pthread_cond_wait(&c, &m);\n    }\n}\n", 5, "if (n == 0)", true},
		{"one line", "void f(void)\n{\n\tif (n == 0) pthread_cond_wait(&c, &m);\n}\n", 3, "if (n == 0) pthread_cond_wait(&c, &m);", true},
		{"comment between", "void f(void)\n{\n\twhile (!ready)\n\t\t/* wait for it */\n\t\tpthread_cond_wait(&c, &m);\n}\n", 5, "while (!ready)", true},
		{"unguarded", "void f(void)\n{\n\tpthread_mutex_lock(&m);\n\tpthread_cond_wait(&c, &m);\n}\n", 4, "void f(void)", false},
		{"go for loop", "func (q *Q) Take() int {\n\tq.mu.Lock()\n\tfor len(q.items) == 0 {\n\t\tq.cond.Wait()\n\t}\n", 4, "for len(q.items) == 0 {", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := src{"f.c": strings.Split(tc.src, "\n")}
			l := report.Location{File: "/x/f.c", Line: tc.line}
			if got, _ := s.guard(l); got != tc.want {
				t.Errorf("guard = %q, want %q", got, tc.want)
			}
			if got := guarded(s, l); got != tc.guarded {
				t.Errorf("guarded = %v, want %v", got, tc.guarded)
			}
		})
	}
}

func TestLocalSync(t *testing.T) {
	for _, tc := range []struct {
		name, file, src string
		want            string // the hint's line, "" for none
	}{
		{"C local mutex", "c.c", "void add(struct c *c)\n{\n\tpthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;\n\tpthread_mutex_lock(&lock);\n}\n", "c.c:3"},
		{"C static local", "c.c", "void add(struct c *c)\n{\n\tstatic pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;\n}\n", ""},
		{"C global", "c.c", "pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;\nvoid add(void)\n{\n\tpthread_mutex_lock(&lock);\n}\n", ""},
		{"C struct field", "c.c", "struct c {\n\tpthread_mutex_t lock;\n};\n", ""},
		{"Go local Once", "g.go", "package main\n\nfunc Config() *S {\n\tvar once sync.Once\n\tonce.Do(load)\n\treturn s\n}\n", "g.go:4"},
		{"Go local Mutex shared with goroutines", "g.go", "package main\n\nfunc Sum() {\n\tvar mu sync.Mutex\n\tgo func() {\n\t\tmu.Lock()\n\t}()\n}\n", ""},
		{"Go new Mutex", "g.go", "package main\n\nfunc Get() {\n\tmu := new(sync.Mutex)\n\tmu.Lock()\n}\n", "g.go:4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := src{tc.file: strings.Split(tc.src, "\n")}
			h := localSync(&report.Report{Kind: "data-race"}, s)
			got := ""
			if h != nil {
				got = h.Line
			}
			if got != tc.want {
				t.Errorf("hint at %q, want %q (%+v)", got, tc.want, h)
			}
		})
	}
	s := src{"c.c": strings.Split("void add(void)\n{\n\tpthread_mutex_t lock;\n}\n", "\n")}
	if h := localSync(&report.Report{Kind: "deadlock"}, s); h != nil {
		t.Errorf("a hint on a deadlock: %+v", h)
	}
}

func step(n, th int, call, file string, line int) report.Step {
	return report.Step{N: n, Thread: th, Call: call, Where: report.Location{File: file, Line: line}}
}

// patternsOf returns the patterns recognise finds in r.
func patternsOf(r *report.Report, files map[string][]string) []string {
	var out []string
	for _, h := range recognise(r, files) {
		out = append(out, h.Pattern)
	}
	return out
}

func TestRecognise(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    report.Report
		want string // a pattern recognise must find, "" for none
	}{
		{
			name: "relock by a holder that returned early",
			r: report.Report{Kind: "misuse", Message: "relock of non-recursive mutex s->lock (self-deadlock)", Steps: []report.Step{
				step(1, 2, "pthread_mutex_lock(s)", "s.c", 3),
				step(2, 2, "pthread_mutex_lock(s)", "s.c", 9),
			}},
			want: PatternUnlockMissing,
		},
		{
			name: "signal without the mutex before the wait",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{
				step(1, 2, "pthread_mutex_lock(m)", "s.c", 3),
				step(2, 3, "pthread_cond_signal(c)", "s.c", 12),
				step(3, 2, "pthread_cond_wait(c, m) releases m", "s.c", 5),
			}, Waits: []report.Wait{{Thread: 2, Text: "waits on c with m released (never signalled)", Where: report.Location{File: "s.c", Line: 5}}}},
			want: PatternSignalNoLock,
		},
		{
			name: "signal with the mutex is no such mistake",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{
				step(1, 3, "pthread_mutex_lock(m)", "s.c", 11),
				step(2, 3, "pthread_cond_signal(c)", "s.c", 12),
				step(3, 3, "pthread_mutex_unlock(m)", "s.c", 13),
				step(4, 2, "pthread_mutex_lock(m)", "s.c", 3),
				step(5, 2, "pthread_cond_wait(c, m) releases m", "s.c", 5),
			}, Waits: []report.Wait{{Thread: 2, Text: "waits on c with m released (never signalled)", Where: report.Location{File: "s.c", Line: 5}}}},
		},
		{
			name: "woken, then the condition undone",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{
				step(1, 2, "pthread_cond_wait(c, m) releases m", "b.c", 8),
				step(2, 3, "pthread_cond_broadcast(c)", "b.c", 6),
				step(3, 3, "pthread_mutex_unlock(m)", "b.c", 10),
				step(4, 3, "pthread_mutex_lock(m)", "b.c", 3),
				step(5, 3, "pthread_cond_wait(c, m) releases m", "b.c", 8),
				step(6, 2, "pthread_cond_wait(c, m) wakes up, relocks m", "b.c", 8),
				step(7, 2, "pthread_cond_wait(c, m) releases m", "b.c", 8),
			}, Waits: []report.Wait{{Thread: 2, Text: "waits on c with m released (never signalled)", Where: report.Location{File: "b.c", Line: 8}}}},
			want: PatternStaleWake,
		},
		{
			name: "a waiter starved by a cycle",
			r: report.Report{Kind: "liveness", Cycle: "3;3", CycleStart: 3, Steps: []report.Step{
				step(1, 4, "pthread_mutex_lock(m)", "rw.c", 40),
				step(2, 4, "pthread_cond_wait(w, m) releases m", "rw.c", 44),
				step(3, 3, "pthread_mutex_lock(m)", "rw.c", 23),
				step(4, 3, "pthread_mutex_unlock(m)", "rw.c", 27),
			}},
			want: PatternStarved,
		},
		{
			name: "send to self",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{
				step(1, 2, "range Chan.All(links[i] [chan#1]) from thread 1", "r.go", 21),
				step(2, 2, "Chan.Send(links[i] [chan#1]) blocks", "r.go", 27),
			}, Waits: []report.Wait{{Thread: 2, Text: "waits in Chan.Send for links[i] [chan#1] (no receiver)", Where: report.Location{File: "r.go", Line: 27}}}},
			want: PatternSelfSend,
		},
		{
			name: "send to another goroutine that left is no send to self",
			r: report.Report{Kind: "deadlock", Steps: []report.Step{
				step(1, 3, "range Chan.All(links[i] [chan#1]) from thread 1", "r.go", 21),
				step(2, 2, "Chan.Send(links[i] [chan#1]) blocks", "r.go", 27),
			}, Waits: []report.Wait{{Thread: 2, Text: "waits in Chan.Send for links[i] [chan#1] (no receiver)", Where: report.Location{File: "r.go", Line: 27}}}},
			want: PatternNoCancel,
		},
		{
			name: "send on a closed channel",
			r: report.Report{Kind: "misuse", Message: "send on closed channel chan#2", Steps: []report.Step{
				step(1, 1, "Chan.Close(l [chan#1])", "r.go", 33),
				step(2, 1, "Chan.Close(l [chan#2])", "r.go", 33),
				step(3, 2, "Chan.Send(links[(i+1)%n] [chan#2])", "r.go", 27),
			}},
			want: PatternSendClosed,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := patternsOf(&tc.r, nil)
			switch {
			case tc.want == "" && slices.ContainsFunc(got, func(p string) bool {
				return p == PatternSignalNoLock || p == PatternStaleWake || p == PatternStarved
			}):
				t.Errorf("patterns %v, want none of the new ones", got)
			case tc.want != "" && !slices.Contains(got, tc.want):
				t.Errorf("patterns %v, want %s", got, tc.want)
			}
		})
	}
}
