package syncmodel

import (
	"errors"
	"reflect"
	"testing"
)

func send(ch uint64, capacity int64) Op { return o(ChanSend, ch, capacity) }
func recv(ch uint64, capacity int64) Op { return o(ChanRecv, ch, capacity) }

// chwake is the second half of a plain send or receive that parked.
func chwake(ch uint64) Op { return o(ChanWake, ch, 0) }

func sc(ch uint64, capacity int64) Case { return Case{Send: true, Chan: ch, Cap: capacity} }
func rc(ch uint64, capacity int64) Case { return Case{Chan: ch, Cap: capacity} }

func sel(dflt bool, cases ...Case) Op {
	op := Op{Kind: Select, Cases: cases}
	if dflt {
		op.Arg = 1
	}
	return op
}

// selwake is the second half of a select that parked.
func selwake(cases ...Case) Op { return Op{Kind: ChanWake, Cases: cases} }

// cr returns the code of a channel result.
func cr(via ChanVia, cas int, ok bool, partner, partnerCase int) int64 {
	return ChanResult{Via: via, Case: cas, OK: ok, Partner: partner, PartnerCase: partnerCase}.Code()
}

var (
	parkedCode = cr(ViaParked, 0, false, 0, 0)
	bufSent    = cr(ViaBuffer, 0, false, 0, 0)
	bufRecv    = cr(ViaBuffer, 0, true, 0, 0)
	woken      = cr(ViaWoken, 0, true, 0, 0)
	closedRecv = cr(ViaClosed, 0, false, 0, 0)
)

func TestChanResultCode(t *testing.T) {
	for _, r := range []ChanResult{
		{},
		{Via: ViaBuffer, OK: true},
		{Via: ViaPartner, Case: 3, Partner: 7, PartnerCase: 2},
		{Via: ViaDefault, Case: -1},
		{Via: ViaWoken, Case: MaxCases - 1, OK: true, Partner: MaxChanThread, PartnerCase: MaxCases - 1},
	} {
		c := r.Code()
		if c < 0 {
			t.Errorf("%+v: negative code %d", r, c)
		}
		if got := DecodeChanResult(c); got != r {
			t.Errorf("DecodeChanResult(%+v.Code()) = %+v", r, got)
		}
	}
	if s := ViaPartner.String(); s != "partner" {
		t.Errorf("ViaPartner.String() = %q", s)
	}
	if s := ChanVia(99).String(); s != "via(99)" {
		t.Errorf("ChanVia(99).String() = %q", s)
	}
}

func TestChannels(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name: "buffered",
			steps: []step{
				{tid: 1, op: send(ch1, 2), code: bufSent},
				{tid: 1, op: send(ch1, 2), code: bufSent},
				{tid: 1, op: o(ChanLen, ch1, 2), code: 2},
				{tid: 1, op: recv(ch1, 2), code: bufRecv},
				{tid: 1, op: o(ChanLen, ch1, 2), code: 1},
			},
		},
		{
			name: "unbuffered, receiver first: it waits for the sender's offer",
			steps: cat(threads(2), []step{
				{tid: 1, op: recv(ch1, 0), blocked: true},
				{tid: 2, op: send(ch1, 0), code: parkedCode},
				{tid: 2, op: chwake(ch1), blocked: true},
				{tid: 1, code: cr(ViaPartner, 0, true, 2, 0)},
				{tid: 2, code: woken},
			}),
		},
		{
			name: "unbuffered, sender first",
			steps: cat(threads(2), []step{
				{tid: 2, op: send(ch1, 0), code: parkedCode},
				{tid: 2, op: chwake(ch1), blocked: true},
				{tid: 1, op: o(ChanLen, ch1, 0), code: 0},
				{tid: 1, op: recv(ch1, 0), code: cr(ViaPartner, 0, true, 2, 0)},
				{tid: 2, code: woken},
			}),
		},
		{
			name: "parked senders are served in order",
			steps: cat(threads(3), []step{
				{tid: 1, op: recv(ch1, 0), blocked: true},
				{tid: 3, op: send(ch1, 0), code: parkedCode},
				{tid: 2, op: send(ch1, 0), code: parkedCode},
				{tid: 3, op: chwake(ch1), blocked: true},
				{tid: 2, op: chwake(ch1), blocked: true},
				{tid: 1, code: cr(ViaPartner, 0, true, 3, 0)},
				{tid: 2, blocked: true},
				{tid: 1, op: recv(ch1, 0), code: cr(ViaPartner, 0, true, 2, 0)},
				{tid: 2, code: woken},
				{tid: 3, code: woken},
			}),
		},
		{
			name: "full buffer parks the sender; a receive moves its value in",
			steps: cat(threads(3), []step{
				{tid: 1, op: send(ch1, 1), code: bufSent},
				{tid: 2, op: send(ch1, 1), code: parkedCode},
				{tid: 2, op: chwake(ch1), blocked: true},
				{tid: 3, op: recv(ch1, 1), code: cr(ViaBuffer, 0, true, 2, 0)},
				{tid: 1, op: o(ChanLen, ch1, 1), code: 1},
				{tid: 2, code: woken},
				{tid: 3, op: recv(ch1, 1), code: bufRecv},
				{tid: 1, op: o(ChanLen, ch1, 1), code: 0},
			}),
		},
		{
			name: "close enables the waiting receivers",
			steps: cat(threads(3), []step{
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 3, op: recv(ch1, 0), blocked: true},
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 3, code: closedRecv},
				{tid: 2, code: closedRecv},
				{tid: 1, op: recv(ch1, 0), code: closedRecv},
			}),
		},
		{
			name: "a closed channel is drained first",
			steps: []step{
				{tid: 1, op: send(ch1, 3), code: bufSent},
				{tid: 1, op: o(ChanClose, ch1, 3)},
				{tid: 1, op: recv(ch1, 3), code: bufRecv},
				{tid: 1, op: recv(ch1, 3), code: closedRecv},
				{tid: 1, op: recv(ch1, 3), code: closedRecv},
			},
		},
		{
			// Go panics, and a deferred recover may take the panic:
			// the thread goes on, nothing changed.
			name: "send on closed channel panics",
			steps: []step{
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 1, op: send(ch1, 0), code: cr(ViaPanic, 0, false, 0, 0)},
				{tid: 1, op: recv(ch1, 0), code: closedRecv},
			},
		},
		{
			name: "close wakes a parked sender into a panic",
			steps: cat(threads(2), []step{
				{tid: 2, op: send(ch1, 0), code: parkedCode},
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 2, op: chwake(ch1), code: cr(ViaPanic, 0, false, 0, 0)},
				{tid: 2, op: recv(ch1, 0), code: closedRecv},
			}),
		},
		{
			name: "close of closed channel",
			steps: []step{
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 1, op: o(ChanClose, ch1, 0), code: cr(ViaPanic, -1, false, 0, 0)},
				{tid: 1, op: recv(ch1, 0), code: closedRecv},
			},
		},
		{
			name:  "close of nil channel",
			steps: []step{{tid: 1, op: o(ChanClose, 0, 0), code: cr(ViaPanic, -1, false, 0, 0)}},
		},
		{
			name: "nil channel blocks for ever",
			steps: cat(threads(2), []step{
				{tid: 1, op: send(0, 0), blocked: true},
				{tid: 2, op: recv(0, 0), blocked: true},
				{tid: 1, blocked: true},
			}),
			check: func(t *testing.T, w *World) {
				if n := w.chanLen(o(ChanLen, 0, 0)); n != 0 {
					t.Errorf("len of nil channel = %d", n)
				}
			},
		},
		{
			name: "make",
			steps: []step{
				{tid: 1, op: o(ChanMake, ch1, 1)},
				{tid: 1, op: send(ch1, 0), code: bufSent},
				{tid: 1, op: o(ChanMake, ch1, 0)},
				{tid: 1, op: o(ChanLen, ch1, 0), code: 0},
				{tid: 1, op: o(ChanMake, ch1, -1), misuse: "make of channel 0x60c000 with negative capacity -1"},
				{tid: 1, op: o(ChanMake, 0, 1), misuse: "make of a channel at address 0"},
			},
		},
		{
			name: "make of a channel with parked threads",
			steps: cat(threads(2), []step{
				{tid: 2, op: send(ch1, 0), code: parkedCode},
				{tid: 1, op: o(ChanMake, ch1, 0), misuse: "make of channel 0x60c000 while threads are blocked on it"},
			}),
		},
	})
}

func TestSelect(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name: "default when no case is ready",
			steps: []step{
				{tid: 1, op: sel(true, rc(ch1, 0), sc(ch2, 0)), code: cr(ViaDefault, -1, false, 0, 0)},
				{tid: 1, op: sel(true), code: cr(ViaDefault, -1, false, 0, 0)},
			},
		},
		{
			name: "one ready case",
			steps: []step{
				{tid: 1, op: send(ch2, 1), code: bufSent},
				{tid: 1, op: sel(true, rc(ch1, 0), rc(ch2, 1)), code: cr(ViaBuffer, 1, true, 0, 0)},
				{tid: 1, op: sel(false, rc(ch1, 0), sc(ch2, 1)), code: cr(ViaBuffer, 1, false, 0, 0)},
			},
		},
		{
			name: "the choice picks among the ready cases",
			steps: []step{
				{tid: 1, op: send(ch2, 1), code: bufSent},
				{tid: 1, op: send(ch3, 1), code: bufSent},
				{tid: 1, op: sel(false, rc(ch1, 0), rc(ch2, 1), rc(ch3, 1)), choice: 1, code: cr(ViaBuffer, 2, true, 0, 0)},
				{tid: 1, op: sel(false, rc(ch1, 0), rc(ch2, 1), rc(ch3, 1)), code: cr(ViaBuffer, 1, true, 0, 0)},
			},
		},
		{
			name: "a parked select is woken through one case and leaves the others",
			steps: cat(threads(3), []step{
				{tid: 2, op: sel(false, rc(ch1, 0), sc(ch3, 0), rc(ch2, 0)), code: parkedCode},
				{tid: 2, op: selwake(rc(ch1, 0), sc(ch3, 0), rc(ch2, 0)), blocked: true},
				{tid: 3, op: send(ch2, 0), code: cr(ViaPartner, 0, false, 2, 2)},
				{tid: 1, op: send(ch1, 0), code: parkedCode},
				{tid: 2, code: cr(ViaWoken, 2, true, 0, 0)},
			}),
		},
		{
			name: "a receive-only select waits, disabled, for a ready case",
			steps: cat(threads(3), []step{
				{tid: 2, op: sel(false, rc(ch1, 0), rc(ch2, 0)), blocked: true},
				{tid: 3, op: send(ch2, 0), code: parkedCode},
				{tid: 2, code: cr(ViaPartner, 1, true, 3, 0)},
				{tid: 3, op: chwake(ch2), code: woken},
			}),
		},
		{
			name: "select send parks for a waiting receiver",
			steps: cat(threads(2), []step{
				{tid: 2, op: recv(ch1, 0), blocked: true},
				{tid: 1, op: sel(false, rc(ch2, 0), sc(ch1, 0)), code: parkedCode},
				{tid: 2, code: cr(ViaPartner, 0, true, 1, 1)},
				{tid: 1, op: selwake(rc(ch2, 0), sc(ch1, 0)), code: cr(ViaWoken, 1, true, 0, 0)},
			}),
		},
		{
			name: "select receive meets a parked select send",
			steps: cat(threads(2), []step{
				{tid: 2, op: sel(false, sc(ch1, 0), sc(ch2, 0)), code: parkedCode},
				{tid: 1, op: sel(false, rc(ch3, 0), rc(ch2, 0)), code: cr(ViaPartner, 1, true, 2, 1)},
				{tid: 2, op: selwake(sc(ch1, 0), sc(ch2, 0)), code: cr(ViaWoken, 1, true, 0, 0)},
			}),
		},
		{
			name: "select send on closed channel",
			steps: []step{
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 1, op: sel(true, sc(ch1, 0)), code: cr(ViaPanic, 0, false, 0, 0)},
			},
		},
		{
			name: "close wakes a select parked on a send",
			steps: cat(threads(2), []step{
				{tid: 2, op: sel(false, rc(ch2, 0), sc(ch1, 0)), code: parkedCode},
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 2, op: selwake(rc(ch2, 0), sc(ch1, 0)), code: cr(ViaPanic, 1, false, 0, 0)},
			}),
		},
		{
			name: "close wakes a select parked on a receive",
			steps: cat(threads(2), []step{
				{tid: 2, op: sel(false, rc(ch2, 0), rc(ch1, 0), sc(ch3, 0)), code: parkedCode},
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 2, op: selwake(rc(ch2, 0), rc(ch1, 0), sc(ch3, 0)), code: cr(ViaWoken, 1, false, 0, 0)},
			}),
		},
		{
			name: "close enables a receive-only select",
			steps: cat(threads(2), []step{
				{tid: 2, op: sel(false, rc(ch2, 0), rc(ch1, 0)), blocked: true},
				{tid: 1, op: o(ChanClose, ch1, 0)},
				{tid: 2, code: cr(ViaClosed, 1, false, 0, 0)},
			}),
		},
		{
			name: "a select without channels blocks for ever",
			steps: []step{
				{tid: 1, op: sel(false, rc(0, 0)), blocked: true},
			},
		},
		{
			name: "an empty select blocks for ever",
			steps: []step{
				{tid: 1, op: sel(false), blocked: true},
			},
		},
		{
			name: "two cases on one channel",
			steps: []step{
				{tid: 1, op: send(ch1, 1), code: bufSent},
				{tid: 1, op: sel(false, rc(ch1, 1), rc(ch1, 1)), choice: 1, code: cr(ViaBuffer, 1, true, 0, 0)},
			},
		},
	})
}

func TestSelectChoices(t *testing.T) {
	w := NewWorld()
	run(t, w, []step{
		{tid: 1, op: send(ch2, 1), code: bufSent},
		{tid: 1, op: send(ch3, 1), code: bufSent},
	})
	op := sel(true, rc(ch1, 0), rc(ch2, 1), rc(ch3, 1), sc(ch3, 1))
	if err := w.SetPending(1, op); err != nil {
		t.Fatal(err)
	}
	if n := w.Choices(1); n != 2 {
		t.Fatalf("Choices = %d, want 2 (two ready cases)", n)
	}
	for _, bad := range []int{-1, 2} {
		before := w.Clone()
		if _, err := w.Execute(1, bad); err == nil || errors.Is(err, ErrNotEnabled) {
			t.Errorf("choice %d: err %v, want a range error", bad, err)
		}
		if !reflect.DeepEqual(w, before) {
			t.Errorf("choice %d: a failed Execute changed the world", bad)
		}
	}
	if err := w.SetPending(1, sel(true, rc(ch1, 0), rc(ch2, 1))); err != nil {
		t.Fatal(err)
	}
	if n := w.Choices(1); n != 0 {
		t.Errorf("one ready case: Choices = %d, want 0", n)
	}
	if err := w.SetPending(1, o(Choose, 0, 3)); err != nil {
		t.Fatal(err)
	}
	if n := w.Choices(1); n != 3 {
		t.Errorf("Choose(3): Choices = %d, want 3", n)
	}
	if err := w.SetPending(1, o(MutexLock, mA, 0)); err != nil {
		t.Fatal(err)
	}
	if n := w.Choices(1); n != 0 || w.Choices(9) != 0 {
		t.Errorf("no choice: Choices = %d", n)
	}
}

func TestOpStringWithCases(t *testing.T) {
	for _, c := range []struct {
		op   Op
		want string
	}{
		{sel(true, rc(0x10, 0), sc(0x20, 1)), "select(<-0x10, 0x20<-, default)"},
		{sel(false), "select()"},
		{sel(true), "select(default)"},
		{Op{Kind: Select, API: APISelect, Cases: []Case{rc(0x10, 0)}}, "Select(<-0x10)"},
		{selwake(rc(0x10, 0)), "chan-wake(<-0x10)"},
	} {
		if got := c.op.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.op, got, c.want)
		}
	}
}
