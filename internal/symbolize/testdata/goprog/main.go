// Command goprog is built by the tests of package symbolize with and
// without DWARF: its functions, one of them inlined, are symbolized in both
// builds.
package main

import (
	"fmt"
	"os"
)

type counter struct{ n int }

// add is small enough to be inlined into its callers.
func (c *counter) add(k int) { c.n += k }

//go:noinline
func count(words []string) int {
	c := &counter{}
	for _, w := range words {
		c.add(len(w))
	}
	return c.n
}

func main() {
	fmt.Println(count(os.Args))
}
