// Command maprange ranges over maps in every form a range clause takes;
// its output does not depend on their order.
package main

import (
	"fmt"
	"sort"
)

type point struct{ x, y int }

type names map[string]int

func sumValues[M ~map[K]V, K comparable, V int | float64](m M) V {
	var s V
	for _, v := range m {
		s += v
	}
	return s
}

func keysOf[K comparable, V any](m map[K]V) int {
	n := 0
	for k := range m {
		_ = k
		n++
	}
	return n
}

func main() {
	m := map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}
	var ks []string
	total := 0
	for k, v := range m {
		ks = append(ks, k)
		total += v
	}
	sort.Strings(ks)
	fmt.Println(ks, total)

	var k string
	var v int
	n := 0
	for k, v = range m {
		n += len(k) + v
	}
	fmt.Println("assigned", n, k != "", v > 0)

	var last struct{ k string }
	for last.k = range m {
	}
	fmt.Println("field", last.k != "")

	// Deleting the entries not reached yet: each entry is produced at
	// most once, and none after it was deleted.
	seen := 0
	for k := range m {
		seen++
		for k2 := range m {
			if k2 != k {
				delete(m, k2)
			}
		}
	}
	fmt.Println("seen after deletes", seen, len(m))

	pts := map[point]string{{1, 2}: "p", {0, 5}: "q", {1, 0}: "r"}
	var labels []string
	for p, l := range pts {
		labels = append(labels, fmt.Sprint(p.x+p.y, l))
	}
	sort.Strings(labels)
	fmt.Println(labels)

	fmt.Println("named", sumValues(names{"x": 1, "y": 2}), "generic", keysOf(map[float64]bool{1.5: true, 2.5: false}))

	ptrs := map[*point]int{{1, 1}: 1, {2, 2}: 2}
	sum := 0
	for p, w := range ptrs {
		sum += p.x * w
	}
	fmt.Println("pointers", sum)

	count := 0
	for range pts {
		count++
	}
	fmt.Println("count", count)
}
