package gotest_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stdbg/stdbg/frontend/gotest"
)

// Every test of the module in the current directory, each searched for 10
// seconds at most, the report on stdout as stdbg test writes it.
func ExampleRun() {
	sum, err := gotest.Run(context.Background(), gotest.Config{
		Patterns: []string{"./..."},
		Search:   gotest.SearchWith(10*time.Second, false),
		Stdout:   os.Stdout,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range sum.Results {
		if r.Status == "BUG" {
			fmt.Printf("%s.%s: %s\n", r.Package, r.Test, r.Detail)
		}
	}
}
