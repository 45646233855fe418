package targetproc

import (
	"fmt"
	"os"
	"time"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
)

// batchAllowed is false when $STDBG_BATCH=0.
var batchAllowed = os.Getenv("STDBG_BATCH") != "0"

// batchState is the stretch of steps the checker announced for the current
// execution (Plan), and how far the child was sent and ran it.
type batchState struct {
	plan []wire.Run
	// next is the entry of plan the next Resume is for.
	next int
	// inFlight counts the entries of the batch under way that the child
	// may still run and whose messages were not read yet.
	inFlight int
	// rd is where the next step's messages start in the slot's up area.
	rd  int
	buf []byte
}

func (b *batchState) reset() {
	b.plan, b.next, b.inFlight, b.rd = b.plan[:0], 0, 0, 0
}

// Plan implements executor.Batcher: the first Resume calls of the execution
// that just began will be steps, in order. The child of the C library then
// runs them as batches (wire.EncodeRunBatch): it goes from one step to the
// next without waiting for an answer, and the checker reads each step's
// messages while the program runs the next ones; in a stateful search
// each step's messages carry its state, as a hand-over's do. Go targets
// and $STDBG_BATCH=0 take one step per hand-over.
func (p *Process) Plan(steps []wire.Run) {
	if !batchAllowed || p.cfg.NoPreload || !p.alive {
		return
	}
	p.batch.reset()
	p.batch.plan = append(p.batch.plan, steps...)
}

// Batched returns how many steps the process ran in batches (Plan).
func (p *Process) Batched() int64 { return p.batched }

// resumeBatched is Resume for a step of the plan: ok is false when the step
// is not one (or is best taken alone) and Resume goes on as usual.
func (p *Process) resumeBatched(tid int, code int64) (evs []wire.Event, ok bool, err error) {
	b := &p.batch
	if b.next >= len(b.plan) {
		return nil, false, nil
	}
	want := b.plan[b.next]
	if want.Tid != tid || want.Code != code {
		if b.inFlight == 0 {
			b.reset()
			return nil, false, nil
		}
		// The program already runs the announced steps: this execution
		// cannot take another way.
		return nil, true, fmt.Errorf("replaying an earlier execution: step %d lets thread %d go on with result %d where the earlier one let thread %d go on with %d: %w",
			b.next+1, tid, code, want.Tid, want.Code, search.ErrNondeterministic)
	}
	if b.inFlight == 0 {
		n := min(len(b.plan)-b.next, wire.BatchMax)
		if n < 2 {
			b.next++
			return nil, false, nil
		}
		b.buf = wire.EncodeRunBatch(b.buf[:0], b.plan[b.next:b.next+n])
		if err := p.slot.Answer(b.buf); err != nil {
			return nil, true, err
		}
		b.inFlight, b.rd = n, 0
	}
	b.next++
	b.inFlight--
	p.batched++
	evs, err = p.collectStep(tid)
	return evs, true, err
}

// collectStep waits for the messages of the next step of the batch under
// way and decodes them. Messages published without a STEP mark end the
// batch: the child handed the mailbox over (its last step, a full
// mailbox, a failure) and waits for an answer, or died.
func (p *Process) collectStep(running int) ([]wire.Event, error) {
	b := &p.batch
	var since time.Time // set by the first wait that needs the clock
	for {
		if up := p.slot.Up(); len(up) > b.rd {
			p.dec.Reuse() // the checker is done with the step before
			evs, used, marked, err := p.dec.AppendStep(p.evbuf[:0], up[b.rd:])
			p.evbuf = evs
			if err != nil {
				b.inFlight = 0
				return nil, fmt.Errorf("reading the program's report: %w", err)
			}
			if marked {
				b.rd += used
			} else {
				b.inFlight, b.rd = 0, 0
			}
			return p.noted(evs), nil
		}
		if _, dead := p.slot.Dead(p.gen); dead {
			b.inFlight = 0
			return p.received(nil)
		}
		bound, cut := p.stepBound(p.cfg.TransitionTimeout)
		if err := p.slot.WaitFor(p.last, &since, bound); err != nil {
			b.inFlight = 0
			if err == wire.ErrTimeout {
				return p.timedOut(running, waited(since, bound), cut)
			}
			return nil, err
		}
		p.last = p.slot.UpSeq()
	}
}

// drain reads the steps of a batch the checker gave up on, so that the
// child waits for an answer again before it gets one (the end of the
// execution).
func (p *Process) drain() {
	for p.alive && p.batch.inFlight > 0 {
		p.batch.inFlight--
		if _, err := p.collectStep(0); err != nil {
			p.killChild()
			p.alive = false
		}
	}
}
