package sync

import (
	stdsync "sync"
	"unsafe"

	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Map is a drop-in replacement for sync.Map. Under a check every method is a
// scheduling point: Load and Range read the map, the others write it, so
// that the search runs a Store before or after another goroutine's Load or
// Range (Range's point comes before its first call of f; f runs outside
// any lock, as with sync.Map, and may use the map). The values live in a
// real sync.Map, whose own synchronisation is what a race detector sees.
// Outside a check the methods are those of sync.Map.
type Map struct{ m stdsync.Map }

//go:norace
func (x *Map) point(k syncmodel.Kind, api syncmodel.API) {
	if rt.Hooked() {
		rt.MemPoint(k, api, unsafe.Pointer(x), unsafe.Sizeof(*x))
	}
}

// Load returns the value stored for key, or nil, and whether it was there.
func (x *Map) Load(key any) (value any, ok bool) {
	x.point(syncmodel.Read, syncmodel.APIMapLoad)
	return x.m.Load(key)
}

// Store sets the value for key.
func (x *Map) Store(key, value any) {
	x.point(syncmodel.Write, syncmodel.APIMapStore)
	x.m.Store(key, value)
}

// LoadOrStore returns the existing value for key if present (loaded true);
// otherwise it stores and returns value.
func (x *Map) LoadOrStore(key, value any) (actual any, loaded bool) {
	x.point(syncmodel.Write, syncmodel.APIMapLoadOrStore)
	return x.m.LoadOrStore(key, value)
}

// LoadAndDelete deletes the value for key, returning it if it was there.
func (x *Map) LoadAndDelete(key any) (value any, loaded bool) {
	x.point(syncmodel.Write, syncmodel.APIMapLoadAndDelete)
	return x.m.LoadAndDelete(key)
}

// Delete deletes the value for key.
func (x *Map) Delete(key any) {
	x.point(syncmodel.Write, syncmodel.APIMapDelete)
	x.m.Delete(key)
}

// Swap stores value for key and returns the previous value, if any.
func (x *Map) Swap(key, value any) (previous any, loaded bool) {
	x.point(syncmodel.Write, syncmodel.APIMapSwap)
	return x.m.Swap(key, value)
}

// CompareAndSwap swaps the old and new values for key if the value stored
// is equal to old.
func (x *Map) CompareAndSwap(key, old, new any) (swapped bool) {
	x.point(syncmodel.Write, syncmodel.APIMapCompareAndSwap)
	return x.m.CompareAndSwap(key, old, new)
}

// CompareAndDelete deletes the entry for key if its value is equal to old.
func (x *Map) CompareAndDelete(key, old any) (deleted bool) {
	x.point(syncmodel.Write, syncmodel.APIMapCompareAndDel)
	return x.m.CompareAndDelete(key, old)
}

// Range calls f for each key and value in the map, until f returns false.
func (x *Map) Range(f func(key, value any) bool) {
	x.point(syncmodel.Read, syncmodel.APIMapRange)
	x.m.Range(f)
}

// Clear deletes every entry.
func (x *Map) Clear() {
	x.point(syncmodel.Write, syncmodel.APIMapClear)
	x.m.Clear()
}
