package stategraph_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	ct "github.com/stdbg/stdbg/engine/executor/executortest"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/syncmodel"
	"github.com/stdbg/stdbg/output/stategraph"
)

// embrace is a deadly embrace: main takes a then b, its child b then a.
func embrace() *ct.Runtime {
	lock := func(obj uint64) ct.Step { return ct.Op(syncmodel.MutexLock, syncmodel.APIMutexLock, obj, 0) }
	unlock := func(obj uint64) ct.Step { return ct.Op(syncmodel.MutexUnlock, syncmodel.APIMutexUnlock, obj, 0) }
	exit := ct.Op(syncmodel.ThreadExit, syncmodel.APIThreadReturn, 0, 0)
	return &ct.Runtime{
		Main:     []ct.Step{ct.Op(syncmodel.ThreadCreate, syncmodel.APIPthreadCreate, 0, 0), lock(1), lock(2), unlock(2), unlock(1), exit},
		Children: [][]ct.Step{{lock(2), lock(1), unlock(1), unlock(2), exit}},
	}
}

func explore(t testing.TB, st search.Strategy, limit int) (*stategraph.Recorder, *search.Result) {
	rec := stategraph.NewRecorder(executor.New(embrace(), executor.Options{}), nil, limit, false)
	res, err := search.Explore(context.Background(), rec, st, search.Options{MaxDepth: 100, All: true})
	if err != nil {
		t.Fatal(err)
	}
	return rec, res
}

// The tree of the executions run: one node per state of the search tree,
// the deadlocks and the clean ends marked, every edge named.
func TestTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   search.Strategy
	}{{"dfs", search.NewDFS()}, {"dpor", search.NewDPOR()}} {
		t.Run(tc.name, func(t *testing.T) {
			rec, res := explore(t, tc.st, 0)
			g := rec.Graph()
			if int64(len(g.Nodes)) != res.Stats.States || len(g.Edges) != len(g.Nodes)-1 {
				t.Errorf("%d nodes and %d edges for %d states of the search tree", len(g.Nodes), len(g.Edges), res.Stats.States)
			}
			bugs, ends := 0, 0
			for _, n := range g.Nodes {
				switch {
				case n.Bug:
					bugs++
				case n.End != "":
					ends++
				}
			}
			if bugs == 0 || ends == 0 {
				t.Errorf("%d deadlock states and %d ends", bugs, ends)
			}
			var b bytes.Buffer
			if err := g.WriteDOT(&b, `embrace "test"`); err != nil {
				t.Fatal(err)
			}
			dot := b.String()
			for _, want := range []string{`label="embrace \"test\"\nthe tree of the executions explored"`, `[label="deadlock"`,
				`s0 -> s1 [label="T1 pthread_create -> thread 2"]`, `[label="T2 pthread_mutex_lock(mutex#2)"]`} {
				if !strings.Contains(dot, want) {
					t.Errorf("DOT lacks %s:\n%s", want, dot)
				}
			}
		})
	}
}

// Above its limit a recorder says so instead of drawing part of a space
// as if it were all of it.
func TestLimit(t *testing.T) {
	rec, _ := explore(t, search.NewDFS(), 5)
	if !rec.Over() || len(rec.Graph().Nodes) != 5 {
		t.Fatalf("over %v with %d nodes", rec.Over(), len(rec.Graph().Nodes))
	}
	rec, _ = explore(t, search.NewDFS(), 1000)
	if rec.Over() {
		t.Fatal("over the limit of 1000")
	}
}

// Example draws the executions DPOR runs on a deadly embrace.
func Example() {
	lock := func(obj uint64) ct.Step { return ct.Op(syncmodel.MutexLock, syncmodel.APIMutexLock, obj, 0) }
	rt := &ct.Runtime{
		Main:     []ct.Step{ct.Op(syncmodel.ThreadCreate, syncmodel.APIPthreadCreate, 0, 0), lock(1), lock(2)},
		Children: [][]ct.Step{{lock(2), lock(1)}},
	}
	rec := stategraph.NewRecorder(executor.New(rt, executor.Options{}), nil, 100, false)
	if _, err := search.Explore(context.Background(), rec, search.NewDPOR(), search.Options{MaxDepth: 10, All: true}); err != nil {
		fmt.Println(err)
		return
	}
	var dot bytes.Buffer
	rec.Graph().WriteDOT(&dot, "embrace")
	fmt.Println(strings.Count(dot.String(), "->"), "transitions,", strings.Count(dot.String(), `label="deadlock"`), "deadlock states")
	// Output: 7 transitions, 3 deadlock states
}
