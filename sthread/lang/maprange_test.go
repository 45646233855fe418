package lang_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/sthread/lang"
)

// collect runs for k, v := range m through MapRangeLoop, calling body on
// each entry, and returns the keys in the loop's order.
func collect[K comparable, V any](m map[K]V, body func(K, V)) []K {
	var keys []K
	for next, k, v, ok := lang.MapRangeLoop(m); ok; k, v, ok = next() {
		keys = append(keys, k)
		if body != nil {
			body(k, v)
		}
	}
	return keys
}

// MapRangeLoop keeps the meaning of a range over a map: every entry once,
// with its value; none deleted before it is reached; keys not equal to
// themselves (NaN) with their values.
func TestMapRangeLoopMeaning(t *testing.T) {
	m := map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}
	sum := 0
	keys := collect(m, func(k string, v int) { sum += v })
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"a", "b", "c", "d"}) || sum != 10 {
		t.Errorf("keys %v, sum %d", keys, sum)
	}

	// The first entry reached deletes every other.
	seen := collect(m, func(k string, _ int) {
		for k2 := range m {
			if k2 != k {
				delete(m, k2)
			}
		}
	})
	if len(seen) != 1 || len(m) != 1 {
		t.Errorf("after deleting the others: loop saw %v, map %v", seen, m)
	}

	// A value changed before its entry is reached is the new value.
	m = map[string]int{"a": 1, "b": 1}
	var vals []int
	collect(m, func(k string, v int) {
		vals = append(vals, v)
		for k2 := range m {
			m[k2] = 5
		}
	})
	if !slices.Equal(vals, []int{1, 5}) {
		t.Errorf("values %v, want [1 5]", vals)
	}

	nan := math.NaN()
	f := map[float64]string{nan: "x", nan: "y", 1: "one"}
	var got []string
	collect(f, func(_ float64, v string) { got = append(got, v) })
	slices.Sort(got)
	if !slices.Equal(got, []string{"one", "x", "y"}) {
		t.Errorf("values with NaN keys: %v", got)
	}

	if keys := collect(map[int]bool(nil), nil); len(keys) != 0 {
		t.Errorf("nil map: %v", keys)
	}
}

// Under a check, the order of a range over a map is the same in every
// execution (the search explores one, whatever the schedule), and a
// permutation that is not the keys' natural order, for some maps: it is
// shuffled.
func TestMapRangeLoopOrderUnderCheck(t *testing.T) {
	type point struct{ x, y int }
	for _, tt := range []struct {
		name string
		loop func() string
	}{
		{"strings", func() string {
			return fmt.Sprint(collect(map[string]int{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}, nil))
		}},
		{"structs", func() string {
			return fmt.Sprint(collect(map[point]int{{1, 2}: 1, {0, 1}: 2, {1, 1}: 3, {2, 0}: 4, {0, 0}: 5}, nil))
		}},
		{"floats", func() string {
			return fmt.Sprint(collect(map[float64]int{1.5: 1, -2: 2, 3: 3, 0: 4, 9: 5}, nil))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orders := map[string]int{}
			res, err := sthread.Explore(func() {
				var mu sthread.Mutex
				done := sthread.MakeChan[bool](0)
				n := 0
				sthread.Go(func() { mu.Lock(); n++; mu.Unlock(); done.Send(true) })
				mu.Lock()
				orders[tt.loop()]++
				n++
				mu.Unlock()
				done.Recv()
			})
			if err != nil || len(res.Bugs) > 0 || !res.Complete {
				t.Fatalf("explore: %v, %+v", err, res)
			}
			if len(orders) != 1 || res.Stats.Executions < 2 {
				t.Fatalf("orders over %d executions: %v, want one", res.Stats.Executions, orders)
			}
		})
	}
	// Shuffled: among a few maps, not every order is the natural one.
	natural := 0
	for n := 3; n < 8; n++ {
		var order string
		if _, err := sthread.Explore(func() {
			m := map[int]bool{}
			for i := range n {
				m[i] = true
			}
			order = fmt.Sprint(collect(m, nil))
		}); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(order, "[0 1 2") && strings.HasSuffix(order, fmt.Sprint(n-1)+"]") && slices.IsSorted(strings.Fields(strings.Trim(order, "[]"))) {
			natural++
		}
	}
	if natural == 5 {
		t.Error("every map was ranged over in its keys' natural order: not shuffled")
	}
}

// A range over a map, as stdbg's instrumentation rewrites it: outside a
// check the order is Go's; under one it is part of what the schedule
// determines.
func ExampleMapRangeLoop() {
	ages := map[string]int{"ann": 31, "bob": 27}
	total := 0
	// for _, age := range ages {
	for next, _, age, ok := lang.MapRangeLoop(ages); ok; _, age, ok = next() {
		total += age
	}
	fmt.Println(total)
	// Output: 58
}
