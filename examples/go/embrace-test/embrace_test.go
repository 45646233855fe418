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

// account is a balance behind a lock.
type account struct {
	mu      sthread.Mutex
	balance int
}

// transfer locks two accounts in the order given: two transfers in
// opposite directions can deadlock.
func transfer(from, to *account, done *sthread.WaitGroup) {
	defer done.Done()
	from.mu.Lock()
	to.mu.Lock()
	from.balance--
	to.balance++
	to.mu.Unlock()
	from.mu.Unlock()
}

func TestEmbrace(t *testing.T) {
	if !sthread.UnderStdbg() && os.Getenv("STDBG_EXAMPLE_BUGS") == "" {
		t.Skip("a deliberate bug: run stdbg find -run TestEmbrace ./examples/go/embrace-test")
	}
	sthread.Check(t, func() {
		var a, b account
		var wg sthread.WaitGroup
		wg.Add(2)
		sthread.Go(func() { transfer(&a, &b, &wg) })
		sthread.Go(func() { transfer(&b, &a, &wg) })
		wg.Wait()
	})
}
