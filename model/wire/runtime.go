package wire

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// This file is the runtime's side of the mailbox, for runtimes written in
// Go (the C library has its own, in stdbg_wire.h's terms).

// downPolls is the most times WaitDown polls before it sleeps.
const downPolls = 2000

// OpenMailbox maps a mailbox handed over by the checker as file
// descriptor fd.
func OpenMailbox(fd int) (*Mailbox, error) {
	mem, err := unix.Mmap(fd, 0, 2*SlotSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the mailbox (fd %d): %w", fd, err)
	}
	return &Mailbox{file: os.NewFile(uintptr(fd), "stdbg-mailbox"), mem: mem}, nil
}

// Gen returns the generation the slot was reset for.
func (s *Slot) Gen() uint32 { return atomic.LoadUint32(s.word(offGen)) }

// SetPid records the pid of the process running the slot's generation.
func (s *Slot) SetPid(pid int) { atomic.StoreUint32(s.word(offPid), uint32(pid)) }

// DownSeq returns the checker's hand-over counter.
func (s *Slot) DownSeq() uint32 { return atomic.LoadUint32(s.word(offDownSeq)) }

// Send appends msgs to the runtime's messages and hands the slot to the
// checker.
func (s *Slot) Send(msgs []byte) error {
	n := int(atomic.LoadUint32(s.word(offUpLen)))
	if n+len(msgs) > UpCap {
		return fmt.Errorf("mailbox overflow: %d bytes of messages", n+len(msgs))
	}
	copy(s.mem[HdrSize+DownCap+n:], msgs)
	atomic.StoreUint32(s.word(offRtCPU), s.myCPU())
	atomic.StoreUint32(s.word(offUpLen), uint32(n+len(msgs)))
	atomic.AddUint32(s.word(offUpSeq), 1)
	if atomic.LoadUint32(s.word(offCkSleeping)) != 0 {
		futexWake(s.word(offUpSeq))
	}
	return nil
}

// WaitDown blocks until the checker answers (DownSeq moves past last) or
// the deadline passes, and returns the answer's bytes. It polls first,
// unless the checker answered last from the CPU the caller runs on; the
// poll adapts as the checker's (a wait that had to sleep halves the next
// one's, one answered while polling doubles it back).
func (s *Slot) WaitDown(last uint32, deadline time.Time) ([]byte, error) {
	seq := s.word(offDownSeq)
	sleeping := s.word(offRtSleeping)
	polls := int64(downPolls)
	if s.downPoll != nil {
		if v := s.downPoll.Load(); v > 0 {
			polls = v
		}
	}
	if s.sameCPU(offCkCPU) {
		polls = 0
	}
	for i := int64(0); i < polls; i++ {
		if atomic.LoadUint32(seq) != last {
			if s.downPoll != nil && i > 0 {
				s.downPoll.Store(min(2*polls, downPolls))
			}
			return s.down(), nil
		}
	}
	if s.downPoll != nil && polls > 0 {
		s.downPoll.Store(max(polls/2, downPolls/16))
	}
	defer atomic.StoreUint32(sleeping, 0)
	for {
		atomic.StoreUint32(sleeping, 1)
		if atomic.LoadUint32(seq) != last {
			return s.down(), nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, ErrTimeout
		}
		if left > 50*time.Millisecond {
			left = 50 * time.Millisecond
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(seq)), futexWait, uintptr(last),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
}

func (s *Slot) down() []byte {
	n := int(atomic.LoadUint32(s.word(offDownLen)))
	if n > DownCap {
		n = DownCap
	}
	return s.mem[HdrSize : HdrSize+n]
}

// MarkDead records, from the checker's side, that the process running
// generation gen ended with the given wait status, and wakes a waiting
// checker. Runtimes without a fork server (one process per execution) have
// no one else to say so.
func (s *Slot) MarkDead(gen uint32, status unix.WaitStatus) {
	atomic.StoreUint32(s.word(offDeadStatus), uint32(int32(status)))
	atomic.StoreUint32(s.word(offDeadGen), gen)
	atomic.AddUint32(s.word(offUpSeq), 1)
	futexWake(s.word(offUpSeq))
}
