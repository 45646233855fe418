// Package racefree generates plain Go tests that are correct by
// construction: every access one goroutine shares with another is ordered
// by a channel, a lock, a wait group, a Once, an atomic or a go statement,
// as Go's memory model asks; no goroutine is left blocked; and every check
// holds in every schedule. go test -race never fails them, and neither may
// stdbg: they are the corpus on which a report of stdbg, whatever its kind,
// is a false report (TestCorrectGoCorpus in frontend/cli/e2e/gotest). A
// race can be planted among their idioms (Racy), which stdbg must report:
// the check that nothing of the corpus's code is left out of the
// detector's reports.
//
// A test is made of idioms found in almost every Go program (a pipeline
// over a buffered channel whose ring wraps around, a counter under a lock,
// ranges over maps, random numbers, formatting and encoding in workers,
// selects, a context, a sync.Map, a Once, a recovered panic, ...), each
// with its own state and goroutines. The test starts the goroutines of all
// its idioms, then does each idiom's part and waits for its goroutines, so
// that their schedules interleave.
package racefree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// An idiom is the code of one idiom in a test, its names prefixed by p:
// setup declares its state and starts its goroutines; finish does the
// test goroutine's part, waits for the goroutines and checks.
type idiom struct {
	name          string
	setup, finish string
	imports       []string
}

// Idioms names the idioms the generator draws from.
func Idioms() []string {
	var names []string
	for _, m := range makers {
		names = append(names, m.name)
	}
	return names
}

// maker makes an idiom with prefix p, drawing its sizes from r.
type maker struct {
	name string
	make func(p string, r *rand.Rand) idiom
}

var makers = []maker{
	{"pipeline", pipeline},
	{"counter", counter},
	{"maps", maps},
	{"random", random},
	{"format", format},
	{"encode", encode},
	{"select", selectStop},
	{"context", contextWorker},
	{"syncmap", syncMap},
	{"once", once},
	{"atomic", atomicCounter},
	{"recovered", recovered},
	{"rwmutex", rwmutex},
	{"cond", cond},
	{"logs", logs},
}

// pipeline: producers send their values into a buffered channel (or an
// unbuffered one); the test receives them all and checks the sum.
func pipeline(p string, r *rand.Rand) idiom {
	c, n, k := r.IntN(4), 1+r.IntN(3), 1+r.IntN(2)
	want := 0
	for i := 1; i <= n; i++ {
		for j := 0; j < k; j++ {
			want += i*10 + j
		}
	}
	return idiom{name: "pipeline",
		setup: fmt.Sprintf(`	%[1]sc := make(chan int, %[2]d)
	for i := 1; i <= %[3]d; i++ {
		go func() {
			for j := 0; j < %[4]d; j++ {
				%[1]sc <- i*10 + j
			}
		}()
	}
`, p, c, n, k),
		finish: fmt.Sprintf(`	%[1]ssum := 0
	for range %[2]d {
		%[1]ssum += <-%[1]sc
	}
	if %[1]ssum != %[3]d {
		t.Errorf("pipeline: sum %%d, want %[3]d", %[1]ssum)
	}
`, p, n*k, want)}
}

// counter: goroutines add to a counter under a mutex.
func counter(p string, r *rand.Rand) idiom {
	n, k := 2+r.IntN(2), 1+r.IntN(2)
	return idiom{name: "counter", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]smu sync.Mutex
	var %[1]swg sync.WaitGroup
	%[1]sn := 0
	for range %[2]d {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			for range %[3]d {
				%[1]smu.Lock()
				%[1]sn++
				%[1]smu.Unlock()
			}
		}()
	}
`, p, n, k),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	if %[1]sn != %[2]d {
		t.Errorf("counter: %%d, want %[2]d", %[1]sn)
	}
`, p, n*k)}
}

// maps: goroutines each range over a map of their own and write their
// result in a slot of their own.
func maps(p string, r *rand.Rand) idiom {
	n, size := 2, 2+r.IntN(3)
	want := 0
	for i := 1; i <= size; i++ {
		want += i * i
	}
	return idiom{name: "maps", imports: []string{"sync"},
		setup: fmt.Sprintf(`	%[1]sout := make([]int, %[2]d)
	var %[1]swg sync.WaitGroup
	for g := range %[2]d {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			m := map[int]int{}
			for i := 1; i <= %[3]d; i++ {
				m[i] = i
			}
			for k, v := range m {
				%[1]sout[g] += k * v
			}
		}()
	}
`, p, n, size),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	for _, w := range %[1]sout {
		if w != %[2]d {
			t.Errorf("maps: %%v, want %[2]d each", %[1]sout)
		}
	}
`, p, want)}
}

// random: goroutines draw from the shared generators of math/rand and
// math/rand/v2, which are safe for concurrent use.
func random(p string, r *rand.Rand) idiom {
	return idiom{name: "random", imports: []string{"sync", "math/rand", `randv2 "math/rand/v2"`},
		setup: fmt.Sprintf(`	%[1]sout := make([]int, 2)
	var %[1]swg sync.WaitGroup
	for g := range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			b := make([]byte, 3)
			rand.Read(b)
			perm := rand.Perm(3)
			rand.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			%[1]sout[g] = rand.Intn(%[2]d) + randv2.IntN(%[2]d) + len(perm) + len(b)
		}()
	}
`, p, 5+r.IntN(5)),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	for _, v := range %[1]sout {
		if v < 6 {
			t.Errorf("random: %%v", %[1]sout)
		}
	}
`, p)}
}

// format: goroutines format with package fmt (which pools its printers)
// while the test logs.
func format(p string, _ *rand.Rand) idiom {
	return idiom{name: "format", imports: []string{"fmt", "strings"},
		setup: fmt.Sprintf(`	%[1]sc := make(chan string)
	for i := range 2 {
		go func() { %[1]sc <- fmt.Sprintf("worker %%d: %%v", i, []int{i}) }()
	}
`, p),
		finish: fmt.Sprintf(`	t.Logf("format: waiting for %%d labels (%%v)", 2, []string{"a"})
	%[1]sa, %[1]sb := <-%[1]sc, <-%[1]sc
	if !strings.HasPrefix(%[1]sa, "worker") || !strings.HasPrefix(%[1]sb, "worker") {
		t.Errorf("format: %%q %%q", %[1]sa, %[1]sb)
	}
`, p)}
}

// encode: goroutines encode with encoding/json (which pools its
// encoders).
func encode(p string, _ *rand.Rand) idiom {
	return idiom{name: "encode", imports: []string{"encoding/json"},
		setup: fmt.Sprintf(`	%[1]sc := make(chan []byte, 2)
	for i := range 2 {
		go func() {
			b, _ := json.Marshal(struct{ I int }{i})
			%[1]sc <- b
		}()
	}
`, p),
		finish: fmt.Sprintf(`	if a, b := <-%[1]sc, <-%[1]sc; len(a)+len(b) != 14 {
		t.Errorf("encode: %%s %%s", a, b)
	}
`, p)}
}

// select: a worker sends its result or gives up when told to stop, which
// only happens once the result was received; the test tries the channel
// with a default case first.
func selectStop(p string, r *rand.Rand) idiom {
	return idiom{name: "select",
		setup: fmt.Sprintf(`	%[1]sres := make(chan int, %[2]d)
	%[1]sstop := make(chan struct{})
	%[1]sdone := make(chan struct{})
	go func() {
		defer close(%[1]sdone)
		select {
		case %[1]sres <- 7:
		case <-%[1]sstop:
		}
	}()
`, p, r.IntN(2)),
		finish: fmt.Sprintf(`	%[1]sv := 0
	select {
	case %[1]sv = <-%[1]sres:
	default:
		%[1]sv = <-%[1]sres
	}
	close(%[1]sstop)
	<-%[1]sdone
	if %[1]sv != 7 {
		t.Errorf("select: %%d", %[1]sv)
	}
`, p)}
}

// context: a worker serves requests until its context is cancelled; the
// test cancels it once it has its answers and waits for it to end.
func contextWorker(p string, _ *rand.Rand) idiom {
	return idiom{name: "context", imports: []string{"context"},
		setup: fmt.Sprintf(`	%[1]sctx, %[1]scancel := context.WithCancel(context.Background())
	%[1]sreq := make(chan int)
	%[1]sresp := make(chan int)
	%[1]sended := make(chan struct{})
	go func() {
		defer close(%[1]sended)
		for {
			select {
			case <-%[1]sctx.Done():
				return
			case n := <-%[1]sreq:
				%[1]sresp <- n * 2
			}
		}
	}()
`, p),
		finish: fmt.Sprintf(`	%[1]sreq <- 21
	if v := <-%[1]sresp; v != 42 {
		t.Errorf("context: %%d", v)
	}
	%[1]scancel()
	<-%[1]sended
	if %[1]sctx.Err() == nil {
		t.Error("context: not cancelled")
	}
`, p)}
}

// syncmap: goroutines store keys of their own in a sync.Map.
func syncMap(p string, _ *rand.Rand) idiom {
	return idiom{name: "syncmap", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]sm sync.Map
	var %[1]swg sync.WaitGroup
	for i := range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			%[1]sm.Store(i, i*i)
			%[1]sm.LoadOrStore(10+i, i)
		}()
	}
`, p),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	%[1]sn := 0
	%[1]sm.Range(func(any, any) bool { %[1]sn++; return true })
	if v, ok := %[1]sm.Load(1); !ok || v.(int) != 1 || %[1]sn != 4 {
		t.Errorf("syncmap: %%v %%v, %%d entries", v, ok, %[1]sn)
	}
`, p)}
}

// once: goroutines race to initialise a value through a Once.
func once(p string, _ *rand.Rand) idiom {
	return idiom{name: "once", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]sonce sync.Once
	%[1]sinits := 0
	%[1]sval := ""
	%[1]sgot := make(chan string, 2)
	for range 2 {
		go func() {
			%[1]sonce.Do(func() { %[1]sinits++; %[1]sval = "ready" })
			%[1]sgot <- %[1]sval
		}()
	}
`, p),
		finish: fmt.Sprintf(`	if a, b := <-%[1]sgot, <-%[1]sgot; a != "ready" || b != "ready" {
		t.Errorf("once: %%q %%q", a, b)
	}
	%[1]sonce.Do(func() {})
	if %[1]sinits != 1 {
		t.Errorf("once: %%d inits", %[1]sinits)
	}
`, p)}
}

// atomic: goroutines add to an atomic counter; the test reads it after
// the wait.
func atomicCounter(p string, r *rand.Rand) idiom {
	n := 2 + r.IntN(2)
	return idiom{name: "atomic", imports: []string{"sync", "sync/atomic"},
		setup: fmt.Sprintf(`	var %[1]sn atomic.Int64
	var %[1]swg sync.WaitGroup
	for range %[2]d {
		%[1]swg.Go(func() { %[1]sn.Add(1) })
	}
`, p, n),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	if %[1]sn.Load() != %[2]d {
		t.Errorf("atomic: %%d", %[1]sn.Load())
	}
`, p, n)}
}

// recovered: a goroutine closes its channel, then sends on it and closes
// it again, recovering both panics, as Go lets it.
func recovered(p string, _ *rand.Rand) idiom {
	return idiom{name: "recovered",
		setup: fmt.Sprintf(`	%[1]spanics := make(chan int, 1)
	go func() {
		c := make(chan int, 1)
		c <- 1
		close(c)
		n := 0
		func() {
			defer func() {
				if recover() != nil {
					n++
				}
			}()
			c <- 2
		}()
		func() {
			defer func() {
				if recover() != nil {
					n++
				}
			}()
			close(c)
		}()
		%[1]spanics <- n + <-c
	}()
`, p),
		finish: fmt.Sprintf(`	if n := <-%[1]spanics; n != 3 {
		t.Errorf("recovered: %%d", n)
	}
`, p)}
}

// rwmutex: readers read a value a writer updates, under an RWMutex.
func rwmutex(p string, _ *rand.Rand) idiom {
	return idiom{name: "rwmutex", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]smu sync.RWMutex
	%[1]sv := 1
	var %[1]swg sync.WaitGroup
	%[1]sseen := make([]int, 2)
	for i := range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			%[1]smu.RLock()
			%[1]sseen[i] = %[1]sv
			%[1]smu.RUnlock()
		}()
	}
	%[1]swg.Add(1)
	go func() {
		defer %[1]swg.Done()
		%[1]smu.Lock()
		%[1]sv = 2
		%[1]smu.Unlock()
	}()
`, p),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	for _, s := range %[1]sseen {
		if s != 1 && s != 2 {
			t.Errorf("rwmutex: %%v", %[1]sseen)
		}
	}
`, p)}
}

// cond: a consumer waits on a condition for a flag a producer sets.
func cond(p string, _ *rand.Rand) idiom {
	return idiom{name: "cond", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]smu sync.Mutex
	%[1]scond := sync.NewCond(&%[1]smu)
	%[1]sready := false
	%[1]sdone := make(chan bool)
	go func() {
		%[1]smu.Lock()
		for !%[1]sready {
			%[1]scond.Wait()
		}
		%[1]smu.Unlock()
		%[1]sdone <- true
	}()
	go func() {
		%[1]smu.Lock()
		%[1]sready = true
		%[1]scond.Signal()
		%[1]smu.Unlock()
	}()
`, p),
		finish: fmt.Sprintf(`	<-%[1]sdone
`, p)}
}

// logs: goroutines log through the test's t before the test waits for
// them (a log after the test would be a bug).
func logs(p string, _ *rand.Rand) idiom {
	return idiom{name: "logs", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]swg sync.WaitGroup
	for i := range 2 {
		%[1]swg.Add(1)
		go func() {
			t.Logf("logs: worker %%d", i)
			%[1]swg.Done()
		}()
	}
`, p),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
`, p)}
}

// Test returns a test function named name made of k idioms drawn with
// seed, and the imports it needs.
func Test(name string, seed uint64, k int) (code string, imports []string) {
	return test(name, seed, k, false)
}

// Racy is Test with a race planted among the idioms: the test of a checker
// that must report nothing in Test's tests and the race in Racy's, whose
// accesses are made in the same code as theirs.
func Racy(name string, seed uint64, k int) (code string, imports []string) {
	return test(name, seed, k, true)
}

// Reduced is Planted (bug < 0: Test) keeping only the idioms drawn for
// seed whose indices (0 to k-1, in the order drawn) are in keep, each as
// it is in the whole test, and the planted bug: the way to tell which
// idioms a report needs.
func Reduced(name string, seed uint64, k, bug int, keep []int) (code string, imports []string) {
	if keep == nil {
		keep = []int{}
	}
	return generate(name, seed, k, bug, keep)
}

func test(name string, seed uint64, k int, racy bool) (code string, imports []string) {
	bug := -1
	if racy {
		bug = 0
	}
	return generate(name, seed, k, bug, nil)
}

// generate writes the test of seed's k idioms, with Bugs()[bug] planted if
// bug >= 0, keeping only the idioms in keep if it is not nil.
func generate(name string, seed uint64, k, bug int, keep []int) (code string, imports []string) {
	r := rand.New(rand.NewPCG(seed, 0x72616365))
	picked := r.Perm(len(makers))[:min(k, len(makers))]
	var ids []idiom
	for i, m := range picked {
		ids = append(ids, makers[m].make(fmt.Sprintf("i%d", i), r))
	}
	if keep != nil {
		var kept []idiom
		for i, id := range ids {
			if slices.Contains(keep, i) {
				kept = append(kept, id)
			}
		}
		ids = kept
	}
	if bug >= 0 {
		at := r.IntN(len(ids) + 1)
		ids = slices.Insert(ids, at, bugs[bug].plant(fmt.Sprintf("i%d", k)))
	}
	var b strings.Builder
	var names []string
	for _, id := range ids {
		names = append(names, id.name)
		imports = append(imports, id.imports...)
	}
	fmt.Fprintf(&b, "// %s (seed %d): %s.\nfunc %s(t *testing.T) {\n", name, seed, strings.Join(names, ", "), name)
	for _, id := range ids {
		b.WriteString(id.setup)
	}
	for _, id := range ids {
		b.WriteString(id.finish)
	}
	b.WriteString("}\n")
	return b.String(), imports
}

// File returns a Go test file of package pkg with a test of k idioms for
// each seed, named TestGen<seed>, and a racy one (Racy) for each seed of
// racy, named TestRace<seed>.
func File(pkg string, seeds []uint64, k int, racy ...uint64) string {
	var tests, imports []string
	for _, s := range seeds {
		code, imps := Test(fmt.Sprintf("TestGen%d", s), s, k)
		tests = append(tests, code)
		imports = append(imports, imps...)
	}
	for _, s := range racy {
		code, imps := Racy(fmt.Sprintf("TestRace%d", s), s, k)
		tests = append(tests, code)
		imports = append(imports, imps...)
	}
	return Join(pkg, tests, imports)
}

// Join returns a Go test file of package pkg holding the tests (their
// code, as Test, Racy, Planted and Reduced return it) and importing what
// they need ("testing" besides).
func Join(pkg string, tests []string, imports []string) string {
	imports = append([]string{"testing"}, imports...)
	slices.Sort(imports)
	imports = slices.Compact(imports)
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by stdbg's internal/testkit/racefree. DO NOT EDIT.\n\npackage %s\n\nimport (\n", pkg)
	for _, imp := range imports {
		if !strings.Contains(imp, " ") {
			imp = `"` + imp + `"`
		}
		b.WriteString("\t" + imp + "\n")
	}
	b.WriteString(")\n\n")
	b.WriteString(strings.Join(tests, "\n"))
	return b.String()
}
