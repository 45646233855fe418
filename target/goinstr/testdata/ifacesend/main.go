// Command ifacesend sends values of a concrete type on channels whose
// element type is an interface the type implements, in a statement and in
// a select's case: the send converts them.
package main

import (
	"fmt"
	"strings"
)

type shape interface{ area() int }

type square struct{ side int }

func (s *square) area() int { return s.side * s.side }

type events chan fmt.Stringer

func main() {
	shapes := make(chan shape, 3)
	shapes <- &square{2}
	var sq *square = &square{3}
	shapes <- sq
	select {
	case shapes <- &square{4}:
	default:
	}
	close(shapes)
	total := 0
	for s := range shapes {
		total += s.area()
	}
	fmt.Println("total", total)

	ev := make(events, 1)
	var b strings.Builder
	b.WriteString("built")
	ev <- &b
	fmt.Println((<-ev).String())

	errs := make(chan error, 1)
	errs <- nil
	fmt.Println("nil error", <-errs == nil)
}
