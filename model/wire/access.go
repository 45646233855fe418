package wire

import "fmt"

// MsgAccess carries the plain memory accesses a thread made since its last
// scheduling point (a C library started with STDBG_MEMORY=log).
const MsgAccess MsgType = 9

// Access is one plain memory access a thread made between two scheduling
// points: not a scheduling point itself, but checked for data races.
type Access struct {
	Addr  uint64
	Size  uint32
	Write bool
	// PC is the return address into the code that made the access.
	PC uint64
}

// Accesses reports plain memory accesses of thread Tid, made after its
// last operation and before its next report, at most one per address,
// size and direction (the first one).
type Accesses struct {
	Tid  int
	List []Access
}

func (Accesses) isEvent() {}

const accessSize = 24

// EncodeAccesses appends an ACCESS message to buf.
func EncodeAccesses(buf []byte, a Accesses) []byte {
	buf = appendHdr(buf, MsgAccess, 8+accessSize*len(a.List))
	buf = le.AppendUint32(buf, uint32(a.Tid))
	buf = le.AppendUint32(buf, uint32(len(a.List)))
	for _, x := range a.List {
		buf = le.AppendUint64(buf, x.Addr)
		buf = le.AppendUint64(buf, x.PC)
		buf = le.AppendUint32(buf, x.Size)
		w := uint32(0)
		if x.Write {
			w = 1
		}
		buf = le.AppendUint32(buf, w)
	}
	return buf
}

// decodeAccesses decodes an ACCESS message, its entries into room when it
// has the capacity.
func decodeAccesses(p []byte, room []Access) (Accesses, error) {
	if len(p) < 8 {
		return Accesses{}, fmt.Errorf("access: %w", ErrShort)
	}
	a := Accesses{Tid: int(le.Uint32(p))}
	n := int(le.Uint32(p[4:]))
	p = p[8:]
	if n < 0 || len(p) < accessSize*n {
		return Accesses{}, fmt.Errorf("access entries: %w", ErrShort)
	}
	if room != nil && cap(room) >= n {
		a.List = room[:n]
	} else {
		a.List = make([]Access, n)
	}
	for i := range a.List {
		e := p[accessSize*i:]
		a.List[i] = Access{Addr: le.Uint64(e), PC: le.Uint64(e[8:]), Size: le.Uint32(e[16:]), Write: le.Uint32(e[20:]) != 0}
	}
	return a, nil
}

// decodeAccesses decodes an ACCESS message into the decoder's room
// (valid until Reuse), handed as an *Accesses.
func (d *Decoder) decodeAccesses(p []byte) (*Accesses, error) {
	n := 0
	if len(p) >= 8 {
		n = int(le.Uint32(p[4:]))
	}
	if len(d.acc)+n > cap(d.acc) && len(p) >= 8+accessSize*n {
		// A new block; messages decoded before keep the old one.
		d.acc = make([]Access, 0, max(4*cap(d.acc), 2*n, 256))
	}
	a, err := decodeAccesses(p, d.acc[len(d.acc):])
	if err != nil {
		return nil, err
	}
	d.acc = d.acc[:len(d.acc)+len(a.List)]
	if len(d.accs) == cap(d.accs) {
		d.accs = make([]Accesses, 0, max(2*cap(d.accs), 16))
	}
	d.accs = append(d.accs, a)
	return &d.accs[len(d.accs)-1], nil
}
