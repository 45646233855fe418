package session

import (
	"context"
	"debug/elf"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/engine/search"
)

// lockOrderProgram deadlocks when its two goroutines each take one lock
// and wait for the other's.
var lockOrderProgram = map[string]string{
	"go.mod": "module example.com/lockorder\n\ngo 1.22\n",
	"main.go": `package main

import "sync"

func main() {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
`,
}

// A Go target linked without DWARF (Build.NoDWARF, a grader's) is reported
// as the same target with DWARF is: a search run from stdbg (not inside
// the target) names each step's file, line and source text from the Go
// line table.
func TestNoDWARF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program twice")
	}
	dir := writeModule(t, lockOrderProgram)
	main := filepath.Join(dir, "main.go")
	where := func(noDWARF bool) []report.Location {
		t.Helper()
		tg, err := Resolve([]string{dir}, Build{NoDWARF: noDWARF})
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.Open(tg.Binary)
		if err != nil {
			t.Fatal(err)
		}
		if has := f.Section(".debug_info") != nil; has == noDWARF {
			t.Errorf("NoDWARF %v: %s has DWARF %v", noDWARF, tg.Binary, has)
		}
		f.Close()
		s, err := Start(tg, Options{FastExit: true, KeepThreads: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		spec, _, err := search.Spec{Strategy: search.StrategyDFS}.Normal()
		if err != nil {
			t.Fatal(err)
		}
		found, err := s.Find(context.Background(), &Find{Plan: Plan{Request: hunt.Request{Search: spec, MaxDepth: GoMaxDepth, Minimise: true}, Jobs: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if found.InTarget || len(found.Findings) == 0 || found.Findings[0].Report == nil {
			t.Fatalf("NoDWARF %v: in the target %v, findings %+v; want the deadlock found from here", noDWARF, found.InTarget, found.Findings)
		}
		var locs []report.Location
		for _, st := range found.Findings[0].Report.Steps {
			locs = append(locs, st.Where)
		}
		return locs
	}
	with, without := where(false), where(true)
	if !reflect.DeepEqual(with, without) {
		t.Errorf("the steps' places differ:\nwith DWARF    %+v\nwithout DWARF %+v", with, without)
	}
	lines := 0
	for _, l := range without {
		if l.File == main && l.Line > 0 && l.Source != "" {
			lines++
		}
	}
	if lines == 0 {
		t.Errorf("no step is named by its line of main.go: %+v", without)
	}
}
