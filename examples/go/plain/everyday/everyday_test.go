package everyday

import (
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestBufferWraps: three goroutines each send two values into a channel
// with room for two; the test receives six. Once a receive has freed the
// oldest slot, the next send goes into the ring past its end.
func TestBufferWraps(t *testing.T) {
	c := make(chan int, 2)
	for i := 1; i <= 3; i++ {
		go func() {
			c <- i
			c <- 10 * i
		}()
	}
	if s := Sum(c, 6); s != 66 {
		t.Errorf("sum %d, want 66", s)
	}
}

// TestBufferWrapsInSelect: the same through a select that sends or gives
// up on a stop that never comes.
func TestBufferWrapsInSelect(t *testing.T) {
	c := make(chan int, 2)
	stop := make(chan struct{})
	for i := 1; i <= 3; i++ {
		go func() {
			select {
			case c <- i:
			case <-stop:
			}
		}()
	}
	if s := Sum(c, 3); s != 6 {
		t.Errorf("sum %d, want 6", s)
	}
	close(stop)
}

// TestMapRangesInGoroutines: two goroutines each range over a map of
// their own.
func TestMapRangesInGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	ws := make([]int, 2)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[g] = Weight(map[int]int{1: 1, 2: 2, 3: 3})
		}()
	}
	wg.Wait()
	if ws[0] != 14 || ws[1] != 14 {
		t.Errorf("weights %v, want 14 each", ws)
	}
}

// TestRandomInGoroutines: goroutines draw from the shared generators of
// math/rand and math/rand/v2, which are safe for concurrent use.
func TestRandomInGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]int, 3)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := make([]byte, 9)
			//lint:ignore SA1019 programs still call it, and stdbg mirrors it
			rand.Read(b)
			p := rand.Perm(4)
			rand.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
			got[g] = rand.Intn(10) + randv2.IntN(10) + int(b[8]&1) + len(p)
		}()
	}
	wg.Wait()
	for _, n := range got {
		if n < 4 || n > 23 {
			t.Errorf("draws out of range: %v", got)
		}
	}
}

// TestEncodeInWorkers: goroutines encode with encoding/json, whose pooled
// encoders they share through the standard library.
func TestEncodeInWorkers(t *testing.T) {
	out, err := Encode(3, 3)
	if err != nil || len(out) != 9 {
		t.Errorf("%d encoded, %v", len(out), err)
	}
}

// TestFormatWhileWorkersRun: the test formats and logs while its
// goroutines format too (package fmt pools its printers).
func TestFormatWhileWorkersRun(t *testing.T) {
	done := make(chan []string)
	go func() { done <- Labels(2) }()
	t.Logf("waiting for %d labels (%v)", 2, []string{"a", "b"})
	labels := <-done
	if s := fmt.Sprint(labels); !strings.Contains(s, "worker 1 of 2") {
		t.Errorf("labels %s", s)
	}
}

// TestVerboseWorker: a goroutine writes 2 MiB to standard error in one
// go. stdbg read the race detector's reports from a pipe of 1 MiB that it
// put behind standard error, and drained only between two scheduling
// points: the write blocked, and stdbg reported a transition timeout.
// (It writes only with STDBG_ZOO set, to spare go test's output.)
func TestVerboseWorker(t *testing.T) {
	if os.Getenv("STDBG_ZOO") == "" {
		t.Skip("writes 2 MiB to standard error (set STDBG_ZOO=1)")
	}
	done := make(chan bool)
	go func() {
		line := strings.Repeat("x", 1023) + "\n"
		for range 2048 {
			os.Stderr.WriteString(line)
		}
		done <- true
	}()
	<-done
}

// TestSubtests: table-driven subtests (t.Run), nested and parallel, each
// with goroutines of its own, logging and formatting. Package testing
// formats each subtest's result line ("--- PASS: ...") with package fmt
// on the subtest's goroutine, which shares fmt's pooled printers with the
// next subtest's.
func TestSubtests(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("sum of %d", n), func(t *testing.T) {
			c := make(chan int, n)
			for i := 1; i <= n; i++ {
				go func() { c <- i }()
			}
			want := n * (n + 1) / 2
			if s := Sum(c, n); s != want {
				t.Errorf("sum %d, want %d", s, want)
			}
			t.Logf("sum of %d: %d", n, want)
		})
	}
	t.Run("group", func(t *testing.T) {
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				done := make(chan []string)
				go func() { done <- Labels(2) }()
				if labels := <-done; len(labels) != 2 {
					t.Errorf("%s: labels %v", name, labels)
				}
				t.Log(name, "done")
			})
		}
	})
}
