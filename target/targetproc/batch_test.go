package targetproc_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// oneAtATime hides the checker's StartPrefix: every step is a hand-over of
// its own, as without batches.
type oneAtATime struct{ search.Executor }

// TestBatchesSameSearch checks that running the replayed prefixes in
// batches changes nothing a search finds: the same executions, the same
// transitions, the same bugs with the same schedules.
func TestBatchesSameSearch(t *testing.T) {
	for _, name := range []string{"deadly-embrace.c", "dpor/readers-writers.c", "lost-update.c", "dining-philosophers.c"} {
		t.Run(name, func(t *testing.T) {
			exe, err := ctarget.Build(filepath.Join("..", "..", "examples", "c", name))
			if err != nil {
				t.Fatal(err)
			}
			run := func(batches bool) (*search.Result, int64) {
				p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: true})
				var ex search.Executor = c
				if !batches {
					ex = oneAtATime{c}
				}
				res, err := search.Explore(context.Background(), ex, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
				if err != nil {
					t.Fatal(err)
				}
				return res, p.Batched()
			}
			with, batched := run(true)
			without, alone := run(false)
			if batched == 0 || alone != 0 {
				t.Errorf("steps run in batches: %d with, %d without; want some, none", batched, alone)
			}
			if with.Stats.Executions != without.Stats.Executions || with.Stats.Transitions != without.Stats.Transitions || !with.Complete {
				t.Errorf("with batches %d executions, %d transitions (complete %v); without %d, %d",
					with.Stats.Executions, with.Stats.Transitions, with.Complete, without.Stats.Executions, without.Stats.Transitions)
			}
			if got, want := bugList(with), bugList(without); !reflect.DeepEqual(got, want) {
				t.Errorf("bugs with batches %v, without %v", got, want)
			}
		})
	}
}

func bugList(r *search.Result) []string {
	var out []string
	for _, b := range r.Bugs {
		out = append(out, fmt.Sprintf("%s %s", b.Outcome.Kind, b.Schedule)) // (addresses differ between processes)
	}
	return out
}

// A program that does not repeat itself: a counter in shared memory
// outlives the resets, and every other execution takes the other mutex
// first, so the same decisions give main's trylock another result (or,
// crashing, end the program early).
const unrepeatable = `#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER, c = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *arg)
{
	pthread_mutex_lock(&c);
	pthread_mutex_unlock(&c);
	return arg;
}
int main(void)
{
	long *runs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_t t[2];
	pthread_create(&t[0], NULL, worker, NULL);
	long run = (*runs)++;
	pthread_create(&t[1], NULL, worker, NULL);
	if (CRASH && run >= 2)
		abort();
	pthread_mutex_lock(run % 2 ? &a : &b);
	if (pthread_mutex_trylock(&a) == 0)
		pthread_mutex_unlock(&a);
	pthread_mutex_unlock(run % 2 ? &a : &b);
	/* Slow steps: the batch still runs when the checker sees the
	 * difference. */
	for (int i = 0; i < 20; i++) {
		for (volatile long k = 0; k < 1000000; k++)
			;
		pthread_mutex_lock(&c);
		pthread_mutex_unlock(&c);
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return 0;
}
`

// TestBatchNondeterminism checks a program that does not repeat itself in
// the middle of a batch: the search stops with ErrNondeterministic (a step
// gave another result, or the program ended before it), and the child,
// reset, serves the next execution.
func TestBatchNondeterminism(t *testing.T) {
	for _, tc := range []struct{ name, crash string }{{"other-result", "0"}, {"crash", "1"}} {
		t.Run(tc.name, func(t *testing.T) {
			exe := buildSource(t, tc.name+".c", "#define CRASH "+tc.crash+"\n"+unrepeatable)
			p, c := startChecker(t, exe, targetproc.Config{Flags: wire.FlagFastExit, KeepThreads: true})
			_, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{MaxDepth: 1000, All: true})
			if !errors.Is(err, search.ErrNondeterministic) {
				t.Fatalf("search ended with %v, want the program's nondeterminism", err)
			}
			if p.Batched() == 0 {
				t.Error("no step ran in a batch")
			}
			reused := p.Reused()
			e, err := c.Start()
			if err != nil {
				t.Fatalf("the next execution: %v", err)
			}
			if o := e.Ended(); o != nil {
				t.Fatalf("the next execution ended at once: %v", o.Message)
			}
			e.Close()
			if p.Reused() != reused+1 {
				t.Error("the next execution did not start in the reset child: it was left running the batch")
			}
		})
	}
}
