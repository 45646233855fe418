package rt

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/model/wire"
)

// What runs outside the check. The model sees the goroutines that the
// checked function starts and the operations they make; it does not see
//
//   - goroutines that a go statement of the program started outside a
//     check: as the program initialised its packages (a package-level
//     variable whose initialiser starts a server), in TestMain, or from
//     another such goroutine during a check. They run unchecked, on the
//     real primitives: a checked goroutine that waits for one of them
//     waits in the model, where nothing will ever wake it;
//   - what code that stdbg does not instrument does to a real channel:
//     the standard library's context closes the channel of Done when it
//     is cancelled (a context made before the check is the standard
//     library's), a package's initialisation closes a channel or puts
//     values in its buffer, a real timer made before the check feeds its
//     channel.
//
// A real channel that was closed outside the check is closed in the model
// too, by the checked goroutine that next meets it (see importCloses): a
// receive from it then proceeds as it does in a real run. For the rest,
// the verdicts that claim that nothing can wake the blocked goroutines (a
// deadlock, a leak) are refused while something outside the check may
// (Runner.Outside): the check says what and stops, rather than report a
// bug of a correct program.

// outsider is a goroutine that a go statement of the program started
// outside a check (see goOutside).
type outsider struct {
	at     uintptr // return address of the go statement's call, in the program
	by     uint64  // the id of the goroutine that made it (0: unknown)
	during bool    // started while a check ran, by a goroutine outside it
	g      uintptr // its descriptor (getg), once it runs
	goid   uint64  // its id, once it runs
	parked bool    // parked for good by foreign: it can do nothing more
	// prev and next link the live ones (outsiders.head).
	prev, next *outsider
}

// outsiders are the live goroutines started outside a check, in a list
// (not a map nor a slice: it is read by checked goroutines, whose
// synchronisation the race detector does not see, and written by others;
// only pointer reads and writes in //go:norace functions stay hidden from
// it); gen counts the changes to them.
var outsiders struct {
	mu   sync.Mutex
	head *outsider
	gen  atomic.Uint64
}

// goOutside runs f in a goroutine of its own, unchecked, for a go
// statement made outside a check (Go), and keeps a record of it while it
// lives.
//
//go:norace
func goOutside(f func()) {
	var buf [16]uintptr
	o := &outsider{during: checking.Load() != nil, by: goidOf(getg())}
	for _, pc := range buf[:callers(buf[:])] {
		if !inSthread(pc) {
			o.at = pc
			break
		}
	}
	outsiders.mu.Lock()
	o.next = outsiders.head
	if o.next != nil {
		o.next.prev = o
	}
	outsiders.head = o
	outsiders.gen.Add(1)
	outsiders.mu.Unlock()
	go runOutside(o, f)
}

// runOutside is the bottom of a goroutine started outside a check: it
// runs f, the goroutine's function, and forgets o, its record, when f
// ends. Race reports recognise the goroutine by it (raceWithOutsider).
//
//go:norace
func runOutside(o *outsider, f func()) {
	g := getg()
	id := goidOf(g)
	if id == 0 {
		id = goid() // (slow: a stack dump)
	}
	outsiders.mu.Lock()
	o.g, o.goid = g, id
	outsiders.mu.Unlock()
	noteOrigin(id, o.at, o.by)
	defer forget(o)
	f()
}

// forget takes o off the live goroutines started outside a check.
//
//go:norace
func forget(o *outsider) {
	outsiders.mu.Lock()
	if o.prev != nil {
		o.prev.next = o.next
	} else {
		outsiders.head = o.next
	}
	if o.next != nil {
		o.next.prev = o.prev
	}
	o.prev, o.next = nil, nil
	outsiders.gen.Add(1)
	outsiders.mu.Unlock()
}

// goidOffset is where the runtime's descriptor of a goroutine (getg)
// holds the goroutine's id, found as the package initialises: the word at
// which the descriptors of three goroutines hold their ids, as their stack
// dumps say; -1 if none does (goidOf then returns 0). Reading an id from a
// stack dump takes microseconds; a goroutine started outside a check
// reads its own id as it starts.
var goidOffset = func() int {
	type probe struct {
		g  uintptr
		id uint64
	}
	const n = 3
	ch := make(chan probe)
	release := make(chan struct{})
	for range n {
		go func() {
			ch <- probe{getg(), goid()}
			<-release // alive, with its descriptor, until all are read
		}()
	}
	var ps [n]probe
	for i := range ps {
		ps[i] = <-ch
	}
	defer close(release)
	if ps[0].g == 0 {
		return -1
	}
	const size = 256 // the id is well within (at 152 in Go 1.26), the descriptor larger
	for off := 0; off < size; off += 8 {
		ok := true
		for _, p := range ps {
			ok = ok && wordAt(p.g, off) == p.id
		}
		if ok {
			return off
		}
	}
	return -1
}()

// wordAt reads the word at offset off of the runtime's descriptor g.
//
//go:norace
func wordAt(g uintptr, off int) uint64 {
	return *(*uint64)(unsafe.Add(*(*unsafe.Pointer)(unsafe.Pointer(&g)), off))
}

// goidOf returns the id of the goroutine whose descriptor is g, or 0 if it
// cannot tell.
//
//go:norace
func goidOf(g uintptr) uint64 {
	if goidOffset < 0 || g == 0 {
		return 0
	}
	return wordAt(g, goidOffset)
}

// runOutsideName is runOutside's name in stacks.
const runOutsideName = "github.com/stdbg/stdbg/sthread/internal/rt.runOutside"

// outsiderOf returns the record of the goroutine whose descriptor is g, if
// a go statement started it outside a check and it lives.
//
//go:norace
func outsiderOf(g uintptr) *outsider {
	if g == 0 {
		return nil
	}
	outsiders.mu.Lock()
	defer outsiders.mu.Unlock()
	for o := outsiders.head; o != nil; o = o.next {
		if o.g == g {
			return o
		}
	}
	return nil
}

// describe says who o is: "goroutine 7, started at serve.go:10 before the
// check, now in serve (serve.go:15)"; without where it is now when brief
// (which takes a dump of every goroutine's stack).
//
//go:norace
func (o *outsider) describe(brief bool) string {
	var b strings.Builder
	if o.goid == 0 {
		b.WriteString("a goroutine not yet running")
	} else {
		b.WriteString("goroutine " + strconv.FormatUint(o.goid, 10))
	}
	if o.at != 0 {
		b.WriteString(", started at " + Locate(uint64(o.at)))
	}
	if o.during {
		b.WriteString(" by a goroutine outside the check")
	} else {
		b.WriteString(" before the check")
	}
	if brief {
		return b.String()
	}
	if st := goroutineStack(o.goid); len(st) > 0 {
		b.WriteString(", now in " + st[0])
	}
	return b.String()
}

// liveOutsiders describes the goroutines started outside a check that may
// still act: alive, and not parked for good. At most three are named, with
// where they are now unless brief.
//
//go:norace
func liveOutsiders(brief bool) string {
	outsiders.mu.Lock()
	var live []*outsider
	for o := outsiders.head; o != nil; o = o.next {
		if !o.parked {
			live = append(live, o)
		}
	}
	outsiders.mu.Unlock()
	if len(live) == 0 {
		return ""
	}
	sort.Slice(live, func(i, j int) bool { return live[i].goid < live[j].goid })
	var names []string
	for _, o := range live[:min(len(live), 3)] {
		names = append(names, o.describe(brief))
	}
	text := strings.Join(names, "; ")
	if n := len(live) - len(names); n > 0 {
		text += "; and " + strconv.Itoa(n) + " more"
	}
	what := "a goroutine that stdbg does not control is alive and may wake them: "
	if len(live) > 1 {
		what = strconv.Itoa(len(live)) + " goroutines that stdbg does not control are alive and may wake them: "
	}
	return what + text + " (stdbg controls the goroutines that the checked function starts, not those started before the check)"
}

// A real channel's state, read from the Go runtime's descriptor of the
// channel, whose first fields have kept their layout since Go 1.0 (and
// timer, which follows them, since Go 1.23). Each reading is checked on
// channels of known state as the package initialises: a field that does
// not read as expected is not read at all.
type hchanHead struct {
	qcount   uint           // values in the buffer
	dataqsiz uint           // capacity
	buf      unsafe.Pointer // the buffer
	elemsize uint16
	closed   uint32
	timer    unsafe.Pointer // the runtime timer that feeds it (Go 1.23)
}

//go:norace
func hchanOf[T any](c chan T) *hchanHead {
	return (*hchanHead)(*(*unsafe.Pointer)(unsafe.Pointer(&c)))
}

// hchanCounts and hchanTimer say which fields read right (see hchanHead).
var hchanCounts, hchanTimer = func() (counts, timer bool) {
	c := make(chan int, 2)
	c <- 1
	h := hchanOf(c)
	counts = h.qcount == 1 && h.dataqsiz == 2 && h.closed == 0
	close(c)
	counts = counts && h.closed != 0
	t := time.NewTimer(time.Hour)
	timer = counts && hchanOf(Bidi[time.Time](t.C)).timer != nil && h.timer == nil
	t.Stop()
	return counts, timer
}()

// plainInfo is what the runtime keeps of a real channel of plain Go in an
// execution, besides its state under the checker (ChanState).
type plainInfo struct {
	hchan *hchanHead // the real channel
	// closedGen is the execution (Execution.gen) in which the model has
	// the channel closed: by the program, or on finding it closed for
	// real (importCloses).
	closedGen uint32
}

// attach records that the channel of pi has model id id in ex (once per
// execution).
//
//go:norace
func (pi *plainInfo) attach(ex *Execution, id uint64) {
	if pi.hchan == nil || id <= idBase || id-idBase > uint64(len(ex.objs)) {
		return
	}
	if o := &ex.objs[id-idBase-1]; o.plain == nil {
		o.plain = pi
		ex.plainChans++
		if f := pi.fedOutside(); f != "" && ex.fed == "" {
			ex.fed = "a channel that the execution uses " + f
		}
	}
}

// closedOutside reports whether the real channel is closed while the
// model of execution ex has it open: code outside the model closed it.
//
//go:norace
func (pi *plainInfo) closedOutside(ex *Execution) bool {
	return hchanCounts && pi.closedGen != ex.gen && pi.hchan.closed != 0
}

// fedOutside says what feeds the real channel outside the model, if
// anything does: values in its buffer (the model never puts any there),
// or a real timer.
//
//go:norace
func (pi *plainInfo) fedOutside() string {
	switch {
	case hchanCounts && pi.hchan.qcount > 0:
		if pi.hchan.qcount == 1 {
			return "holds a value put in outside the check"
		}
		return "holds " + strconv.FormatUint(uint64(pi.hchan.qcount), 10) + " values put in outside the check"
	case hchanTimer && pi.hchan.timer != nil:
		return "is the channel of a timer made outside the check, which the model does not see fire"
	}
	return ""
}

// plainOf returns what ex keeps of the real channel whose model id is id,
// or nil if id is not a real channel of plain Go used in ex.
//
//go:norace
func (ex *Execution) plainOf(id uint64) *plainInfo {
	if id <= idBase || id-idBase > uint64(len(ex.objs)) {
		return nil
	}
	return ex.objs[id-idBase-1].plain
}

// chanIDs calls f with each channel that op uses.
//
//go:norace
func chanIDs(op *syncmodel.Op, f func(uint64)) {
	switch op.Kind {
	case syncmodel.ChanSend, syncmodel.ChanRecv, syncmodel.ChanClose, syncmodel.ChanLen, syncmodel.ChanWake, syncmodel.Select:
	default:
		return
	}
	if op.Cases != nil {
		for _, c := range op.Cases {
			f(c.Chan)
		}
		return
	}
	f(op.Obj)
}

// importCloses closes in the model, as a step of th before op (reported at
// pcs), each real channel that code outside the model closed while the
// model has it open: a channel of op, or one that a parked goroutine waits
// on. The close happened in th's transition (the code it ran outside the
// model closed it), or before the check: either way no checked goroutine
// can see the channel open any more.
//
//go:norace
func (th *Thread) importCloses(op *syncmodel.Op, pcs []uintptr) {
	ex := th.ex
	if ex.plainChans == 0 || !hchanCounts {
		return
	}
	imp := func(id uint64) {
		if pi := ex.plainOf(id); pi != nil && pi.closedOutside(ex) {
			pi.closedGen = ex.gen
			th.PointAt(syncmodel.Op{Kind: syncmodel.ChanClose, API: syncmodel.APIChanCloseOutside, Obj: id, Arg: int64(pi.hchan.dataqsiz)}, pcs)
		}
	}
	chanIDs(op, imp)
	for _, o := range ex.threads {
		if o != th && o.hasOp && o.status() == stParked && !o.final {
			chanIDs(&o.op, imp)
		}
	}
}

// importsCloses reports whether a close found outside the model may be
// imported before op (see importCloses): not before the operations of
// timers' goroutines and of Stop and Reset, which the model runs in the
// instant of the code before them (an operation in between would let time
// pass), nor before a goroutine's start.
//
//go:norace
func importsCloses(op *syncmodel.Op) bool {
	switch op.API {
	case syncmodel.APITimerFire, syncmodel.APITimerHalt, syncmodel.APITimerStop, syncmodel.APITimerNew, syncmodel.APIThreadStart:
		return false
	}
	return op.Kind != syncmodel.TimerWait && op.Kind != syncmodel.ThreadStart
}

// Outside implements executor.Outsider: what outside the model may wake
// the goroutines blocked in the running execution, if anything may.
//
//go:norace
func (r *Runner) Outside() string {
	var why []string
	if s := liveOutsiders(false); s != "" {
		why = append(why, s)
	}
	if ex := r.ex.Load(); ex != nil && ex.plainChans > 0 {
		seen := map[uint64]bool{}
		for _, th := range ex.threads {
			if !th.hasOp || th.status() != stParked || th.final {
				continue
			}
			chanIDs(&th.op, func(id uint64) {
				pi := ex.plainOf(id)
				if pi == nil || seen[id] {
					return
				}
				seen[id] = true
				where := "thread " + strconv.Itoa(th.tid)
				if len(th.last) > 0 {
					where += " waits on at " + Locate(th.last[0])
				} else {
					where += " waits on"
				}
				switch {
				case pi.closedOutside(ex):
					why = append(why, "the channel that "+where+" was closed outside the check")
				case pi.fedOutside() != "":
					why = append(why, "the channel that "+where+" "+pi.fedOutside())
				}
			})
		}
	}
	return strings.Join(why, "; and ")
}

// noteOutside adds to the events of the transition a note saying what
// outside the model may wake the execution's goroutines (wire.NoteOutside)
// when that changed: for a checker in another process, which cannot ask
// Outside. It is brief (where the goroutines are now is left out), and
// names the real channels fed from outside that the execution used,
// whether or not a goroutine waits on them.
//
//go:norace
func (ex *Execution) noteOutside() {
	gen := outsiders.gen.Load()
	if ex.notedGen == gen+1 && ex.notedFed == ex.fed {
		return
	}
	ex.notedGen, ex.notedFed = gen+1, ex.fed
	var why []string
	if s := liveOutsiders(true); s != "" {
		why = append(why, s)
	}
	if ex.fed != "" {
		why = append(why, ex.fed)
	}
	text := strings.Join(why, "; and ")
	if text == ex.noted {
		return
	}
	ex.noted = text
	ex.events = append(ex.events, wire.Note{Text: wire.NoteOutside + text})
}

// raceWithOutsider reports whether race report rep has an access made by
// a goroutine started outside a check (runOutside is at the bottom of its
// stack: the detector numbers goroutines its own way). That goroutine's
// accesses are ordered by the real locks and channels it uses, the
// checked goroutines' by the model: the detector cannot tell a race of
// the program from an order that stdbg hid. It reads by hand (see
// racelog.go).
//
//go:norace
func raceWithOutsider(rep string) bool {
	const name = runOutsideName + "("
	for i := 0; i+len(name) <= len(rep); i++ {
		if rep[i] == name[0] && rep[i:i+len(name)] == name {
			return true
		}
	}
	return false
}
