package main

// Broker delivers each published message to every subscriber. Many
// goroutines use it at once: subscribers receive on their channels while
// others publish, and may unsubscribe at any moment.
type Broker struct {
	subs []chan string
}

// NewBroker returns a broker without subscribers.
func NewBroker() *Broker { return &Broker{} }

// Subscribe returns a channel on which the messages published from now on
// arrive, in order, and the function that unsubscribes: after it, no
// message arrives and the channel is closed (once: unsubscribing twice, or
// after Close, does nothing more).
func (b *Broker) Subscribe() (<-chan string, func()) {
	ch := make(chan string)
	b.subs = append(b.subs, ch)
	return ch, func() {}
}

// Publish delivers msg to every subscriber, in turn, each of whom must
// receive it (or unsubscribe) before the next gets it. It must not wait
// for ever on a subscriber who unsubscribes instead of receiving.
func (b *Broker) Publish(msg string) {
	for _, ch := range b.subs {
		ch <- msg
	}
}

// Close unsubscribes everyone: every channel still open is closed.
func (b *Broker) Close() {
	for _, ch := range b.subs {
		close(ch)
	}
	b.subs = nil
}
