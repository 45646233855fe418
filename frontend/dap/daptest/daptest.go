// Package daptest is a Debug Adapter Protocol client for tests of a
// server: it sends requests built with github.com/google/go-dap and waits,
// for a bounded time, for their responses and for events.
package daptest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	godap "github.com/google/go-dap"
)

// Client speaks to one server.
type Client struct {
	w       io.Writer
	timeout time.Duration

	mu      sync.Mutex
	seq     int
	pending []godap.Message // read and not yet taken
	output  strings.Builder // the text of every output event
	events  []string        // every event's name, in order
	readErr error
	arrived chan struct{} // signalled when a message arrives or the stream ends
}

// New returns a client that reads the server's messages from r and writes
// requests to w; every wait is bounded by timeout.
func New(r io.Reader, w io.Writer, timeout time.Duration) *Client {
	c := &Client{w: w, timeout: timeout, arrived: make(chan struct{}, 1)}
	go c.read(bufio.NewReader(r))
	return c
}

func (c *Client) read(r *bufio.Reader) {
	for {
		m, err := godap.ReadProtocolMessage(r)
		c.mu.Lock()
		if err != nil {
			c.readErr = err
			c.mu.Unlock()
			c.signal()
			return
		}
		if e, ok := m.(godap.EventMessage); ok {
			c.events = append(c.events, e.GetEvent().Event)
			if o, ok := m.(*godap.OutputEvent); ok {
				c.output.WriteString(o.Body.Output)
			}
		}
		c.pending = append(c.pending, m)
		c.mu.Unlock()
		c.signal()
	}
}

func (c *Client) signal() {
	select {
	case c.arrived <- struct{}{}:
	default:
	}
}

// Send sends req with the next sequence number and returns that number.
func (c *Client) Send(req godap.RequestMessage) (int, error) {
	c.mu.Lock()
	c.seq++
	r := req.GetRequest()
	r.Seq, r.Type = c.seq, "request"
	c.mu.Unlock()
	if err := godap.WriteProtocolMessage(c.w, req); err != nil {
		return 0, fmt.Errorf("sending %s: %w", r.Command, err)
	}
	return r.Seq, nil
}

// take waits for the first pending message that match accepts, removes
// and returns it.
func (c *Client) take(what string, match func(godap.Message) bool) (godap.Message, error) {
	deadline := time.NewTimer(c.timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		for i, m := range c.pending {
			if match(m) {
				c.pending = append(c.pending[:i:i], c.pending[i+1:]...)
				c.mu.Unlock()
				return m, nil
			}
		}
		err := c.readErr
		c.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("waiting for %s: the stream ended: %w", what, err)
		}
		select {
		case <-c.arrived:
		case <-deadline.C:
			return nil, fmt.Errorf("no %s within %v (events so far: %s)", what, c.timeout, strings.Join(c.Events(), ", "))
		}
	}
}

// ErrFailed wraps the message of an error response.
var ErrFailed = errors.New("the request failed")

// Do sends req and waits for its response: an error wrapping ErrFailed
// carries the message of an error response.
func (c *Client) Do(req godap.RequestMessage) (godap.ResponseMessage, error) {
	seq, err := c.Send(req)
	if err != nil {
		return nil, err
	}
	command := req.GetRequest().Command
	m, err := c.take("the response to "+command, func(m godap.Message) bool {
		r, ok := m.(godap.ResponseMessage)
		return ok && r.GetResponse().RequestSeq == seq
	})
	if err != nil {
		return nil, err
	}
	resp := m.(godap.ResponseMessage)
	if r := resp.GetResponse(); !r.Success {
		return resp, fmt.Errorf("%s: %w: %s", command, ErrFailed, r.Message)
	}
	return resp, nil
}

// Event waits for the next event named name not taken yet.
func (c *Client) Event(name string) (godap.EventMessage, error) {
	m, err := c.take("a "+name+" event", func(m godap.Message) bool {
		e, ok := m.(godap.EventMessage)
		return ok && e.GetEvent().Event == name
	})
	if err != nil {
		return nil, err
	}
	return m.(godap.EventMessage), nil
}

// Stopped waits for the next stopped event.
func (c *Client) Stopped() (*godap.StoppedEvent, error) {
	e, err := c.Event("stopped")
	if err != nil {
		return nil, err
	}
	return e.(*godap.StoppedEvent), nil
}

// Output returns the text of every output event so far.
func (c *Client) Output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.output.String()
}

// Events returns the names of every event so far, in order.
func (c *Client) Events() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.events...)
}

// Request returns a request of command, to give arguments to.
func Request(command string) godap.Request {
	return godap.Request{ProtocolMessage: godap.ProtocolMessage{Type: "request"}, Command: command}
}
