package wire

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Header field offsets inside a slot (see struct stdbg_slot).
const (
	offMagic      = 0
	offVersion    = 4
	offGen        = 8
	offFlags      = 12
	offUpSeq      = 16
	offDownSeq    = 20
	offUpLen      = 24
	offDownLen    = 28
	offCkSleeping = 32
	offRtSleeping = 36
	offPid        = 40
	offDeadGen    = 44
	offDeadStatus = 48
	offCkCPU      = 52
	offRtCPU      = 56
	// The bounds of a step, which a runtime that keeps them itself (Go's)
	// reads; the C library leaves them alone (pad of struct stdbg_slot).
	offDeadline    = 64 // int64: Unix nanoseconds (0: none)
	offStepTimeout = 72 // int64: nanoseconds (0: the runtime's own)
)

// Mailbox is the shared memory between the checker and a target process:
// two slots, used by alternate execution generations.
type Mailbox struct {
	file *os.File
	mem  []byte
	spin atomic.Int64  // Wait's current poll, in nanoseconds (0: SpinTime)
	down atomic.Int64  // WaitDown's current poll, in loads (0: downPolls)
	cpu  atomic.Uint32 // 1 + the CPU this side's waiting thread is placed on (0: not placed)
}

// SetCPU tells the mailbox that the thread that waits and answers on this
// side runs on cpu alone (it was placed there); -1 says it is not placed.
// Each side says in the slot which CPU it handed over from, and does not
// poll for the other's answer when that one runs on its own CPU.
func (m *Mailbox) SetCPU(cpu int) {
	if cpu < 0 {
		m.cpu.Store(0)
		return
	}
	m.cpu.Store(uint32(cpu) + 1)
}

// NewMailbox creates an anonymous shared memory file holding two slots.
func NewMailbox() (*Mailbox, error) {
	fd, err := unix.MemfdCreate("stdbg-mailbox", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("creating mailbox: %w", err)
	}
	f := os.NewFile(uintptr(fd), "stdbg-mailbox")
	if err := f.Truncate(2 * SlotSize); err != nil {
		f.Close()
		return nil, fmt.Errorf("sizing mailbox: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, 2*SlotSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mapping mailbox: %w", err)
	}
	return &Mailbox{file: f, mem: mem}, nil
}

// File is the shared memory file, to hand to the target process.
func (m *Mailbox) File() *os.File { return m.file }

// Close unmaps and closes the mailbox.
func (m *Mailbox) Close() error {
	err := unix.Munmap(m.mem)
	if cerr := m.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// Slot returns the slot used by execution generation gen.
func (m *Mailbox) Slot(gen uint32) *Slot {
	off := int(gen&1) * SlotSize
	return &Slot{mem: m.mem[off : off+SlotSize], spin: &m.spin, downPoll: &m.down, cpu: &m.cpu}
}

// Slot is one execution's half of the mailbox.
type Slot struct {
	mem      []byte
	spin     *atomic.Int64  // the mailbox's poll (nil: always SpinTime)
	downPoll *atomic.Int64  // the mailbox's poll of WaitDown (nil: always downPolls)
	cpu      *atomic.Uint32 // the mailbox's placement (nil: not placed)
}

// myCPU returns 1 + the CPU this side runs on: where it was placed, else
// where the calling thread runs now (0: unknown).
func (s *Slot) myCPU() uint32 {
	if s.cpu != nil {
		if c := s.cpu.Load(); c != 0 {
			return c
		}
	}
	return currentCPU()
}

// sameCPU reports whether the other side handed over (or answered) last
// from the CPU this side runs on: polling for it there only keeps it from
// running.
func (s *Slot) sameCPU(off int) bool {
	other := atomic.LoadUint32(s.word(off))
	return other != 0 && other == s.myCPU()
}

func (s *Slot) word(off int) *uint32 { return (*uint32)(unsafe.Pointer(&s.mem[off])) }

// Reset prepares the slot for generation gen, before FORK is sent.
func (s *Slot) Reset(gen, flags uint32) {
	atomic.StoreUint32(s.word(offMagic), Magic)
	atomic.StoreUint32(s.word(offVersion), Version)
	atomic.StoreUint32(s.word(offGen), gen)
	atomic.StoreUint32(s.word(offFlags), flags)
	atomic.StoreUint32(s.word(offUpLen), 0)
	atomic.StoreUint32(s.word(offDownLen), 0)
	atomic.StoreUint32(s.word(offPid), 0)
	atomic.StoreUint32(s.word(offCkSleeping), 0)
	atomic.StoreUint32(s.word(offCkCPU), 0)
	atomic.StoreUint32(s.word(offRtCPU), 0)
	s.SetBounds(0, 0)
}

func (s *Slot) dword(off int) *int64 { return (*int64)(unsafe.Pointer(&s.mem[off])) }

// SetBounds tells the runtime the bounds of each step that the checker
// keeps: the transition timeout, and the deadline (Unix nanoseconds; 0:
// none) at which the phase under way ends, when a step still running is
// cut. A runtime that watches its own steps (Go's) cuts them there itself
// and says why a step did not end (a goroutine waiting on something stdbg
// does not schedule), which the checker, from outside, cannot; the
// checker still keeps them for a runtime that does not (the C library).
func (s *Slot) SetBounds(deadline int64, timeout time.Duration) {
	atomic.StoreInt64(s.dword(offDeadline), deadline)
	atomic.StoreInt64(s.dword(offStepTimeout), int64(timeout))
}

// SetDeadline changes the deadline of SetBounds, for the steps to come.
func (s *Slot) SetDeadline(deadline int64) { atomic.StoreInt64(s.dword(offDeadline), deadline) }

// Bounds returns what SetBounds told.
func (s *Slot) Bounds() (deadline int64, timeout time.Duration) {
	return atomic.LoadInt64(s.dword(offDeadline)), time.Duration(atomic.LoadInt64(s.dword(offStepTimeout)))
}

// UpSeq returns the runtime's hand-over counter.
func (s *Slot) UpSeq() uint32 { return atomic.LoadUint32(s.word(offUpSeq)) }

// Pid returns the pid of the child using the slot (0 until it started).
func (s *Slot) Pid() int { return int(atomic.LoadUint32(s.word(offPid))) }

// Dead reports whether the fork server reaped the child of generation gen,
// and its wait status.
func (s *Slot) Dead(gen uint32) (unix.WaitStatus, bool) {
	if atomic.LoadUint32(s.word(offDeadGen)) != gen {
		return 0, false
	}
	return unix.WaitStatus(int32(atomic.LoadUint32(s.word(offDeadStatus)))), true
}

// SpinTime is how long Wait polls before it sleeps: long enough to cover a
// typical transition, so that the common case needs no wake-up. A
// mailbox's waits adapt it: a wait that had to sleep halves the next
// ones' poll (down to a sixteenth), one answered while polling doubles it
// back, so that on a machine too busy to answer within the poll the
// checker does not take the CPU the program needs.
var SpinTime = 200 * time.Microsecond

// pollFor returns how long the next wait polls.
func (s *Slot) pollFor() time.Duration {
	if s.spin != nil {
		if v := s.spin.Load(); v > 0 {
			return time.Duration(v)
		}
	}
	return SpinTime
}

// polled adapts the poll after a wait that polled for d: answered while
// polling or not.
func (s *Slot) polled(d time.Duration, answered bool) {
	if s.spin == nil {
		return
	}
	if answered {
		d = min(2*d, SpinTime)
	} else {
		d = max(d/2, SpinTime/16)
	}
	s.spin.Store(int64(d))
}

// ErrTimeout is returned by Wait when the runtime did not answer in time.
var ErrTimeout = errors.New("timed out waiting for the target")

// Wait blocks until the runtime hands the slot over (UpSeq moves past
// last) or the deadline passes. It spins briefly first: a transition is
// usually a few microseconds. It does not spin when the slot's flags
// include FlagNoSpin (the target runs on the caller's CPU), nor when the
// runtime last handed over from the CPU the caller runs on.
func (s *Slot) Wait(last uint32, deadline time.Time) error {
	c := waitClock{deadline: deadline}
	return s.wait(last, &c)
}

// WaitFor is Wait with a deadline of timeout after *since, which it sets to
// the time when it first needs the clock if it is zero: a hand-over that
// comes at once costs no look at the clock. Callers that wait several
// times for one transition keep *since between the calls.
func (s *Slot) WaitFor(last uint32, since *time.Time, timeout time.Duration) error {
	c := waitClock{timeout: timeout, since: since}
	if !since.IsZero() {
		c.deadline = since.Add(timeout)
	}
	return s.wait(last, &c)
}

// waitClock is the deadline of a wait: set, or (zero) timeout after the
// first reading of the clock, which is stored in *since.
type waitClock struct {
	deadline time.Time
	timeout  time.Duration
	since    *time.Time
}

func (c *waitClock) now() time.Time {
	t := time.Now()
	if c.deadline.IsZero() {
		c.deadline = t.Add(c.timeout)
		if c.since != nil {
			*c.since = t
		}
	}
	return t
}

func (s *Slot) wait(last uint32, c *waitClock) error {
	seq := s.word(offUpSeq)
	var spinUntil time.Time
	noSpin := atomic.LoadUint32(s.word(offFlags))&FlagNoSpin != 0 || s.sameCPU(offRtCPU)
	poll := s.pollFor()
	for i := 0; ; i++ {
		if atomic.LoadUint32(seq) != last {
			if !spinUntil.IsZero() {
				s.polled(poll, true)
			}
			return nil
		}
		if noSpin {
			break
		}
		if i&255 == 255 {
			now := c.now()
			if spinUntil.IsZero() {
				spinUntil = now.Add(poll)
			} else if now.After(spinUntil) {
				s.polled(poll, false)
				break
			}
		}
	}
	sleeping := s.word(offCkSleeping)
	defer atomic.StoreUint32(sleeping, 0)
	for {
		atomic.StoreUint32(sleeping, 1)
		if atomic.LoadUint32(seq) != last {
			return nil
		}
		left := c.deadline.Sub(c.now())
		if left <= 0 {
			return ErrTimeout
		}
		if left > 50*time.Millisecond {
			left = 50 * time.Millisecond
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(seq)), futexWait, uintptr(last),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
		if errno != 0 && errno != unix.EAGAIN && errno != unix.ETIMEDOUT && errno != unix.EINTR {
			return fmt.Errorf("futex wait: %w", errno)
		}
	}
}

// Up returns the runtime's messages in the slot (valid until Answer).
func (s *Slot) Up() []byte {
	n := int(atomic.LoadUint32(s.word(offUpLen)))
	if n > UpCap {
		n = UpCap
	}
	return s.mem[HdrSize+DownCap : HdrSize+DownCap+n]
}

// Answer writes the checker's message for the runtime and hands the slot
// back to it.
func (s *Slot) Answer(msg []byte) error {
	if len(msg) > DownCap {
		return fmt.Errorf("answer of %d bytes exceeds the mailbox", len(msg))
	}
	atomic.StoreUint32(s.word(offUpLen), 0)
	atomic.StoreUint32(s.word(offCkCPU), s.myCPU())
	copy(s.mem[HdrSize:], msg)
	atomic.StoreUint32(s.word(offDownLen), uint32(len(msg)))
	atomic.AddUint32(s.word(offDownSeq), 1)
	if atomic.LoadUint32(s.word(offRtSleeping)) != 0 {
		futexWake(s.word(offDownSeq))
	}
	return nil
}

func futexWake(addr *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp, 1<<30, 0, 0, 0)
}

// Linux futex operations (shared, not private: the word lives in memory
// shared with another process).
const (
	futexWait   = 0
	futexWakeOp = 1
)
