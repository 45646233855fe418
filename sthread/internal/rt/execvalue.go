package rt

// Values of an execution: state of sthread's packages that lives as long
// as one execution (the bubble of testing/synctest a test's cleanups go
// to, see package lang). A slice, not a Go map: the runtime would report
// the accesses of different checked goroutines to a map to the race
// detector, which does not see the hand-overs that order them.

type execValue struct{ key, val any }

// Value returns the value stored under key in the execution of checked
// thread th (SetValue), nil if none.
//
//go:norace
func (th *Thread) Value(key any) any {
	for _, kv := range th.ex.values {
		if kv.key == key {
			return kv.val
		}
	}
	return nil
}

// SetValue stores val under key in the execution of checked thread th;
// nil removes it.
//
//go:norace
func (th *Thread) SetValue(key, val any) {
	ex := th.ex
	for i, kv := range ex.values {
		if kv.key == key {
			if val == nil {
				ex.values = append(ex.values[:i], ex.values[i+1:]...)
			} else {
				ex.values[i].val = val
			}
			return
		}
	}
	if val != nil {
		ex.values = append(ex.values, execValue{key, val})
	}
}
