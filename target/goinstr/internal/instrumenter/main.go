// Command instrumenter is package goinstr as a command: it reads one
// request on its standard input and writes the answer on its standard
// output. A stdbg built with an older Go than a program's builds it with
// the program's toolchain and runs it to read the program's code (see
// goinstr's toolchain.go).
package main

import (
	"fmt"
	"os"

	"github.com/stdbg/stdbg/target/goinstr"
)

func main() {
	if err := goinstr.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "instrumenter:", err)
		os.Exit(2)
	}
}
