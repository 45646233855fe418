package rt

// Bubbles of testing/synctest (see package lang's Bubble and syncmodel's
// bubble.go). The model decides what a bubble does; the runtime knows
// which bubble each goroutine belongs to (a goroutine started by one of a
// bubble belongs to it, as in the model) for the race detector: as Go's
// runtime records that a goroutine of a bubble that blocks happens before
// the synctest.Wait that follows, and that its end happens before
// synctest.Test returns, every scheduling point of a goroutine of a
// bubble releases into the bubble's variable, which synctest.Wait and the
// end of synctest.Test (a BubbleWait or BubbleEnd on the bubble's object)
// acquire.

// EnterBubble makes th, the root goroutine of the bubble whose model id is
// id, a goroutine of it.
//
//go:norace
func (th *Thread) EnterBubble(id uint64) { th.bubble = id }

// Bubble returns the model id of the bubble th belongs to, 0 if none.
//
//go:norace
func (th *Thread) Bubble() uint64 { return th.bubble }

// raceBubble releases what th did so far into its bubble's variable,
// before a scheduling point hides th's synchronisation.
//
//go:norace
func (th *Thread) raceBubble() { raceReleaseMerge(th.ex.raceVar(th.bubble)) }
