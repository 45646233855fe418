package lang

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// MapRangeLoop is the range clause of for k, v := range m rewritten into a
// three-clause loop (as ChanRangeLoop is for channels):
//
//	for next, k, v, ok := lang.MapRangeLoop(m); ok; k, v, ok = next() {
//
// Go leaves the order of a range over a map unspecified and makes it
// differ from one run to the next. Under a check (sthread.Check, stdbg
// find), the order is part of what the schedule determines, as the random
// numbers of math/rand are: the keys are put in their natural order, then
// shuffled by a generator of the execution seeded with the same seed in
// every execution (sthread.RandSeedEnv), so that a schedule replays with
// the same orders and another seed gives others. That needs keys with an
// order that repeats in every execution: booleans, numbers and strings,
// and arrays and structs of them; a range over a map of other keys
// (pointers, channels, interfaces) keeps Go's order. Outside a check the
// order is Go's.
//
// As a range does, the loop produces each entry at most once, leaves out
// the entries deleted before it reaches them and gives each entry's value
// when it reaches it; an entry added during the loop is not produced (Go
// may produce it or not).
//
//go:noinline
//go:norace
func MapRangeLoop[K comparable, V any](m map[K]V) (next func() (K, V, bool), k K, v V, ok bool) {
	it := &mapIter[K, V]{m: m, keys: make([]K, 0, len(m))}
	for k := range m {
		it.keys = append(it.keys, k)
	}
	if g := rt.MapOrder(); g != nil && len(it.keys) > 1 && orderKeys(it.keys) {
		g.Shuffle(len(it.keys), func(i, j int) { it.keys[i], it.keys[j] = it.keys[j], it.keys[i] })
	}
	k, v, ok = it.next()
	return it.next, k, v, ok
}

// mapIter is the state of a MapRangeLoop.
type mapIter[K comparable, V any] struct {
	m    map[K]V
	keys []K // the keys in the order of the loop
	i    int // the next key
	// nan holds the values of the keys not equal to themselves (a NaN),
	// which no lookup finds.
	nan map[int]V
}

//go:norace
func (it *mapIter[K, V]) next() (K, V, bool) {
	for it.i < len(it.keys) {
		k := it.keys[it.i]
		it.i++
		if k != k {
			if len(it.m) == 0 {
				continue // cleared
			}
			return k, it.nanValue(k), true
		}
		if v, ok := it.m[k]; ok {
			return k, v, true
		}
	}
	var k K
	var v V
	return k, v, false
}

// nanValue returns the value of the key k that is not equal to itself: the
// values of such keys, which no lookup finds, are taken in Go's order of
// the keys that are not equal to themselves, which are otherwise alike.
//
//go:norace
func (it *mapIter[K, V]) nanValue(k K) V {
	if it.nan == nil {
		it.nan = map[int]V{}
		var vals []V
		for k2, v := range it.m {
			if k2 != k2 {
				vals = append(vals, v)
			}
		}
		n := 0
		for i, k2 := range it.keys {
			if k2 != k2 && n < len(vals) {
				it.nan[i] = vals[n]
				n++
			}
		}
	}
	return it.nan[it.i-1]
}

// orderKeys sorts keys in their natural order and reports whether it could:
// keys of a type that holds pointers, channels or interfaces have none that
// repeats in every execution.
//
//go:norace
func orderKeys[K comparable](keys []K) bool {
	switch ks := any(keys).(type) {
	case []string:
		slices.Sort(ks)
	case []int:
		slices.Sort(ks)
	case []int64:
		slices.Sort(ks)
	case []int32:
		slices.Sort(ks)
	case []uint64:
		slices.Sort(ks)
	case []uint32:
		slices.Sort(ks)
	case []uint:
		slices.Sort(ks)
	default:
		if !orderable(reflect.TypeFor[K]()) {
			return false
		}
		slices.SortFunc(keys, func(a, b K) int { return compareValues(reflect.ValueOf(a), reflect.ValueOf(b)) })
	}
	return true
}

// orderable reports whether the values of t have an order that repeats in
// every execution: no pointer, channel or interface in them.
func orderable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return orderable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !orderable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// compareValues orders two values of an orderable type: numbers and
// strings as cmp.Compare does, false before true, arrays and structs
// element by element.
func compareValues(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.Bool:
		switch {
		case a.Bool() == b.Bool():
			return 0
		case a.Bool():
			return 1
		}
		return -1
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Complex64, reflect.Complex128:
		if c := cmp.Compare(real(a.Complex()), real(b.Complex())); c != 0 {
			return c
		}
		return cmp.Compare(imag(a.Complex()), imag(b.Complex()))
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Array:
		for i := range a.Len() {
			if c := compareValues(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if c := compareValues(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
	}
	return 0
}
