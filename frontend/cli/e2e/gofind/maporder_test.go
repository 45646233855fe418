package gofind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/frontend/cli"
	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

// The order of a range over a map is part of what a schedule determines:
// a program whose goroutines, started in the order of a map, do different
// things, repeats itself under the same schedule. Before, Go's random order
// made the same schedule run other operations, and the search gave up:
// "the program did not repeat itself under the same schedule".
func TestGoMapOrderRepeats(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/jobs\n\ngo 1.22\n",
		"main.go": `package main

import (
	"fmt"
	"sync"
)

func main() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := map[string]int{"a": 1, "b": 2, "c": 3}
	total := 0
	for _, n := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				mu.Lock()
				total++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Println(total)
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, seed := range []string{"1", "7"} {
		out, errs, code := clirun.Stdbg(t, "find", "--races=false", "--rand-seed", seed, dir)
		if code != cli.ExitClean || !strings.Contains(out, "Search: exhaustive") || strings.Contains(errs, "repeat") {
			t.Fatalf("find --rand-seed %s: exit %d\n%s\n%s", seed, code, out, errs)
		}
	}
}

// Every construct left as written is listed once, with the verdict (not
// also as a warning on stderr), and keeps the verdict from saying
// exhaustive.
func TestGoNotInstrumentedInVerdict(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/pool\n\ngo 1.22\n",
		"main.go": `package main

import (
	"fmt"
	"sync"
)

type conn struct{ id int }

func main() {
	conns := map[*conn]bool{{1}: true, {2}: true}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); mu.Lock(); total += c.id; mu.Unlock() }()
	}
	wg.Wait()
	sel := make(chan chan int, 1)
	sel <- make(chan int)
	select {
	case id := <-<-sel:
		fmt.Println(id)
	default:
		fmt.Println(total)
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := clirun.Stdbg(t, "find", "--races=false", dir)
	if code != cli.ExitClean {
		t.Fatalf("find: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"Not modelled: main.go:15: the order of a range over a map keyed by *conn",
		"Not modelled: main.go:23: a select: a case's expression holds a receive",
		"not exhaustive: 2 constructs are not modelled",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output holds %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	if strings.Contains(errs, "main.go:") {
		t.Errorf("stderr lists a construct the verdict lists:\n%s", errs)
	}
}
