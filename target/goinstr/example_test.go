package goinstr_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/stdbg/stdbg/target/goinstr"
)

// Instrument a plain Go program; build it with
// go build -overlay=<res.Overlay>.
func ExampleInstrument() {
	cache, err := os.MkdirTemp("", "goinstr-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cache)
	dir, _ := filepath.Abs(filepath.Join("testdata", "constructs"))
	res, err := goinstr.Instrument(goinstr.Config{Dir: dir, Cache: cache})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Files, "files rewritten, cached:", res.Cached)
	res, _ = goinstr.Instrument(goinstr.Config{Dir: dir, Cache: cache})
	fmt.Println("second run cached:", res.Cached)
	// Output:
	// 2 files rewritten, cached: false
	// second run cached: true
}
