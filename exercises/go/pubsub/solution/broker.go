package main

import "sync"

// subscriber is one subscription: its channel, and done, closed when it
// unsubscribes, which a Publish blocked on it also watches.
type subscriber struct {
	ch   chan string
	done chan struct{}
}

// Broker delivers each published message to every subscriber. One mutex
// guards the list of subscribers; a Publish waiting for a subscriber to
// receive also watches whether it unsubscribes, so that it never waits
// for ever on one who has left.
type Broker struct {
	mu   sync.Mutex
	subs []*subscriber
}

// NewBroker returns a broker without subscribers.
func NewBroker() *Broker { return &Broker{} }

// Subscribe returns a channel on which the messages published from now on
// arrive, in order, and the function that unsubscribes: after it, no
// message arrives and the channel is closed.
func (b *Broker) Subscribe() (<-chan string, func()) {
	s := &subscriber{ch: make(chan string), done: make(chan struct{})}
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			close(s.done) // a Publish waiting on s stops waiting
			b.mu.Lock()
			defer b.mu.Unlock()
			for i, t := range b.subs {
				if t == s {
					b.subs = append(b.subs[:i], b.subs[i+1:]...)
					close(s.ch)
					return
				}
			}
		})
	}
}

// Publish delivers msg to every subscriber, in turn, each of whom must
// receive it (or unsubscribe) before the next gets it.
func (b *Broker) Publish(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		select {
		case s.ch <- msg:
		case <-s.done:
		}
	}
}

// Close unsubscribes everyone: every channel still open is closed.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		close(s.ch)
	}
	b.subs = nil
}
