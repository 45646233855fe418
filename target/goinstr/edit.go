package goinstr

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// edit replaces the bytes [start, end) of a file by text; start == end
// inserts. prio orders insertions at the same offset: lower first.
type edit struct {
	start, end int
	text       string
	prio       int
}

// edits is the list of edits of one file.
type edits struct {
	list []edit
}

func (e *edits) replace(start, end int, text string) {
	e.list = append(e.list, edit{start: start, end: end, text: text})
}

// insert inserts text at off; prio orders it among insertions at off.
func (e *edits) insert(off int, text string, prio int) {
	e.list = append(e.list, edit{start: off, end: off, text: text, prio: prio})
}

// apply returns src with the edits applied. Edits must not overlap; an
// insertion may sit at either end of a replaced range. Every edit must keep
// the number of newlines of what it replaces, so that every line of the
// user's code stays on its line: apply checks it.
func (e *edits) apply(src []byte) ([]byte, error) {
	list := append([]edit(nil), e.list...)
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.start != b.start {
			return a.start < b.start
		}
		// Insertions before a replacement starting at the same offset.
		ai, bi := a.start == a.end, b.start == b.end
		if ai != bi {
			return ai
		}
		return a.prio < b.prio
	})
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/4)
	pos := 0
	for _, ed := range list {
		if ed.start < pos || ed.end < ed.start || ed.end > len(src) {
			return nil, fmt.Errorf("overlapping edits at offset %d", ed.start)
		}
		if strings.Count(ed.text, "\n") != bytes.Count(src[ed.start:ed.end], []byte("\n")) {
			return nil, fmt.Errorf("an edit at offset %d would move lines", ed.start)
		}
		out.Write(src[pos:ed.start])
		out.WriteString(ed.text)
		pos = ed.end
	}
	out.Write(src[pos:])
	return out.Bytes(), nil
}
