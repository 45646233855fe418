package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// This file renders the operations of Go targets (package sthread): their
// results are not errno values, and channels, selects and the two halves of
// blocking operations need words of their own.

// goFamily is the family of generated names for the object of a Go
// operation, "" for other kinds.
func goFamily(k syncmodel.Kind) string {
	switch k {
	case syncmodel.GoMutexLock, syncmodel.GoMutexTryLock, syncmodel.GoMutexUnlock:
		return "mutex"
	case syncmodel.GoRWRLock, syncmodel.GoRWTryRLock, syncmodel.GoRWRUnlock, syncmodel.GoRWLock,
		syncmodel.GoRWLockDrain, syncmodel.GoRWTryLock, syncmodel.GoRWUnlock:
		return "rwmutex"
	case syncmodel.WGAdd, syncmodel.WGWait, syncmodel.WGWake:
		return "wg"
	case syncmodel.GoCondWait, syncmodel.GoCondWake:
		return "cond"
	case syncmodel.ChanMake, syncmodel.ChanSend, syncmodel.ChanRecv, syncmodel.ChanClose, syncmodel.ChanLen,
		syncmodel.Select, syncmodel.ChanWake:
		return "chan"
	case syncmodel.BubbleEnter, syncmodel.BubbleWait, syncmodel.BubbleEnd:
		return "bubble"
	}
	return ""
}

// chanName names a channel, "nil" for the nil channel.
func (b *builder) chanName(obj uint64) string {
	if obj == 0 {
		return "nil"
	}
	return b.goName(obj, "chan")
}

// cases renders the cases of a select: "<-jobs, results<-, default".
func (b *builder) cases(op syncmodel.Op) string {
	parts := make([]string, 0, len(op.Cases)+1)
	for _, c := range op.Cases {
		parts = append(parts, b.caseText(c))
	}
	if op.Kind == syncmodel.Select && op.Arg == 1 {
		parts = append(parts, "default")
	}
	return strings.Join(parts, ", ")
}

func (b *builder) caseText(c syncmodel.Case) string {
	if c.Send {
		return b.chanName(c.Chan) + "<-"
	}
	return "<-" + b.chanName(c.Chan)
}

// goCall renders a Go operation and what it did; ok is false for other
// operations.
func (b *builder) goCall(op syncmodel.Op, res syncmodel.Result) (string, bool) {
	if s, ok := b.timerCall(op, res); ok {
		return s, true
	}
	api := op.API.String()
	if api == "" {
		api = op.Kind.String()
	}
	fam := goFamily(op.Kind)
	obj := func() string { return b.goName(op.Obj, fam) }
	boolean := func() string { return fmt.Sprintf("%s(%s) = %t", api, obj(), res.Code == 1) }
	r := syncmodel.DecodeChanResult(res.Code)
	switch op.Kind {
	case syncmodel.Read, syncmodel.Write:
		if op.API == syncmodel.APITestCall || op.API == syncmodel.APITestEnd {
			// A test's key: no object of the program's.
			return api, true
		}
		if op.API >= syncmodel.APIMapLoad && op.API <= syncmodel.APIMapClear {
			return fmt.Sprintf("%s(%s)", api, b.name(op.Obj, "map")), true
		}
		if op.API >= syncmodel.APIGoRead && op.API <= syncmodel.APIAtomicCompareSwap && op.API != syncmodel.APIGoChoose ||
			op.API == syncmodel.APIAtomicAnd || op.API == syncmodel.APIAtomicOr {
			return fmt.Sprintf("%s(&%s)", api, b.name(op.Obj, "mem")), true
		}
		return "", false
	case syncmodel.Exit:
		if op.API == syncmodel.APICheckedReturn {
			return "checked function returns", true
		}
		return "", false
	case syncmodel.GoMutexTryLock, syncmodel.GoRWTryLock, syncmodel.GoRWTryRLock:
		return boolean(), true
	case syncmodel.TimerWait:
		// The virtual clock, as the time since the execution began.
		at := time.Duration(op.Arg)
		if op.API == syncmodel.APITimerFire {
			return fmt.Sprintf("timer fires at +%v", at), true
		}
		return fmt.Sprintf("%s until +%v", api, at), true
	case syncmodel.GoRWLock:
		return fmt.Sprintf("%s(%s) announces a writer", api, obj()), true
	case syncmodel.GoRWLockDrain:
		return fmt.Sprintf("%s(%s) locked, no reader left", api, obj()), true
	case syncmodel.WGAdd:
		if op.API == syncmodel.APIWaitGroupDone {
			return fmt.Sprintf("%s(%s)", api, obj()), true
		}
		return fmt.Sprintf("%s(%s, %d)", api, obj(), op.Arg), true
	case syncmodel.WGWait:
		if res.Code == syncmodel.WaitParked {
			return fmt.Sprintf("%s(%s) blocks", api, obj()), true
		}
		return fmt.Sprintf("%s(%s) returns", api, obj()), true
	case syncmodel.WGWake:
		return fmt.Sprintf("%s(%s) wakes up", api, obj()), true
	case syncmodel.GoCondWait:
		if op.Obj2 != 0 {
			return fmt.Sprintf("%s(%s) releases %s and waits", api, obj(), b.goName(op.Obj2, "mutex")), true
		}
		return fmt.Sprintf("%s(%s) starts waiting", api, obj()), true
	case syncmodel.GoCondWake:
		if op.Obj2 != 0 {
			return fmt.Sprintf("%s(%s) is signalled, relocks %s", api, obj(), b.goName(op.Obj2, "mutex")), true
		}
		return fmt.Sprintf("%s(%s) is signalled", api, obj()), true
	case syncmodel.BubbleEnter:
		return fmt.Sprintf("%s: %s begins", api, obj()), true
	case syncmodel.BubbleWait:
		return api + " returns", true
	case syncmodel.BubbleEnd:
		return fmt.Sprintf("%s: %s is over", api, obj()), true
	case syncmodel.ChanMake:
		return fmt.Sprintf("%s(%s, %d)", api, b.chanName(op.Obj), op.Arg), true
	case syncmodel.ChanLen:
		return fmt.Sprintf("%s(%s) = %d", api, b.chanName(op.Obj), res.Code), true
	case syncmodel.ChanClose:
		return fmt.Sprintf("%s(%s)", api, b.chanName(op.Obj)), true
	case syncmodel.ChanSend, syncmodel.ChanRecv:
		return fmt.Sprintf("%s(%s)%s", api, b.chanName(op.Obj), b.chanOutcome(r, op.Kind == syncmodel.ChanSend)), true
	case syncmodel.Select:
		s := fmt.Sprintf("%s(%s)", api, b.cases(op))
		switch r.Via {
		case syncmodel.ViaDefault:
			return s + " -> default", true
		case syncmodel.ViaParked:
			return s + " blocks", true
		}
		return s + b.caseOutcome(op.Cases, r), true
	case syncmodel.ChanWake:
		if op.Cases != nil {
			return fmt.Sprintf("%s(%s) wakes up%s", api, b.cases(op), b.caseOutcome(op.Cases, r)), true
		}
		s := fmt.Sprintf("%s(%s) wakes up", api, b.chanName(op.Obj))
		if op.API != syncmodel.APIChanSend && !r.OK {
			s += ": closed"
		}
		return s, true
	}
	return "", false
}

// chanOutcome says how a send or receive completed.
func (b *builder) chanOutcome(r syncmodel.ChanResult, send bool) string {
	switch r.Via {
	case syncmodel.ViaParked:
		return " blocks"
	case syncmodel.ViaClosed:
		return ": closed"
	case syncmodel.ViaPartner:
		if send {
			return fmt.Sprintf(" to thread %d", r.Partner)
		}
		return fmt.Sprintf(" from thread %d", r.Partner)
	case syncmodel.ViaBuffer:
		if !send && r.Partner != 0 {
			return fmt.Sprintf(", thread %d's value enters the buffer", r.Partner)
		}
	}
	return ""
}

// caseOutcome says which case of a select proceeded and how.
func (b *builder) caseOutcome(cases []syncmodel.Case, r syncmodel.ChanResult) string {
	if r.Case < 0 || r.Case >= len(cases) {
		return ""
	}
	c := cases[r.Case]
	s := fmt.Sprintf(" -> case %d: %s", r.Case, b.caseText(c))
	if r.Via == syncmodel.ViaWoken {
		if !c.Send && !r.OK {
			s += " (closed)"
		}
		return s
	}
	return s + b.chanOutcome(r, c.Send)
}

// goWait renders why a thread blocked in a Go operation cannot go on; ok is
// false for other operations.
func (b *builder) goWait(bl executor.Blocked) (string, bool) {
	op, w := bl.Op, bl.Wait
	fam := goFamily(op.Kind)
	if fam == "" {
		return "", false
	}
	api := op.API.String()
	if api == "" {
		api = op.Kind.String()
	}
	var what string
	switch {
	case op.Cases != nil || op.Kind == syncmodel.Select:
		what = "on " + b.cases(op)
		if len(op.Cases) == 0 {
			what = "without cases"
		}
	case fam == "chan" && op.Obj == 0:
		what = "on a nil channel"
	default:
		what = "for " + b.goName(op.Obj, fam)
	}
	text := fmt.Sprintf("waits in %s %s", api, what)
	if d := w.Detail; d != "" {
		if s, ok := strings.CutSuffix(d, " (finished)"); ok && strings.HasPrefix(d, "held by ") {
			d = s + ", which has finished"
		}
		text += " (" + d + ")"
	}
	return text, true
}

// timerCall renders the operations of a timer's goroutine and of Stop in
// the words of package time; ok is false for other operations.
func (b *builder) timerCall(op syncmodel.Op, res syncmodel.Result) (string, bool) {
	r := syncmodel.DecodeChanResult(res.Code)
	switch {
	case op.Kind == syncmodel.ThreadCreate && op.API == syncmodel.APITimerNew:
		return fmt.Sprintf("timer made: its goroutine is thread %d", res.NewThread), true
	case op.Kind == syncmodel.ThreadExit && op.API == syncmodel.APITimerFire:
		return "timer's goroutine ends", true
	case op.Kind == syncmodel.ChanClose && op.API == syncmodel.APITimerFire:
		return "timer done", true
	case op.API == syncmodel.APITimerHalt:
		return "Stop or Reset looks at the timer", true
	case op.API == syncmodel.APITimerFire && op.Kind == syncmodel.Select && len(op.Cases) == 1 && !op.Cases[0].Send:
		return "timer records that its time was taken", true
	case op.API == syncmodel.APITimerFire && (op.Kind == syncmodel.Select || op.Kind == syncmodel.ChanWake) && len(op.Cases) > 0:
		c := b.chanName(op.Cases[0].Chan)
		switch {
		case r.Via == syncmodel.ViaParked:
			return fmt.Sprintf("timer offers its time on %s (no receiver yet)", c), true
		case r.Via == syncmodel.ViaDefault:
			return fmt.Sprintf("timer's time dropped: %s's buffer is full", c), true
		case r.Case == 1:
			return "timer stopped: Stop took back its time", true
		case r.Via == syncmodel.ViaPartner:
			return fmt.Sprintf("timer delivers its time on %s to thread %d", c, r.Partner), true
		case r.Via == syncmodel.ViaBuffer:
			return fmt.Sprintf("timer puts its time in %s's buffer", c), true
		}
		return fmt.Sprintf("timer's time on %s taken", c), true
	case op.API == syncmodel.APITimerStop && (op.Kind == syncmodel.Select || op.Kind == syncmodel.ChanWake):
		switch {
		case r.Via == syncmodel.ViaParked:
			return "Stop waits for the timer, which fired, to deliver its time or take it back", true
		case r.Case == 0 && len(op.Cases) == 2:
			return "Stop takes back the time the timer offered", true
		}
		return "Stop: the timer's time was already taken", true
	}
	return "", false
}
