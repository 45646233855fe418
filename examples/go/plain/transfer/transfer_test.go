package transfer

import (
	"os"
	"sync"
	"testing"
)

func TestTransfer(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("a deliberate AB-BA deadlock: run STDBG_ZOO=1 stdbg find -run TestTransfer ./examples/go/plain/transfer")
	}
	a, b := &Account{Balance: 100}, &Account{Balance: 100}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		Transfer(a, b, 10)
	}()
	go func() {
		defer wg.Done()
		Transfer(b, a, 20)
	}()
	wg.Wait()
	if a.Balance+b.Balance != 200 {
		t.Errorf("money was created or lost: %d", a.Balance+b.Balance)
	}
}

func TestTransferOrdered(t *testing.T) {
	a, b := &Account{Balance: 100}, &Account{Balance: 100}
	done := make(chan struct{})
	go func() {
		defer close(done)
		TransferOrdered(a, b, 1, 2, 10)
	}()
	TransferOrdered(b, a, 2, 1, 20)
	<-done
	if a.Balance != 110 || b.Balance != 90 {
		t.Errorf("balances %d and %d, want 110 and 90", a.Balance, b.Balance)
	}
}
