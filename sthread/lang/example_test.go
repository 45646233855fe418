package lang_test

import (
	"bytes"
	"fmt"

	"github.com/stdbg/stdbg/sthread/lang"
)

// The functions on real channels are what stdbg's build-time
// instrumentation turns plain Go into; outside a check they are the real
// operations.
func ExampleSelectOf() {
	c := make(chan int, 1)
	lang.ChanSend(c, 42) // c <- 42
	r := lang.RecvCaseOf(c)
	switch lang.SelectOf(true, r) { // select { case v := <-c: ...; default: ... }
	case 0:
		fmt.Println("received", r.Val())
	case -1:
		fmt.Println("nothing ready")
	}
	// Output: received 42
}

// SendTo passes the value as the channel's element type: a value of
// another type that the element type accepts (a *bytes.Buffer on a chan of
// fmt.Stringer) converts as the send statement converts it.
func ExampleSendTo() {
	c := make(chan fmt.Stringer, 2)
	lang.SendTo(c).Send(&bytes.Buffer{}) // c <- &bytes.Buffer{}
	var b bytes.Buffer
	b.WriteString("second")
	s := lang.SendTo(c).Case(&b)      // case c <- &b:
	if lang.SelectOf(false, s) == 0 { // select { case c <- &b: ... }
		fmt.Printf("%q %q\n", (<-c).String(), (<-c).String())
	}
	// Output: "" "second"
}

// The instrumentation of plain Go adds to each package it rewrites a file
// whose init function registers the package's variables, as here. Outside
// stdbg's search nothing more happens; the search inside a test's process
// puts them back before each execution.
func ExamplePackageVars() {
	var hits int
	lang.PackageVars("example.com/m", []lang.Var{{Name: "hits", Pos: "hits.go:3", Addr: &hits}})
	hits++
	fmt.Println(hits)
	// Output: 1
}
