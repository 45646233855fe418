package grade

import (
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/engine/report"
)

// The hints about Go's WaitGroups and channels: Add in the counted
// goroutine, a Wait that cannot end, channels nobody closes, sends nobody
// receives, sends to oneself, and sends on a channel closed too early.
// addInside: WaitGroup.Add called by a goroutine other than the one that
// waits: Wait may run before it and return at once.
func addInside(r *report.Report, s src) *Hint {
	waiter := 0
	for _, st := range r.Steps {
		if strings.HasPrefix(st.Call, "WaitGroup.Wait") {
			waiter = st.Thread
		}
	}
	// Who calls Done on which WaitGroup: the goroutines it counts.
	counted := map[string]map[int]bool{}
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "WaitGroup.Done" {
			if counted[c.arg(0)] == nil {
				counted[c.arg(0)] = map[int]bool{}
			}
			counted[c.arg(0)][st.Thread] = true
		}
	}
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "WaitGroup.Add" && waiter != 0 && st.Thread != waiter && counted[c.arg(0)][st.Thread] {
			return &Hint{Pattern: PatternAddInside, Line: at(st.Where),
				Text: fmt.Sprintf("wg.Add is called at %s by the goroutine it counts, so Wait can run before it and return while that "+
					"goroutine still works. Call wg.Add in the goroutine that starts the others, before the go statement.", at(st.Where))}
		}
	}
	if r.Kind == "data-race" || r.Kind == "assertion" || r.Kind == "crash" {
		// The wait returned before the goroutine counted itself, and the
		// report stops at the bug: look for the Add in the source.
		for file, lines := range s {
			inGo := 0
			for i, t := range lines {
				t = strings.TrimSpace(t)
				if strings.HasPrefix(t, "go func") {
					inGo = i + 1
				}
				if inGo > 0 && i+1-inGo < 4 && strings.Contains(t, ".Add(") && !strings.Contains(t, "atomic") {
					return &Hint{Pattern: PatternAddInside, Line: fmt.Sprintf("%s:%d", file, i+1),
						Text: fmt.Sprintf("wg.Add is called at %s:%d inside the goroutine it counts, so Wait can run before it and return "+
							"while that goroutine still works. Call wg.Add before the go statement.", file, i+1)}
				}
			}
		}
	}
	return nil
}

// doneEarly: a goroutine calls wg.Done and then goes on working, and the
// goroutine that failed had waited on wg: its Wait returned on that Done,
// while the work it waits for was still under way.
func doneEarly(r *report.Report) *Hint {
	if r.Failure == nil || r.Kind != "data-race" && r.Kind != "assertion" && r.Kind != "crash" {
		return nil
	}
	waited := map[string]report.Step{} // WaitGroup -> the failing goroutine's Wait
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "WaitGroup.Wait" && st.Thread == r.Failure.Thread {
			waited[c.arg(0)] = st
		}
	}
	for i, st := range r.Steps {
		c := parseCall(st.Call)
		w, ok := waited[c.arg(0)]
		if c.fn != "WaitGroup.Done" || !ok || st.Thread == r.Failure.Thread {
			continue
		}
		for _, later := range r.Steps[i+1:] {
			if later.Thread != st.Thread {
				continue
			}
			return &Hint{Pattern: PatternDoneEarly, Line: at(st.Where),
				Text: fmt.Sprintf("Goroutine %d calls wg.Done() at %s and then goes on working (%s): Done says that a goroutine's "+
					"work is over, so wg.Wait() at %s returned while that work was still under way. Call Done when the work is "+
					"done: defer wg.Done() as the goroutine's first statement.", st.Thread, at(st.Where), at(later.Where), at(w.Where))}
		}
	}
	return nil
}

var chanRecvWait = lazyre.New(`^waits in (?:range )?Chan\.(?:Recv2?|All) for (\S+)`)

// neverClosed: a goroutine waits for ever to receive from a channel that
// no step closed (a range over it, typically).
func neverClosed(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	closed := map[string]bool{}
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "Chan.Close" {
			closed[c.arg(0)] = true
		}
	}
	for _, w := range r.Waits {
		m := chanRecvWait.FindStringSubmatch(w.Text)
		if m == nil || closed[m[1]] {
			continue
		}
		ch := m[1]
		return &Hint{Pattern: PatternNeverClosed, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d waits for ever at %s to receive from %s, and nobody closes %s. The sender should close the "+
				"channel when it has sent everything (close(%s), or defer close(%s) in the sending goroutine), so that receivers "+
				"(a range loop) end.", w.Thread, at(w.Where), ch, ch, ch, ch)}
	}
	return nil
}

var selectWait = lazyre.New(`^waits in Select on (.*) \(no case is ready\)`)

// cancelNotClosed: a goroutine waits for ever in a select that also
// receives from a channel nobody closed: a cancellation that never came
// (or came as one send, which wakes one goroutine only).
func cancelNotClosed(r *report.Report) *Hint {
	if r.Kind != "leak" && r.Kind != "deadlock" {
		return nil
	}
	closed := map[string]bool{}
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "Chan.Close" {
			closed[c.arg(0)] = true
		}
	}
	for _, w := range r.Waits {
		m := selectWait.FindStringSubmatch(w.Text)
		if m == nil {
			continue
		}
		for _, cs := range strings.Split(m[1], ", ") {
			ch, ok := strings.CutPrefix(cs, "<-")
			if !ok || closed[ch] {
				continue
			}
			return &Hint{Pattern: PatternCancelOpen, Line: at(w.Where),
				Text: fmt.Sprintf("Goroutine %d waits for ever in a select at %s that also receives from %s, and nobody closes %s. "+
					"To stop goroutines, close the channel they watch (close(done)): a receive from a closed channel proceeds at once, "+
					"in every goroutine, while a send on it wakes one goroutine only.", w.Thread, at(w.Where), ch, ch)}
		}
	}
	return nil
}

var wgWait = lazyre.New(`^waits in WaitGroup\.Wait for (\S+) \(counter (\d+)\)`)

// wgStuck: a WaitGroup's Wait waits for ever: a counted goroutine waits
// on the group itself, or one did not call Done on its way out.
func wgStuck(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	var waiters []report.Wait
	for _, w := range r.Waits {
		if wgWait.MatchString(w.Text) {
			waiters = append(waiters, w)
		}
	}
	if len(waiters) == 0 {
		return nil
	}
	m := wgWait.FindStringSubmatch(waiters[0].Text)
	wg := m[1]
	if len(waiters) > 1 {
		for _, w := range waiters {
			if w.Started != nil {
				return &Hint{Pattern: PatternWaitInWorker, Line: at(w.Where),
					Text: fmt.Sprintf("Goroutine %d, which %s counts, waits on %s itself at %s: the counter cannot reach zero while "+
						"the goroutines it counts wait for it. Only the goroutine that collects the results should Wait.", w.Thread, wg, wg, at(w.Where))}
			}
		}
	}
	return &Hint{Pattern: PatternDoneMissing, Line: at(waiters[0].Where),
		Text: fmt.Sprintf("The Wait at %s waits for ever: %s's counter is still %s, although the goroutines it counts are gone "+
			"or elsewhere. Every goroutine counted by Add must call Done on every path: start it with defer %s.Done().",
			at(waiters[0].Where), wg, m[2], wg)}
}

// noCancel: a goroutine is stuck sending on a channel nobody receives
// from any more (the receiver gave up): its send must also watch for
// cancellation.
func noCancel(r *report.Report) *Hint {
	if r.Kind != "leak" && r.Kind != "deadlock" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.HasPrefix(w.Text, "waits in Chan.Send") {
			continue
		}
		return &Hint{Pattern: PatternNoCancel, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d is stuck for ever sending at %s: the receiver no longer receives. A send that may outlive its "+
				"receiver must also watch for cancellation: select { case out <- v: case <-done: return }.", w.Thread, at(w.Where))}
	}
	return nil
}

var (
	chanID   = lazyre.New(`\[(chan#\d+)\]`)
	sendWait = lazyre.New(`^waits in Chan\.Send for (.*?) \[(chan#\d+)\]`)
	closedCh = lazyre.New(`send on closed channel (\S+)`)
)

// selfSend: a goroutine waits for ever to send on a channel that only it
// ever received from (a ring wired to itself): it cannot be its own
// receiver while it sends.
func selfSend(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	for _, w := range r.Waits {
		m := sendWait.FindStringSubmatch(w.Text)
		if m == nil {
			continue
		}
		receivers := map[int]bool{}
		for _, st := range r.Steps {
			if !strings.Contains(st.Call, "Chan.Recv") && !strings.Contains(st.Call, "Chan.All") {
				continue
			}
			if id := chanID.FindStringSubmatch(st.Call); id != nil && id[1] == m[2] {
				receivers[st.Thread] = true
			}
		}
		if len(receivers) != 1 || !receivers[w.Thread] {
			continue
		}
		return &Hint{Pattern: PatternSelfSend, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d waits for ever at %s to send on %s, and the only goroutine that ever received from that "+
				"channel is goroutine %d itself: a goroutine cannot receive while it is sending. It sends on its own channel: "+
				"check which channel the value should go to (the next goroutine's).", w.Thread, at(w.Where), m[1], w.Thread)}
	}
	return nil
}

// sendOnClosed: a send on a channel that another goroutine closed while
// the sender could still send.
func sendOnClosed(r *report.Report) *Hint {
	m := closedCh.FindStringSubmatch(r.Message)
	if m == nil || len(r.Steps) == 0 {
		return nil
	}
	send := r.Steps[len(r.Steps)-1]
	for i := len(r.Steps) - 1; i >= 0; i-- {
		st := r.Steps[i]
		c := parseCall(st.Call)
		if c.fn != "Chan.Close" || !sameChannel(c.arg(0), strings.TrimSuffix(m[1], ".")) {
			continue
		}
		return &Hint{Pattern: PatternSendClosed, Line: at(st.Where),
			Text: fmt.Sprintf("Goroutine %d closes a channel at %s while goroutine %d may still send on it (at %s), and a send on a "+
				"closed channel panics. Close a channel only when nothing will send on it again: after its senders are done "+
				"(wait for them first), or in the sender itself after its last send.", st.Thread, at(st.Where), send.Thread, at(send.Where))}
	}
	return nil
}

var closeOfClosed = lazyre.New(`close of closed channel (\S+)`)

// sameChannel reports whether a step's channel argument ("results
// [chan#2]", "results", "chan#2") is the channel a message names.
func sameChannel(arg, name string) bool {
	if arg == name || strings.Contains(arg, "["+name+"]") {
		return true
	}
	first, _, _ := strings.Cut(arg, " ")
	return first == name
}

// closeClosed: a channel closed twice (each worker closing the results,
// or two goroutines each closing a done channel): the second close
// panics.
func closeClosed(r *report.Report) *Hint {
	m := closeOfClosed.FindStringSubmatch(r.Message)
	if m == nil {
		return nil
	}
	ch := strings.TrimSuffix(m[1], ".")
	var closes []report.Step
	for _, st := range r.Steps {
		if c := parseCall(st.Call); c.fn == "Chan.Close" && sameChannel(c.arg(0), ch) {
			closes = append(closes, st)
		}
	}
	second := report.Location{}
	thread := 0
	if r.Failure != nil {
		second, thread = r.Failure.Where, r.Failure.Thread
	}
	if len(closes) == 0 {
		return nil
	}
	first := closes[0]
	if second.Line == 0 && len(closes) > 1 {
		second, thread = closes[len(closes)-1].Where, closes[len(closes)-1].Thread
	}
	text := fmt.Sprintf("Goroutine %d closes %s at %s after goroutine %d closed it at %s, and a channel can be closed only once: "+
		"the second close panics.", thread, ch, at(second), first.Thread, at(first.Where))
	if thread != first.Thread && second.Line == first.Where.Line {
		text = fmt.Sprintf("Goroutines %d and %d both close %s at %s: every goroutine that runs that code closes it, and the "+
			"second close panics.", first.Thread, thread, ch, at(second))
	}
	return &Hint{Pattern: PatternCloseClosed, Line: at(second),
		Text: text + " Close a channel in one place only, once its senders are all done: for results sent by several " +
			"workers, in a goroutine that waits for them (wg.Wait(); close(results)); to stop goroutines, in the goroutine " +
			"that decides to stop them."}
}

// waitFirst: a WaitGroup's Wait waits for goroutines that are stuck
// sending on a channel that only the waiting goroutine would receive
// from, after its Wait: each waits for the other.
func waitFirst(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	var waiter *report.Wait
	var senders []report.Wait
	for i, w := range r.Waits {
		switch {
		case wgWait.MatchString(w.Text):
			waiter = &r.Waits[i]
		case strings.HasPrefix(w.Text, "waits in Chan.Send"):
			senders = append(senders, w)
		}
	}
	if waiter == nil || len(senders) == 0 {
		return nil
	}
	ch := ""
	if m := sendWait.FindStringSubmatch(senders[0].Text); m != nil {
		ch = m[1]
	}
	return &Hint{Pattern: PatternWaitFirst, Line: at(waiter.Where),
		Text: fmt.Sprintf("Goroutine %d waits at %s for goroutines that are stuck sending on %s (goroutine %d at %s), which only "+
			"goroutine %d would receive, after its Wait: each waits for the other. Receive while they run: wait for them in "+
			"a goroutine of its own that then closes the channel (go func() { wg.Wait(); close(results) }()), and range over "+
			"the channel meanwhile; or give the channel room for every value.", waiter.Thread, at(waiter.Where), ch,
			senders[0].Thread, at(senders[0].Where), waiter.Thread)}
}

// noReceiver: the only goroutine left sends on a channel nobody has ever
// received from (an unbuffered send before the goroutine that would
// receive it was started).
func noReceiver(r *report.Report) *Hint {
	if r.Kind != "deadlock" || len(r.Waits) != 1 || !strings.HasPrefix(r.Waits[0].Text, "waits in Chan.Send") {
		return nil
	}
	w := r.Waits[0]
	for _, st := range r.Steps {
		if st.Thread != w.Thread {
			return nil // another goroutine ran: noCancel's case
		}
	}
	ch := ""
	if m := sendWait.FindStringSubmatch(w.Text); m != nil {
		ch = m[1]
	}
	return &Hint{Pattern: PatternNoReceiver, Line: at(w.Where),
		Text: fmt.Sprintf("Goroutine %d sends on %s at %s before any goroutine that could receive it has started, and an "+
			"unbuffered send waits for its receiver: it waits for ever. Start the goroutines that receive first, then send.",
			w.Thread, ch, at(w.Where))}
}

// lockUpgrade: a thread waits for the write lock of a readers-writer lock
// it holds for reading itself (Go's RWMutex, POSIX rwlocks): a read lock
// cannot be upgraded, and the writer waits for every reader, itself too.
func lockUpgrade(r *report.Report) *Hint {
	if r.Kind != "deadlock" && r.Kind != "leak" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.Contains(w.Text, "RWMutex.Lock") && !strings.Contains(w.Text, "wrlock") {
			continue
		}
		self := false
		for _, h := range w.Holders {
			self = self || h == w.Thread
		}
		if !self {
			continue
		}
		var rlock report.Step
		for _, st := range r.Steps {
			c := parseCall(st.Call)
			if st.Thread == w.Thread && (c.fn == "RWMutex.RLock" || strings.HasSuffix(strings.ToLower(c.fn), "rdlock")) {
				rlock = st
			}
		}
		return &Hint{Pattern: PatternLockUpgrade, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d asks for the write lock at %s while it holds the read lock of the same lock (taken at "+
				"%s): a writer waits until every reader has left, itself too, so it waits for ever. A read lock cannot be "+
				"turned into a write lock: release the read lock, take the write lock, and check again what you saw under "+
				"the read lock (another writer may have come in between).", w.Thread, at(w.Where), at(rlock.Where))}
	}
	return nil
}

// ctxNeverCancelled: a goroutine waits for ever for its context to be
// cancelled (a receive from ctx.Done(), in a select or alone), and
// nothing cancels that context: no cancel function was called, or the
// context does not derive from the one that was cancelled.
func ctxNeverCancelled(r *report.Report) *Hint {
	if r.Kind != "leak" && r.Kind != "deadlock" {
		return nil
	}
	for _, w := range r.Waits {
		if !strings.Contains(w.Where.Source, ".Done()") || !chanRecvWait.MatchString(w.Text) && !selectWait.MatchString(w.Text) &&
			!strings.Contains(w.Text, "nil channel") {
			continue
		}
		if strings.Contains(w.Text, "nil channel") {
			// Done() of context.Background() or TODO(): nil.
			return &Hint{Pattern: PatternCtxNeverCancelled, Line: at(w.Where),
				Text: fmt.Sprintf("Goroutine %d waits for ever at %s for its context to be cancelled (%s), but it was given a "+
					"context that can never be cancelled (context.Background() or context.TODO(), whose Done() is nil). Give "+
					"goroutines a context derived from the one you were given, ctx, cancel := context.WithCancel(ctx), and call "+
					"cancel when their work is no longer needed (defer cancel()).", w.Thread, at(w.Where), strings.TrimSpace(w.Where.Source))}
		}
		return &Hint{Pattern: PatternCtxNeverCancelled, Line: at(w.Where),
			Text: fmt.Sprintf("Goroutine %d waits for ever at %s for its context to be cancelled (%s), and nothing cancels "+
				"it. A context is cancelled by the cancel function of the context.WithCancel (or WithTimeout) that made it, or "+
				"of one of its parents: derive the context you give to goroutines from the one you were given (ctx, cancel := "+
				"context.WithCancel(ctx)), give them that one, and call cancel when their work is no longer needed (defer "+
				"cancel()).", w.Thread, at(w.Where), strings.TrimSpace(w.Where.Source))}
	}
	return nil
}
