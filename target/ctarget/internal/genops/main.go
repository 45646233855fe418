// Command genops writes the C header that mirrors syncmodel's operation kinds
// and API names, so that the C library and the Go model share one numbering.
//
// Usage: go run ./target/ctarget/internal/genops > target/ctarget/csrc/stdbg_ops.h
package main

import (
	"fmt"
	"os"

	"github.com/stdbg/stdbg/target/ctarget/opsheader"
)

func main() {
	if _, err := os.Stdout.WriteString(opsheader.Text()); err != nil {
		fmt.Fprintln(os.Stderr, "genops:", err)
		os.Exit(1)
	}
}
