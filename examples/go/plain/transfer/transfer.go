// Package transfer moves money between accounts, each behind its own lock.
package transfer

import "sync"

// Account is a balance behind a lock.
type Account struct {
	mu      sync.Mutex
	Balance int
}

// Transfer moves amount from one account to another. It locks the two
// accounts in the order of its arguments: two transfers in opposite
// directions can each hold one lock and wait for the other (AB-BA).
func Transfer(from, to *Account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}

// TransferOrdered is Transfer with the locks always taken in one order
// (by the accounts' IDs), which cannot deadlock.
func TransferOrdered(from, to *Account, fromID, toID, amount int) {
	first, second := from, to
	if toID < fromID {
		first, second = to, from
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}
