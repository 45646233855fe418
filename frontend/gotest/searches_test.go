package gotest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stdbg/stdbg/frontend/session"
)

// twoTests is a package of two correct tests.
var twoTests = map[string]string{
	"go.mod": "module example.com/two\n\ngo 1.22\n",
	"two_test.go": `package two

import "testing"

func TestFirst(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- 1 }()
	<-ch
}

func TestSecond(t *testing.T) {
	ch := make(chan int)
	go func() { ch <- 2 }()
	<-ch
}
`,
}

// A package's tests are explored several at once (Config.Searches), and
// their results still come in order: the search of TestFirst does not
// begin until that of TestSecond has, which a run that explored one test
// after the other would never see.
func TestSearchesAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	if err := writeFiles(dir, twoTests); err != nil {
		t.Fatal(err)
	}
	search := SearchWith(0, true)
	var mu sync.Mutex
	started := map[string]chan struct{}{"TestFirst": make(chan struct{}), "TestSecond": make(chan struct{})}
	var out strings.Builder
	sum, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"."}, Parallel: 1, Searches: 2, Stdout: &out,
		Search: func(ctx context.Context, s *session.Session, tt *Test) (*Searched, error) {
			mu.Lock()
			close(started[tt.Name])
			mu.Unlock()
			if tt.Name == "TestFirst" {
				select {
				case <-started["TestSecond"]:
				case <-time.After(time.Minute):
					return nil, fmt.Errorf("TestSecond's search did not begin while TestFirst's was under way")
				}
			}
			tt.Jobs = 1
			return search(ctx, s, tt)
		}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	text := out.String()
	if sum.OK != 2 {
		t.Errorf("summary %+v, want 2 ok:\n%s", sum, text)
	}
	first := regexp.MustCompile(`(?m)^ok +TestFirst \(`).FindStringIndex(text)
	second := regexp.MustCompile(`(?m)^ok +TestSecond \(`).FindStringIndex(text)
	if first == nil || second == nil || second[0] < first[0] {
		t.Errorf("want TestFirst's line, then TestSecond's:\n%s", text)
	}
}

// twoPackages are two packages of one correct test each.
var twoPackages = map[string]string{
	"go.mod": "module example.com/pair\n\ngo 1.22\n",
	"a/a_test.go": `package a

import "testing"

func TestA(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- 1 }()
	<-ch
}
`,
	"b/b_test.go": `package b

import "testing"

func TestB(t *testing.T) {
	ch := make(chan int, 1)
	go func() { ch <- 2 }()
	<-ch
}
`,
}

// Config.Searches bounds the searches under way of all the packages built
// and explored at once: with one, the search of a test of one package
// never overlaps that of the other, however long it waits for it.
func TestSearchesOfAllPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	if err := writeFiles(dir, twoPackages); err != nil {
		t.Fatal(err)
	}
	search := SearchWith(0, true)
	var mu sync.Mutex
	under, most, searches := 0, 0, 0
	second := make(chan struct{}) // closed when the second search begins
	var out strings.Builder
	sum, err := Run(context.Background(), Config{Dir: dir, Patterns: []string{"./..."}, Parallel: 2, Searches: 1, Stdout: &out,
		Search: func(ctx context.Context, s *session.Session, tt *Test) (*Searched, error) {
			mu.Lock()
			under++
			searches++
			most = max(most, under)
			n := searches
			mu.Unlock()
			switch n {
			case 1:
				// Long enough for the other package to be built and its
				// search to begin, were it not held back.
				select {
				case <-second:
				case <-time.After(20 * time.Second):
				}
			case 2:
				close(second)
			}
			tt.Jobs = 1
			defer func() {
				mu.Lock()
				under--
				mu.Unlock()
			}()
			return search(ctx, s, tt)
		}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	if sum.OK != 2 {
		t.Errorf("summary %+v, want 2 ok:\n%s", sum, out.String())
	}
	if most != 1 {
		t.Errorf("%d searches at once, want 1", most)
	}
}
