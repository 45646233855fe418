package lang_test

import (
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
