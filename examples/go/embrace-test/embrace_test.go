// Package embracetest shows a Go test checked by stdbg out of process:
//
//	stdbg find -run TestEmbrace ./examples/go/embrace-test
//
// Its bug is deliberate, so under plain go test (where sthread.Check would
// explore in-process and fail) it is skipped unless STDBG_EXAMPLE_BUGS=1.
package embracetest

import (
	"os"
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

// transfer locks two accounts in the order given: two transfers in
// opposite directions can deadlock.
func transfer(from, to *sthread.Mutex, done *sthread.WaitGroup) {
	defer done.Done()
	from.Lock()
	to.Lock()
	to.Unlock()
	from.Unlock()
}

func TestEmbrace(t *testing.T) {
	if os.Getenv("STDBG_CTL") == "" && os.Getenv("STDBG_EXAMPLE_BUGS") == "" {
		t.Skip("a deliberate bug: run stdbg find -run TestEmbrace ./examples/go/embrace-test")
	}
	sthread.Check(t, func() {
		var a, b sthread.Mutex
		var wg sthread.WaitGroup
		wg.Add(2)
		sthread.Go(func() { transfer(&a, &b, &wg) })
		sthread.Go(func() { transfer(&b, &a, &wg) })
		wg.Wait()
	})
}
