package lazyre_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stdbg/stdbg/internal/lazyre"
)

func TestMethodsMatchRegexp(t *testing.T) {
	r := lazyre.New(`(\w+)=(\d+)`)
	re := r.Re()
	if re != r.Re() {
		t.Fatal("Re compiled the pattern twice")
	}
	for _, s := range []string{"a=1 b=22", "none", "x=3"} {
		if got, want := r.MatchString(s), re.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
		if got, want := r.FindStringSubmatch(s), re.FindStringSubmatch(s); !slices.Equal(got, want) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, got, want)
		}
		if got, want := r.FindAllString(s, -1), re.FindAllString(s, -1); !slices.Equal(got, want) {
			t.Errorf("FindAllString(%q) = %q, want %q", s, got, want)
		}
		if got, want := r.ReplaceAllString(s, "$2=$1"), re.ReplaceAllString(s, "$2=$1"); got != want {
			t.Errorf("ReplaceAllString(%q) = %q, want %q", s, got, want)
		}
	}
	if r.String() != `(\w+)=(\d+)` {
		t.Errorf("String() = %q", r.String())
	}
}

func TestBadPatternPanicsOnFirstUse(t *testing.T) {
	r := lazyre.New(`(`) // no panic here: nothing is compiled yet
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile did not panic on first use")
		}
	}()
	r.MatchString("x")
}

func TestConcurrentFirstUse(t *testing.T) {
	r := lazyre.New(`^a+$`)
	var wg sync.WaitGroup
	res := make([]bool, 8)
	for i := range res {
		wg.Go(func() { res[i] = r.MatchString("aaa") })
	}
	wg.Wait()
	for i, ok := range res {
		if !ok {
			t.Errorf("goroutine %d: no match", i)
		}
	}
}

func ExampleNew() {
	version := lazyre.New(`go(\d+)\.(\d+)`) // compiled by the first match, not at start
	fmt.Println(version.FindStringSubmatch("go1.26.1"))
	// Output: [go1.26 1 26]
}
