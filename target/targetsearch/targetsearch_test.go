package targetsearch_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/hunt"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
	"github.com/stdbg/stdbg/sthread"
	"github.com/stdbg/stdbg/target/targetsearch"
)

// embrace takes two locks in opposite orders in two goroutines: it
// deadlocks under 1;1;2;2.
func embrace() {
	var a, b sthread.Mutex
	transfers := 0
	done := sthread.MakeChan[bool](0)
	sthread.Go(func() {
		b.Lock()
		a.Lock()
		transfers++
		a.Unlock()
		b.Unlock()
		done.Send(true)
	})
	a.Lock()
	b.Lock()
	transfers++
	b.Unlock()
	a.Unlock()
	done.Recv()
}

func TestTrace(t *testing.T) {
	tests := []struct {
		name  string
		steps int // the file's capacity
		ok    bool
	}{
		{"fits", 16, true},
		{"outgrows the file", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trace")
			if err := targetsearch.CreateTrace(path, tt.steps); err != nil {
				t.Fatal(err)
			}
			tr, err := targetsearch.OpenTrace(path)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			ex, release := sthread.Executor(embrace)
			defer release()
			rec, err := targetsearch.NewRecorder(ex, tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			e, err := rec.Start()
			if err != nil {
				t.Fatal(err)
			}
			want := schedule.Threads(1, 1, 2, 2)
			rr, err := search.Replay(e, want, 0)
			e.Close()
			if err != nil || rr.Outcome == nil || rr.Outcome.Kind != search.Deadlock {
				t.Fatalf("replay: %v, %+v", err, rr)
			}
			got, ok, err := targetsearch.ReadTrace(path)
			if err != nil || ok != tt.ok {
				t.Fatalf("ReadTrace: ok %v, %v; want ok %v", ok, err, tt.ok)
			}
			if ok && !got.Equal(want) {
				t.Errorf("trace %s, want %s", got, want)
			}
		})
	}
}

// A schedule known to end the process ends there, with the outcome given,
// and the search goes on past it: the deadlock is still found.
func TestRecorderEnds(t *testing.T) {
	tests := []struct {
		name  string
		ends  []targetsearch.End
		kinds []string
	}{
		{"no end", nil, []string{"deadlock"}},
		{"an end that is a bug", []targetsearch.End{{Schedule: "1;2", Outcome: search.Outcome{Kind: search.Crash, Message: "exit status 3", Where: "exit"}}},
			[]string{"crash", "deadlock"}},
		{"an end that is clean", []targetsearch.End{{Schedule: "1;2", Outcome: search.Outcome{Kind: search.Exited, Message: "exit status 0"}}},
			[]string{"deadlock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, release := sthread.Executor(embrace)
			defer release()
			rec, err := targetsearch.NewRecorder(ex, nil, tt.ends)
			if err != nil {
				t.Fatal(err)
			}
			res, err := search.Explore(context.Background(), rec, search.NewDFS(), search.Options{All: true, MaxDepth: 100})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, b := range res.Bugs {
				kinds = append(kinds, b.Outcome.Kind.String())
				if b.Outcome.Kind == search.Crash && b.Schedule.String() != "1;2" {
					t.Errorf("the crash at %s, want 1;2", b.Schedule)
				}
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, tt.kinds) || !res.Complete {
				t.Errorf("bugs %v (complete %v), want %v", kinds, res.Complete, tt.kinds)
			}
		})
	}
}

func TestServe(t *testing.T) {
	tests := []struct {
		name      string
		stopped   bool
		minimised bool
	}{
		{"to the end", false, true},
		{"stopped", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, release := sthread.Executor(embrace)
			defer release()
			var buf bytes.Buffer
			spec := &targetsearch.Spec{Request: hunt.Request{All: true, MaxDepth: 100, Minimise: true}}
			if err := targetsearch.Serve(ex, spec, &buf, nil, targetsearch.Controls{Stopped: func() bool { return tt.stopped }}); err != nil {
				t.Fatal(err)
			}
			var streamed int
			res, err := targetsearch.Read(&buf, func(m targetsearch.Message) {
				if m.Bug != nil {
					streamed++
				}
			})
			if err != nil || res == nil {
				t.Fatalf("Read: %v, %v", res, err)
			}
			if res.Stopped != tt.stopped {
				t.Errorf("Stopped = %v, want %v", res.Stopped, tt.stopped)
			}
			if tt.stopped {
				return
			}
			if len(res.Bugs) != 1 || streamed != 1 || res.Bugs[0].Outcome.Kind != search.Deadlock || !res.Complete {
				t.Fatalf("result %+v (%d streamed), want one deadlock, complete", res, streamed)
			}
			if m := res.Bugs[0].Minimised; (m != nil) != tt.minimised || m != nil && m.Schedule != "1;1;2;2" {
				t.Errorf("minimised %+v", m)
			}
		})
	}
}

func TestReadBadStream(t *testing.T) {
	tests := []struct {
		name, text string
		err        bool
	}{
		{"empty: the target died", "", false},
		{"progress only", `{"progress":{"Executions":3}}` + "\n", false},
		{"not JSON", "panic: oops\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := targetsearch.Read(strings.NewReader(tt.text), nil)
			if res != nil || (err != nil) != tt.err {
				t.Errorf("Read = %v, %v; want no result, error %v", res, err, tt.err)
			}
		})
	}
}

// Serve is what a target runs (sthread calls it when stdbg asks): here it
// searches the deadly embrace and Read takes its stream back.
func ExampleServe() {
	ex, release := sthread.Executor(embrace)
	defer release()
	var stream bytes.Buffer
	spec := &targetsearch.Spec{Request: hunt.Request{MaxDepth: 100, Minimise: true}}
	if err := targetsearch.Serve(ex, spec, &stream, nil, targetsearch.Controls{}); err != nil {
		fmt.Println(err)
		return
	}
	res, err := targetsearch.Read(&stream, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range res.Bugs {
		fmt.Println(b.Outcome.Kind, "at", b.Minimised.Schedule)
	}
	// Output: deadlock at 1;1;2;2
}
