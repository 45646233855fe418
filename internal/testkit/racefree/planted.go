package racefree

import (
	"fmt"
	"slices"
)

// lostUpdate is the race Racy plants: two goroutines add to a counter
// without a lock, and the test waits for them with a wait group. go test
// -race reports the race in every run.
func lostUpdate(p string) idiom {
	return idiom{name: "lost update (a race)", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]swg sync.WaitGroup
	%[1]sn := 0
	for range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			%[1]sn++
		}()
	}
`, p),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	_ = %[1]sn
`, p)}
}

// readBeforeWait: the test reads the workers' results before it waits
// for them, a race go test -race reports whichever comes first.
func readBeforeWait(p string) idiom {
	return idiom{name: "read before wait (a race)", imports: []string{"sync"},
		setup: fmt.Sprintf(`	var %[1]swg sync.WaitGroup
	%[1]sres := make([]int, 2)
	for i := range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			%[1]sres[i] = i + 1
		}()
	}
`, p),
		finish: fmt.Sprintf(`	%[1]ssum := %[1]sres[0] + %[1]sres[1]
	%[1]swg.Wait()
	_ = %[1]ssum
`, p)}
}

// splitSection: two goroutines read a counter in one critical section
// and write it back in another; one's update is lost when the other's
// section comes between, and the test's check fails. No race: every
// access is under the lock. The Gosched between the sections lets plain
// Go show it.
func splitSection(p string) idiom {
	return idiom{name: "lost update under a lock", imports: []string{"sync", "runtime"},
		setup: fmt.Sprintf(`	var %[1]smu sync.Mutex
	var %[1]swg sync.WaitGroup
	%[1]sn := 0
	for range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			%[1]smu.Lock()
			v := %[1]sn
			%[1]smu.Unlock()
			runtime.Gosched()
			%[1]smu.Lock()
			%[1]sn = v + 1
			%[1]smu.Unlock()
		}()
	}
`, p),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
	if %[1]sn != 2 {
		t.Errorf("lost update under a lock: %%d, want 2", %[1]sn)
	}
`, p)}
}

// checkThenClose: two goroutines close a channel unless they see it
// closed; when both look before either closes, the second close panics.
func checkThenClose(p string) idiom {
	return idiom{name: "check then close", imports: []string{"sync", "runtime"},
		setup: fmt.Sprintf(`	%[1]sdone := make(chan struct{})
	var %[1]swg sync.WaitGroup
	for range 2 {
		%[1]swg.Add(1)
		go func() {
			defer %[1]swg.Done()
			select {
			case <-%[1]sdone:
			default:
				runtime.Gosched()
				close(%[1]sdone)
			}
		}()
	}
`, p),
		finish: fmt.Sprintf(`	%[1]swg.Wait()
`, p)}
}

// lateLog: a goroutine the test does not wait for logs through t, which
// package testing refuses (it panics) once the test has returned.
func lateLog(p string) idiom {
	return idiom{name: "log after the test", imports: []string{"runtime"},
		setup: `	go func() {
		runtime.Gosched()
		t.Log("late")
	}()
`,
		finish: ""}
}

// A Bug is a mistake the generator can plant among a test's idioms
// (Planted), and the kind of report it must give: "race" (a data race),
// "assertion" (a check of the test fails), "panic" (the program panics).
type Bug struct {
	Name, Kind string
	plant      func(p string) idiom
}

var bugs = []Bug{
	{"lost update (a race)", "race", lostUpdate},
	{"read before wait (a race)", "race", readBeforeWait},
	{"lost update under a lock", "assertion", splitSection},
	{"check then close", "panic", checkThenClose},
	{"log after the test", "panic", lateLog},
}

// Bugs lists the bugs Planted plants, in the order of its bug argument.
func Bugs() []Bug { return slices.Clone(bugs) }

// Planted is Test with bug Bugs()[bug] planted among the idioms, at a
// place drawn with seed.
func Planted(name string, seed uint64, k, bug int) (code string, imports []string) {
	return generate(name, seed, k, bug, nil)
}
