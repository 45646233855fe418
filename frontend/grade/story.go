package grade

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/frontend/session"
)

// This file tells a report for a student: the bug's class in plain words
// and its schedule as a story, built from the report's steps and waits.

// plain names each kind of bug and says what it means.
var plain = map[string][2]string{
	"deadlock": {"Deadlock", "Every thread that has not finished is waiting for something that only another waiting thread could give: the program is stuck for ever."},
	"leak":     {"Threads left blocked", "The program ended while some of its threads were still waiting for something that will never come: they are blocked for ever (a goroutine leak)."},
	"assertion": {"A check of the program failed",
		"In this schedule an assertion (or a test) of the program failed: the threads interleaved in a way your code does not handle."},
	"data-race": {"Data race", "Two threads access the same memory, at least one of them writing, and nothing (no lock, no channel, no wait) orders the accesses: the result depends on timing."},
	"misuse":    {"Misuse of a synchronisation primitive", "The program used a lock, a channel, a condition variable or a WaitGroup in a way the API forbids (unlocking a lock it does not hold, closing a closed channel, a negative WaitGroup counter, ...)."},
	"crash":     {"Crash", "The program crashed (a signal, a panic, or a resource limit of the grader) in this schedule."},
	"timeout":   {"Endless loop", "A thread ran for too long without reaching a thread operation: an endless loop, or a program that forks or allocates without end."},
	"livelock":  {"Livelock: no progress", "The threads can go on running for ever without making progress: a cycle of steps, fair to every thread, that never reaches the program's progress mark."},
	"liveness":  {"Progress property violated", "There is a run, fair to every thread, in which the property never holds: some thread waits for ever although others keep running (starvation)."},
}

// failure turns a report of a check into what the student reads.
func (g *grader) failure(c *Check, b *built, r *report.Report) Failure {
	if r.Kind == "data-race" && b.t.Go {
		rc := *r
		rc.Message = goRace(r.Message)
		r = &rc
	}
	words := plain[r.Kind]
	if words[0] == "" {
		words = [2]string{r.Kind, r.Message}
	}
	msg := r.Message
	if r.Kind == "data-race" && b.t.Go {
		msg = "data race: " + summary(r.Message)
	}
	f := Failure{Kind: r.Kind, Class: words[0], Explanation: words[1], Message: clip(b, msg),
		Schedule: schedText(r), Report: scrub(b, r)}
	f.Story = story(r, b.t.Go)
	f.Lines = sourceLines(f.Report, g.a.Submit)
	f.Hints = recognise(f.Report, g.sources(b))
	// Objects the report names by address (b+104) are named as the
	// source writes them (b->not_empty), in the text and on the page.
	html := r // with the sandbox's paths, whose sources the page shows
	if rn := renamer(r); rn != nil {
		f.Message = rn.Replace(f.Message)
		for i := range f.Story {
			f.Story[i] = rn.Replace(f.Story[i])
		}
		for i := range f.Hints {
			f.Hints[i].Text = rn.Replace(f.Hints[i].Text)
		}
		html = renamed(rn, r)
	}
	f.Replay, f.Debug = replayCommands(g.a, c, b.t, f.Schedule)
	f.page = page(c.Name, &f, html, g.version)
	return f
}

// renamed is a copy of r with its objects renamed by rn wherever the
// page shows them: the message, the steps' calls, the waits.
func renamed(rn *strings.Replacer, r *report.Report) *report.Report {
	c := *r
	c.Message = rn.Replace(r.Message)
	c.Steps = append([]report.Step(nil), r.Steps...)
	for i := range c.Steps {
		c.Steps[i].Call = rn.Replace(c.Steps[i].Call)
	}
	c.Waits = append([]report.Wait(nil), r.Waits...)
	for i := range c.Waits {
		c.Waits[i].Text = rn.Replace(c.Waits[i].Text)
	}
	return &c
}

// renamer maps the names the report gives objects by address ("b+104",
// "mutex#1") to the expressions the source passes at the steps that use
// them ("b->not_empty"), nil when there are none. An expression that
// stands for several objects (forks[i] in a loop) names each with the
// report's name too ("forks[i] (mutex#2)"), so that they stay apart.
func renamer(r *report.Report) *strings.Replacer {
	names := map[string]string{}
	for _, st := range r.Steps {
		c := parseCall(st.Call)
		if len(c.args) == 0 || st.Where.Source == "" {
			continue
		}
		i := strings.Index(st.Where.Source, c.fn+"(")
		if i < 0 {
			continue
		}
		sc := parseCall(st.Where.Source[i:])
		if len(sc.args) != len(c.args) {
			continue
		}
		for k, a := range c.args {
			if _, ok := names[a]; !ok && strings.ContainsAny(a, "+#") && sc.args[k] != "" && !strings.ContainsAny(sc.args[k], " ()") {
				names[a] = sc.args[k]
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	objects := map[string]int{}
	for _, x := range names {
		objects[x]++
	}
	for a, x := range names {
		if objects[x] > 1 {
			names[a] = x + " (" + a + ")"
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	// Longer names first: b+1 must not replace inside b+104.
	sort.Slice(keys, func(i, j int) bool {
		return len(keys[i]) > len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
	})
	var pairs []string
	for _, k := range keys {
		pairs = append(pairs, k, names[k])
	}
	return strings.NewReplacer(pairs...)
}

var (
	raceAddr    = lazyre.New(`(?m)^((?:Previous )?(?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite)) at 0x[0-9a-f]+ by (?:goroutine \d+|main goroutine):$`)
	raceCreated = lazyre.New(`(?m)^Goroutine \d+ \((?:running|finished)\) created at:$`)
	sthreadLine = lazyre.New(`(?m)^  github\.com/stdbg/stdbg/sthread/.*\n\s+\S+:\d+ \+0x[0-9a-f]+\n`)
)

// goRace is a report of Go's race detector as a student reads it: the
// accesses without their addresses and the runtime's goroutine numbers
// (which are not the goroutines of the story, and change from one run to
// the next), and without the frames of stdbg's runtime.
func goRace(msg string) string {
	msg = raceAddr.ReplaceAllString(msg, "$1 by a goroutine:")
	msg = raceCreated.ReplaceAllString(msg, "That goroutine was created at:")
	return sthreadLine.ReplaceAllString(msg, "")
}

var (
	raceHead  = lazyre.New(`^(Previous )?((?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite)) by a goroutine:$`)
	raceFrame = lazyre.New(`^\s+(\S+\.go):(\d+)`)
)

// summary is a failure's message on one line: for a report of Go's race
// detector as goRace leaves it, its two accesses with their first lines
// ("a read at ring.go:28, and before it a write at ring.go:30, by two
// goroutines that nothing orders"), else report.Summary's.
func summary(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	var parts []string
	for i, l := range lines {
		m := raceHead.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		what := "a " + strings.ToLower(m[2])
		if strings.HasPrefix(what, "a atomic") {
			what = "an atomic" + what[len("a atomic"):]
		}
		for _, f := range lines[i+1:] {
			fm := raceFrame.FindStringSubmatch(f)
			if fm == nil && strings.TrimSpace(f) == "" {
				break
			}
			if fm != nil && !strings.Contains(fm[1], "/go/src/") {
				what += " at " + filepath.Base(fm[1]) + ":" + fm[2]
				break
			}
		}
		if m[1] != "" {
			what = "before it " + what
		}
		parts = append(parts, what)
	}
	if len(parts) == 2 {
		return parts[0] + ", and " + parts[1] + ", by two goroutines that nothing orders"
	}
	return report.Summary(msg)
}

// schedText is the schedule as stdbg replay --schedule takes it.
func schedText(r *report.Report) string {
	if r.Cycle != "" {
		return r.Path + " (" + r.Cycle + ")*"
	}
	return r.Path
}

// clip removes the sandbox's directory from a text.
func clip(b *built, s string) string {
	s = strings.ReplaceAll(s, b.dir+"/", "")
	return strings.ReplaceAll(s, b.run+"/", "")
}

// scrub is a copy of r with the sandbox's paths removed: the student's
// files are named as they named them.
func scrub(b *built, r *report.Report) *report.Report {
	c := *r
	c.Message = clip(b, r.Message)
	c.Replay, c.Saved = "", ""
	c.Steps = append([]report.Step(nil), r.Steps...)
	for i := range c.Steps {
		c.Steps[i].Where.File = clip(b, c.Steps[i].Where.File)
	}
	c.Waits = append([]report.Wait(nil), r.Waits...)
	for i := range c.Waits {
		c.Waits[i].Where.File = clip(b, c.Waits[i].Where.File)
		c.Waits[i].Text = clip(b, c.Waits[i].Text)
		if st := c.Waits[i].Started; st != nil {
			l := *st
			l.File = clip(b, l.File)
			c.Waits[i].Started = &l
		}
	}
	if r.Failure != nil {
		w := *r.Failure
		w.Where.File = clip(b, w.Where.File)
		c.Failure = &w
	}
	c.Stack = append([]report.Frame(nil), r.Stack...)
	for i := range c.Stack {
		c.Stack[i].File = clip(b, c.Stack[i].File)
	}
	return &c
}

// replayCommands are the commands that replay a failure in a directory
// holding the student's files and the check's harness.
func replayCommands(a *Assignment, c *Check, t *session.Target, sched string) (replay, debug string) {
	var target string
	switch {
	case a.Language == "go":
		target = "."
	case len(c.Harness) > 0:
		target = c.Harness[0]
	default:
		target = a.Submit[0]
	}
	parts := []string{"stdbg", "replay", "--schedule", session.ShellQuote(sched)}
	if c.Run != "" {
		parts = append(parts, "--run", session.ShellQuote(c.Run))
	}
	// The build the check searched: stdbg replay builds a C source with
	// the memory instrumentation (atomics are scheduling points) and a Go
	// package with the race detector unless told otherwise.
	switch {
	case c.wantsRace():
	case t.Go:
		parts = append(parts, "--races=false")
	default:
		parts = append(parts, "--memory=false")
	}
	parts = append(parts, target)
	if len(c.Args) > 0 {
		parts = append(parts, "--")
		for _, x := range c.Args {
			parts = append(parts, session.ShellQuote(x))
		}
	}
	replay = strings.Join(parts, " ")
	dbg := "--gdb"
	if t.Go {
		dbg = "--dlv"
	}
	debug = strings.Join(append(parts[:2:2], append([]string{dbg}, parts[2:]...)...), " ")
	return replay, debug
}

// call is a step's call split into its function, arguments and what
// follows them: "pthread_cond_wait(c, m) releases m" is
// ("pthread_cond_wait", ["c", "m"], "releases m").
type call struct {
	fn   string
	args []string
	rest string
}

func parseCall(s string) call {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		fn, rest, _ := strings.Cut(s, " ")
		return call{fn: fn, rest: rest}
	}
	depth, end := 0, -1
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && end < 0 {
				end = i
			}
		}
	}
	if end < 0 {
		return call{fn: s}
	}
	c := call{fn: strings.TrimSpace(s[:open]), rest: strings.TrimSpace(s[end+1:])}
	if in := strings.TrimSpace(s[open+1 : end]); in != "" {
		for _, a := range strings.Split(in, ",") {
			c.args = append(c.args, strings.TrimPrefix(strings.TrimSpace(a), "&"))
		}
	}
	return c
}

func (c call) arg(i int) string {
	if i < len(c.args) {
		return c.args[i]
	}
	return "?"
}

var threadRef = lazyre.New(`thread (\d+)`)

// phrase says what a step does, in words, without its subject; "" for a
// step not worth telling (a thread starting).
func phrase(s string, goroutines bool) string {
	who := "thread"
	if goroutines {
		who = "goroutine"
	}
	s = threadRef.ReplaceAllString(s, who+" $1")
	c := parseCall(s)
	fn := c.fn
	if i := strings.LastIndexByte(fn, '.'); i >= 0 && !strings.HasPrefix(fn, "Chan") {
		fn = fn[i+1:]
	}
	lower := strings.ToLower(c.fn)
	switch {
	case s == "thread starts" || s == "goroutine starts":
		return ""
	case s == "thread returns" || s == "goroutine returns" || c.fn == "pthread_exit" || c.fn == "thrd_exit":
		return "finishes"
	case strings.HasPrefix(s, "main returns") || s == "checked function returns":
		return "returns from main: the program ends"
	case strings.HasSuffix(lower, "_init") || strings.HasSuffix(lower, "_destroy"):
		return ""
	case strings.Contains(s, "-> "+who):
		_, n, _ := strings.Cut(s, "-> ")
		return "starts " + n
	case strings.Contains(lower, "cond_wait") || strings.Contains(lower, "cond_timedwait") || c.fn == "Cond.Wait" || c.fn == "cnd_wait":
		switch {
		case strings.Contains(c.rest, "spurious"):
			return fmt.Sprintf("waits on the condition %s and wakes up at once without being signalled (a spurious wake-up, which POSIX allows)", c.arg(0))
		case strings.Contains(c.rest, "wakes up") || strings.Contains(c.rest, "is signalled"):
			return fmt.Sprintf("is woken up on %s and takes the lock %s back", c.arg(0), c.arg(1))
		case strings.Contains(c.rest, "times out"):
			return fmt.Sprintf("stops waiting on %s (time out) and takes the lock back", c.arg(0))
		case len(c.args) < 2 && strings.Contains(c.rest, "releases"):
			m := strings.TrimSuffix(strings.TrimPrefix(c.rest, "releases "), " and waits")
			return fmt.Sprintf("releases the lock %s and waits on the condition %s", m, c.arg(0))
		}
		return fmt.Sprintf("releases the lock %s and waits on the condition %s", c.arg(1), c.arg(0))
	case strings.HasSuffix(lower, "cond_signal") || c.fn == "Cond.Signal" || c.fn == "cnd_signal":
		return fmt.Sprintf("signals %s (wakes one waiting thread, if any)", c.arg(0))
	case strings.HasSuffix(lower, "cond_broadcast") || c.fn == "Cond.Broadcast" || c.fn == "cnd_broadcast":
		return fmt.Sprintf("broadcasts on %s (wakes every waiting thread)", c.arg(0))
	case strings.HasSuffix(lower, "trylock"):
		if strings.Contains(c.rest, "EBUSY") || strings.Contains(c.rest, "false") {
			return fmt.Sprintf("tries to take the lock %s, which is busy", c.arg(0))
		}
		return fmt.Sprintf("takes the lock %s (trylock)", c.arg(0))
	case c.fn == "RWMutex.RLock" || strings.HasSuffix(lower, "rdlock"):
		return fmt.Sprintf("takes the lock %s for reading", c.arg(0))
	case c.fn == "RWMutex.RUnlock":
		return fmt.Sprintf("releases its read lock on %s", c.arg(0))
	case strings.HasSuffix(lower, "wrlock") || c.fn == "RWMutex.Lock" && !strings.Contains(c.rest, "announces"):
		return fmt.Sprintf("takes the lock %s for writing", c.arg(0))
	case c.fn == "RWMutex.Lock":
		return fmt.Sprintf("asks for the lock %s for writing (new readers must now wait)", c.arg(0))
	case strings.HasSuffix(lower, "_lock") || fn == "Lock" || c.fn == "mtx_lock":
		return fmt.Sprintf("takes the lock %s", c.arg(0))
	case strings.HasSuffix(lower, "unlock") || fn == "Unlock":
		return fmt.Sprintf("releases the lock %s", c.arg(0))
	case c.fn == "sem_wait" || c.fn == "sem_trywait" || c.fn == "sem_timedwait":
		return fmt.Sprintf("takes a unit of the semaphore %s (sem_wait)", c.arg(0))
	case c.fn == "sem_post":
		return fmt.Sprintf("gives back a unit of the semaphore %s (sem_post)", c.arg(0))
	case c.fn == "pthread_barrier_wait":
		if strings.Contains(c.rest, "released") {
			return fmt.Sprintf("leaves the barrier %s", c.arg(0))
		}
		return fmt.Sprintf("arrives at the barrier %s", c.arg(0))
	case c.fn == "pthread_join" || c.fn == "thrd_join":
		return fmt.Sprintf("waits for %s to finish", c.arg(0))
	case c.fn == "WaitGroup.Add":
		return fmt.Sprintf("adds %s to the WaitGroup %s", c.arg(1), c.arg(0))
	case c.fn == "WaitGroup.Done":
		return fmt.Sprintf("calls %s.Done()", c.arg(0))
	case c.fn == "WaitGroup.Wait":
		if strings.Contains(c.rest, "returns") {
			return fmt.Sprintf("calls %s.Wait(), which returns at once (the counter is zero)", c.arg(0))
		}
		return fmt.Sprintf("waits on the WaitGroup %s", c.arg(0))
	case c.fn == "Once.Do" || c.fn == "pthread_once" || c.fn == "call_once":
		if strings.Contains(c.rest, "runs") {
			return "runs the one-time initialisation"
		}
		return "finds the initialisation done"
	case c.fn == "Chan.Send":
		return chanPhrase("sends on", c)
	case c.fn == "Chan.Recv" || c.fn == "Chan.Recv2" || c.fn == "range Chan.All":
		return chanPhrase("receives from", c)
	case c.fn == "Chan.Close":
		return fmt.Sprintf("closes the channel %s", c.arg(0))
	case c.fn == "Select":
		if strings.HasSuffix(c.rest, "blocks") {
			return fmt.Sprintf("waits in a select on %s", strings.Join(c.args, ", "))
		}
		return "selects " + strings.TrimPrefix(c.rest, "-> ")
	case c.fn == "load" || c.fn == "stdbg_read" || c.fn == "sthread.Read" || c.fn == "__atomic_load" || c.fn == "atomic.Load":
		return "reads " + c.arg(0)
	case c.fn == "store" || c.fn == "stdbg_write" || c.fn == "sthread.Write" || c.fn == "__atomic_store" || strings.HasPrefix(c.fn, "atomic."):
		return "writes " + c.arg(0)
	case c.fn == "sched_yield" || c.fn == "stdbg_yield" || c.fn == "sthread.Yield":
		return "yields the processor"
	case strings.Contains(lower, "sleep"):
		return "sleeps"
	}
	return "calls " + s
}

// chanPhrase tells a send or receive and how it went.
func chanPhrase(verb string, c call) string {
	s := verb + " the channel " + c.arg(0)
	switch {
	case strings.HasSuffix(c.rest, "blocks"):
		return s + " and blocks (nobody is ready on the other side)"
	case strings.Contains(c.rest, "closed"):
		return s + ", which is closed"
	case c.rest != "":
		return s + " (" + strings.TrimPrefix(c.rest, "to ") + ")"
	}
	return s
}

// story tells the steps of r as sentences, consecutive steps of one
// thread in one sentence, and ends with who waits for what or what
// failed.
func story(r *report.Report, goroutines bool) []string {
	who := "Thread"
	if goroutines {
		who = "Goroutine"
	}
	var out []string
	cur, acts := 0, []string(nil)
	flush := func() {
		if len(acts) > 0 {
			out = append(out, fmt.Sprintf("%s %d %s.", who, cur, strings.Join(acts, ", then ")))
		}
		acts = nil
	}
	for i, st := range r.Steps {
		if r.Cycle != "" && r.CycleStart > 0 && st.N == r.CycleStart {
			flush()
			out = append(out, "From here on, the following steps repeat for ever:")
		}
		p := phrase(st.Call, goroutines)
		if p == "" {
			continue
		}
		if st.Thread != cur {
			flush()
			cur = st.Thread
		}
		if st.Where.Line > 0 && (i == len(r.Steps)-1 || len(acts) < 3) {
			p += " (" + st.Where.Short() + ")"
		}
		acts = append(acts, p)
	}
	flush()
	lower := strings.ToLower(who)
	for _, w := range r.Waits {
		text := threadRef.ReplaceAllString(w.Text, lower+" $1")
		text = strings.Replace(text, "waits in ", "is stuck in ", 1)
		out = append(out, fmt.Sprintf("Now %s %d %s, at %s.", lower, w.Thread, text, w.Where.Short()))
	}
	if r.Failure != nil && r.Kind != "deadlock" && r.Kind != "leak" {
		msg := summary(r.Message)
		out = append(out, fmt.Sprintf("Then %s %d fails at %s: %s.", lower, r.Failure.Thread, r.Failure.Where.Short(), strings.TrimSuffix(msg, ".")))
	} else if len(r.Waits) == 0 && r.Message != "" {
		out = append(out, "Result: "+strings.TrimSuffix(r.Message, ".")+".")
	}
	return out
}

// sourceLines lists the distinct lines of the student's files that the
// steps, waits and failure of r pass through, in order.
func sourceLines(r *report.Report, submit []string) []string {
	mine := map[string]bool{}
	for _, f := range submit {
		mine[f] = true
	}
	seen := map[string]bool{}
	var out []string
	add := func(l report.Location) {
		if l.File == "" || l.Line == 0 || !mine[filepath.Base(l.File)] {
			return
		}
		key := fmt.Sprintf("%s:%d", filepath.Base(l.File), l.Line)
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, key+": "+l.Source)
	}
	for _, s := range r.Steps {
		add(s.Where)
	}
	for _, w := range r.Waits {
		add(w.Where)
	}
	if r.Failure != nil {
		add(r.Failure.Where)
	}
	return out
}
