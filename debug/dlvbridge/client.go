package dlvbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sync"
)

// The types below are the part of Delve's JSON-RPC API (version 2) that
// stdbg uses, with the field names Delve's server encodes. stdbg speaks
// the protocol itself rather than link Delve's client package, which
// brings the whole debugger (and its package initialisation, paid by
// every stdbg command) into the binary.

// EvalScope is where an expression is evaluated: a goroutine (-1 for the
// selected one) and a frame of its stack.
type EvalScope struct {
	GoroutineID  int64
	Frame        int
	DeferredCall int
}

// LoadConfig bounds how much of a variable Delve reads.
type LoadConfig struct {
	FollowPointers     bool
	MaxVariableRecurse int
	MaxStringLen       int
	MaxArrayValues     int
	MaxStructFields    int
}

// Function is a function of the target.
type Function struct {
	NameField string `json:"name"`
	Value     uint64 `json:"value"`
}

// Name is the function's name (nil: "").
func (f *Function) Name() string {
	if f == nil {
		return ""
	}
	return f.NameField
}

// Location is a place in the target's code.
type Location struct {
	PC       uint64    `json:"pc"`
	File     string    `json:"file"`
	Line     int       `json:"line"`
	Function *Function `json:"function,omitempty"`
}

// Stackframe is one frame of a goroutine's stack.
type Stackframe struct {
	Location
	Bottom bool   `json:"Bottom,omitempty"`
	Err    string `json:"Err"`
}

// Breakpoint is a breakpoint: where (FunctionName, or File and Line) and
// on which condition (Cond) to stop.
type Breakpoint struct {
	ID           int    `json:"id"`
	Name         string `json:"name"`
	Addr         uint64 `json:"addr"`
	File         string `json:"file"`
	Line         int    `json:"line"`
	FunctionName string `json:"functionName,omitempty"`
	Cond         string `json:"Cond"`
	Tracepoint   bool   `json:"continue"`
}

// Thread is a thread of the target, and where it stopped.
type Thread struct {
	ID          int         `json:"id"`
	PC          uint64      `json:"pc"`
	File        string      `json:"file"`
	Line        int         `json:"line"`
	Function    *Function   `json:"function,omitempty"`
	GoroutineID int64       `json:"goroutineID"`
	Breakpoint  *Breakpoint `json:"breakPoint,omitempty"`
}

// Goroutine is a goroutine of the target.
type Goroutine struct {
	ID             int64    `json:"id"`
	CurrentLoc     Location `json:"currentLoc"`
	UserCurrentLoc Location `json:"userCurrentLoc"`
	GoStatementLoc Location `json:"goStatementLoc"`
	StartLoc       Location `json:"startLoc"`
	ThreadID       int      `json:"threadID"`
	Status         uint64   `json:"status"`
	Unreadable     string   `json:"unreadable"`
}

// DebuggerState is the state of the target after a command.
type DebuggerState struct {
	Pid               int
	Running           bool
	CurrentThread     *Thread    `json:"currentThread,omitempty"`
	SelectedGoroutine *Goroutine `json:"currentGoroutine,omitempty"`
	Threads           []*Thread
	Exited            bool   `json:"exited"`
	ExitStatus        int    `json:"exitStatus"`
	StopReason        string `json:"stopReason,omitempty"`
	// Err is the error of the command that led to this state (not sent
	// by Delve: set by Continue).
	Err error `json:"-"`
}

// Variable is a value read from the target.
type Variable struct {
	Name       string       `json:"name"`
	Addr       uint64       `json:"addr"`
	OnlyAddr   bool         `json:"onlyAddr"`
	Type       string       `json:"type"`
	RealType   string       `json:"realType"`
	Flags      uint16       `json:"flags"`
	Kind       reflect.Kind `json:"kind"`
	Value      string       `json:"value"`
	Len        int64        `json:"len"`
	Cap        int64        `json:"cap"`
	Children   []Variable   `json:"children"`
	Base       uint64       `json:"base"`
	Unreadable string       `json:"unreadable"`
}

// Client is a client of a headless Delve's JSON-RPC API (version 2).
// Its methods may be called from several goroutines; Halt interrupts a
// Continue under way.
type Client struct {
	conn net.Conn
	enc  *json.Encoder // under mu

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan rpcResponse
	err     error // why the connection is gone, once it is
}

// rpcRequest and rpcResponse are JSON-RPC 1.0's messages, as Go's
// net/rpc/jsonrpc codec (Delve's server) reads and writes them.
type rpcRequest struct {
	Method string `json:"method"`
	Params [1]any `json:"params"`
	ID     uint64 `json:"id"`
}

type rpcResponse struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  any             `json:"error"`
}

// NewClient speaks Delve's API over conn.
func NewClient(conn net.Conn) (*Client, error) {
	c := &Client{conn: conn, enc: json.NewEncoder(conn), pending: map[uint64]chan rpcResponse{}}
	go c.read()
	type setVersionIn struct{ APIVersion int }
	if err := c.call("SetApiVersion", setVersionIn{APIVersion: 2}, &struct{}{}); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// read hands each response to the call waiting for it, until the
// connection fails; then every call waiting gets the error.
func (c *Client) read() {
	dec := json.NewDecoder(c.conn)
	for {
		var r rpcResponse
		if err := dec.Decode(&r); err != nil {
			c.mu.Lock()
			if c.err == nil {
				c.err = fmt.Errorf("dlv: connection lost: %w", err)
			}
			for id, ch := range c.pending {
				delete(c.pending, id)
				close(ch)
			}
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		ch := c.pending[r.ID]
		delete(c.pending, r.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

// call calls RPCServer.method with in and decodes its result into out.
func (c *Client) call(method string, in, out any) error {
	ch := make(chan rpcResponse, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	err := c.enc.Encode(rpcRequest{Method: "RPCServer." + method, Params: [1]any{in}, ID: id})
	if err != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("dlv: %s: %w", method, err)
	}
	r, ok := <-ch
	if !ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	}
	if r.Error != nil {
		if s, ok := r.Error.(string); ok {
			return errors.New(s)
		}
		return fmt.Errorf("%v", r.Error)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("dlv: %s: reading the answer: %w", method, err)
	}
	return nil
}

// close closes the connection; calls under way fail.
func (c *Client) close() error { return c.conn.Close() }

// debuggerCommand is a command that runs or stops the target.
type debuggerCommand struct {
	Name        string `json:"name"`
	GoroutineID int64  `json:"goroutineID,omitempty"`
}

type commandOut struct {
	State DebuggerState
}

// ProcessPid is the target's process id (0 if Delve did not say).
func (c *Client) ProcessPid() int {
	var out struct{ Pid int }
	if err := c.call("ProcessPid", struct{}{}, &out); err != nil {
		return 0
	}
	return out.Pid
}

// GetState returns the target's state, waiting for it to stop.
func (c *Client) GetState() (*DebuggerState, error) {
	var out struct{ State *DebuggerState }
	err := c.call("State", struct{ NonBlocking bool }{}, &out)
	return out.State, err
}

// Continue resumes the target; the channel receives the state it stopped
// in (Err set if the command failed, and when the target exited) and is
// then closed.
func (c *Client) Continue() <-chan *DebuggerState {
	ch := make(chan *DebuggerState, 1)
	go func() {
		defer close(ch)
		var out commandOut
		err := c.call("Command", debuggerCommand{Name: "continue"}, &out)
		st := out.State
		if err != nil {
			st.Err = err
		}
		if st.Exited {
			st.Err = fmt.Errorf("process %d has exited with status %d", st.Pid, st.ExitStatus)
		}
		ch <- &st
	}()
	return ch
}

// Halt stops the running target.
func (c *Client) Halt() (*DebuggerState, error) {
	var out commandOut
	err := c.call("Command", debuggerCommand{Name: "halt"}, &out)
	return &out.State, err
}

// SwitchGoroutine makes goroutine g the selected one.
func (c *Client) SwitchGoroutine(g int64) (*DebuggerState, error) {
	var out commandOut
	err := c.call("Command", debuggerCommand{Name: "switchGoroutine", GoroutineID: g}, &out)
	return &out.State, err
}

// CreateBreakpoint sets a breakpoint and returns it as Delve set it.
func (c *Client) CreateBreakpoint(bp *Breakpoint) (*Breakpoint, error) {
	in := struct{ Breakpoint Breakpoint }{*bp}
	var out struct{ Breakpoint Breakpoint }
	err := c.call("CreateBreakpoint", in, &out)
	return &out.Breakpoint, err
}

// ClearBreakpoint removes the breakpoint id.
func (c *Client) ClearBreakpoint(id int) (*Breakpoint, error) {
	var out struct{ Breakpoint *Breakpoint }
	err := c.call("ClearBreakpoint", struct {
		Id   int
		Name string
	}{Id: id}, &out)
	return out.Breakpoint, err
}

// EvalVariable evaluates expr in scope.
func (c *Client) EvalVariable(scope EvalScope, expr string, cfg LoadConfig) (*Variable, error) {
	in := struct {
		Scope EvalScope
		Expr  string
		Cfg   *LoadConfig
	}{scope, expr, &cfg}
	var out struct{ Variable *Variable }
	if err := c.call("Eval", in, &out); err != nil {
		return nil, err
	}
	if out.Variable == nil {
		return nil, fmt.Errorf("dlv: %s: no value", expr)
	}
	return out.Variable, nil
}

type scopeIn struct {
	Scope EvalScope
	Cfg   LoadConfig
}

// ListLocalVariables lists the local variables of scope's frame.
func (c *Client) ListLocalVariables(scope EvalScope, cfg LoadConfig) ([]Variable, error) {
	var out struct{ Variables []Variable }
	err := c.call("ListLocalVars", scopeIn{scope, cfg}, &out)
	return out.Variables, err
}

// ListFunctionArgs lists the arguments of scope's frame.
func (c *Client) ListFunctionArgs(scope EvalScope, cfg LoadConfig) ([]Variable, error) {
	var out struct{ Args []Variable }
	err := c.call("ListFunctionArgs", scopeIn{scope, cfg}, &out)
	return out.Args, err
}

// ListGoroutines lists count goroutines from the start-th (0, 0: all)
// and returns where the next page starts.
func (c *Client) ListGoroutines(start, count int) ([]*Goroutine, int, error) {
	var out struct {
		Goroutines []*Goroutine
		Nextg      int
	}
	err := c.call("ListGoroutines", struct{ Start, Count int }{start, count}, &out)
	return out.Goroutines, out.Nextg, err
}

// Stacktrace returns up to depth frames of goroutine g's stack.
func (c *Client) Stacktrace(g int64, depth int) ([]Stackframe, error) {
	in := struct {
		Id    int64
		Depth int
	}{g, depth}
	var out struct{ Locations []Stackframe }
	err := c.call("Stacktrace", in, &out)
	return out.Locations, err
}

// FindLocation resolves a location expression (such as *0x4a2f10).
func (c *Client) FindLocation(scope EvalScope, loc string) ([]Location, error) {
	in := struct {
		Scope                     EvalScope
		Loc                       string
		IncludeNonExecutableLines bool
	}{scope, loc, true}
	var out struct{ Locations []Location }
	err := c.call("FindLocation", in, &out)
	return out.Locations, err
}

// ListBreakpoints lists the breakpoints set (all: Delve's own too).
func (c *Client) ListBreakpoints(all bool) ([]*Breakpoint, error) {
	var out struct{ Breakpoints []*Breakpoint }
	err := c.call("ListBreakpoints", struct{ All bool }{all}, &out)
	return out.Breakpoints, err
}

// Detach ends the session: Delve detaches from the target (killing it
// if kill) and quits; the connection is closed.
func (c *Client) Detach(kill bool) error {
	defer c.close()
	return c.call("Detach", struct{ Kill bool }{kill}, &struct{}{})
}

// Disconnect closes the connection and leaves Delve and the target as
// they are.
func (c *Client) Disconnect() error { return c.close() }
