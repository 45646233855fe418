package dlvbridge_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/stdbg/stdbg/debug/dlvbridge"
)

// Follow the replay of schedule 1;1;2 of a Go program built with
// -gcflags=all='-N -l', printing where each step's goroutine is, then hand
// the process over before the last step.
func Example() {
	cache, _ := os.UserCacheDir()
	dlv, err := dlvbridge.Find(cache)
	if err != nil {
		log.Fatal(err)
	}
	b, err := dlvbridge.Start(dlvbridge.Config{Dlv: dlv, Program: "./embrace-prog", Schedule: "1;1;2", Timeout: time.Minute})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	for {
		s, exit, err := b.Next()
		if err != nil || exit != nil || s.Over {
			return
		}
		fmt.Printf("step %d/%d  thread %d  goroutine %d  %s:%d\n", s.Step, s.Steps, s.Thread, s.Goroutine, s.File, s.Line)
		if s.Step == s.Steps {
			if err := b.HandOver(s); err != nil {
				log.Fatal(err)
			}
			fmt.Println("dlv connect", b.Addr)
			b.Wait(time.Hour)
			return
		}
	}
}
