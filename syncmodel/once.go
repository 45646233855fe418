package syncmodel

import "fmt"

// Once states.
const (
	onceFresh = iota
	onceRunning
	onceDone
)

// once is a one-time initialisation control.
type once struct {
	state  int
	runner int // the thread running the initialiser, while onceRunning
}

func (w *World) onceEnabled(tid int, op Op) bool {
	o := w.onces[op.Obj]
	return o == nil || o.state != onceRunning || o.runner == tid
}

// onceBegin returns 1 if the caller is to run the initialiser, 0 if it has
// already run.
func (w *World) onceBegin(tid int, op Op) (int64, string) {
	o := w.onces[op.Obj]
	switch {
	case o == nil || o.state == onceFresh:
		put(&w.onces, op.Obj, &once{state: onceRunning, runner: tid})
		return 1, ""
	case o.state == onceRunning:
		// onceEnabled only lets the runner itself get here.
		return 0, fmt.Sprintf("recursive once %#x: its initialiser calls %s on it again (self-deadlock)",
			op.Obj, callName(op, "once"))
	}
	return 0, ""
}

// onceEnd marks the initialisation done. It is lenient: whatever the state,
// the control ends up done.
func (w *World) onceEnd(op Op) {
	put(&w.onces, op.Obj, &once{state: onceDone})
}
