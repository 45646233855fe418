package search_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// embrace is a toy program: thread 1 takes lock A then B, thread 2 B then
// A, each twice in a loop.
type embrace struct{}

// lockOp is one step of a thread of embrace: lock or unlock lock m.
type lockOp struct {
	lock bool
	m    int
}

var embraceThreads = [3][]lockOp{
	1: {{true, 0}, {true, 1}, {false, 1}, {false, 0}, {true, 0}, {true, 1}, {false, 1}, {false, 0}},
	2: {{true, 1}, {true, 0}, {false, 0}, {false, 1}, {true, 1}, {true, 0}, {false, 0}, {false, 1}},
}

type embraceRun struct {
	pc      [3]int // the next step of each thread
	owner   [2]int // the thread holding each lock, 0 if none
	steps   int
	threads []search.Thread
	end     *search.Outcome
}

func (embrace) Start() (search.Execution, error) {
	r := &embraceRun{}
	r.update()
	return r, nil
}

func (r *embraceRun) update() {
	r.threads = r.threads[:0]
	var blocked []string
	for id := 1; id <= 2; id++ {
		if r.pc[id] == len(embraceThreads[id]) {
			continue
		}
		o := embraceThreads[id][r.pc[id]]
		t := search.Thread{ID: id, Op: syncmodel.Op{Kind: syncmodel.MutexUnlock, Obj: uint64(0xA + o.m)}, Enabled: true}
		if o.lock {
			t.Op.Kind = syncmodel.MutexLock
			t.Enabled = r.owner[o.m] == 0
		}
		if !t.Enabled {
			blocked = append(blocked, fmt.Sprintf("%d:%v", id, t.Op))
		}
		r.threads = append(r.threads, t)
	}
	switch {
	case len(r.threads) == 0:
		r.end = &search.Outcome{Kind: search.Exited, Step: r.steps}
	case len(blocked) == len(r.threads):
		r.end = &search.Outcome{Kind: search.Deadlock, Message: "deadlock", Where: strings.Join(blocked, " "), Step: r.steps}
	}
}

func (r *embraceRun) Threads() []search.Thread { return r.threads }
func (r *embraceRun) Ended() *search.Outcome   { return r.end }
func (r *embraceRun) Close() error             { return nil }

func (r *embraceRun) Step(s schedule.Step) error {
	if s.Thread < 1 || s.Thread > 2 || r.pc[s.Thread] == len(embraceThreads[s.Thread]) {
		return fmt.Errorf("thread %d cannot run", s.Thread)
	}
	o := embraceThreads[s.Thread][r.pc[s.Thread]]
	switch {
	case o.lock && r.owner[o.m] != 0:
		return fmt.Errorf("thread %d is blocked", s.Thread)
	case o.lock:
		r.owner[o.m] = s.Thread
	default:
		r.owner[o.m] = 0
	}
	r.pc[s.Thread]++
	r.steps++
	r.update()
	return nil
}

func ExampleMinimise() {
	ctx := context.Background()
	// DFS keeps thread 1 running: its first deadlock comes late.
	res, err := search.Explore(ctx, embrace{}, search.NewDFS(), search.Options{MaxDepth: 100})
	if err != nil || len(res.Bugs) == 0 {
		fmt.Println(res.Bugs, err)
		return
	}
	bug := res.Bugs[0]
	fmt.Printf("%v: %s\nPath = %v\n", bug.Outcome.Kind, bug.Outcome.Where, bug.Schedule)

	m, err := search.Minimise(ctx, embrace{}, bug, search.MinimiseOptions{MaxDepth: 100, Exhaustive: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("minimised: Path = %v\n", m.Schedule)
	fmt.Printf("transitions %d -> %d, preemptions %d -> %d, proven minimal: %v\n",
		m.OriginalLength, m.Length, m.OriginalPreemptions, m.Preemptions, m.Proven)
	fmt.Println("same bug:", m.Outcome.Key() == bug.Outcome.Key())
	// Output:
	// deadlock: 1:mutex-lock(0xb) 2:mutex-lock(0xa)
	// Path = 1;1;1;1;1;2
	// minimised: Path = 1;2
	// transitions 6 -> 2, preemptions 1 -> 1, proven minimal: true
	// same bug: true
}
