package targetproc_test

import (
	"context"
	"testing"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// TestWrap runs a program through a wrapper command that execs it (as a
// grader confines a submission): the program runs under the library with
// what the wrapper set, and the wrapper itself without the library.
func TestWrap(t *testing.T) {
	exe := buildSource(t, "wrapped.c", `#include <pthread.h>
#include <stdlib.h>
static void *work(void *a) { return a; }
int main(void) {
	if (!getenv("WRAPPED")) abort();
	pthread_t t; pthread_create(&t, 0, work, 0); pthread_join(t, 0); return 0;
}
`)
	// The wrapper refuses to run if the library was preloaded into it.
	wrap := []string{"sh", "-c", `test -z "$LD_PRELOAD" && exec env WRAPPED=yes "$0" "$@"`}
	tests := []struct {
		name string
		wrap []string
		ok   bool // the program starts: it found WRAPPED
	}{
		{"unwrapped", nil, false},
		{"wrapped", wrap, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ctarget.Start(targetproc.Config{Binary: exe, Flags: wire.FlagFastExit, Wrap: tc.wrap, Dir: t.TempDir()})
			if !tc.ok {
				if err == nil {
					p.Close()
					t.Fatal("the program started without the wrapper's environment")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			c := executor.New(p, executor.Options{FastExit: true})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Bugs) > 0 || !res.Complete {
				t.Fatalf("bugs %v (complete %v), want a clean, complete search", res.Bugs, res.Complete)
			}
		})
	}
}
