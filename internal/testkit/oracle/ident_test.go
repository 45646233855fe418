package oracle

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/schedule"
)

func mustParse(t *testing.T, text string) *Program {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The bugs of a Go program are named in the program's terms, though the
// interpreter performs every operation from the same few lines: two
// assertions, two misuses, two deadlocks are told apart.
func TestGoBugIdentities(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
		among      bool // want are among the bugs (timing may add others)
	}{
		{"a misuse in a goroutine", `lang go
obj m0 mutex
thread 0
  go 1
  lock m0
  unlock m0
thread 1
  unlock m0
`, []string{"misuse@Mutex.Unlock@T0@s2", "misuse@Mutex.Unlock@T1@s3"}, false},
		{"Go's panic in an AfterFunc's function", `lang go
obj ch0 chan 0
obj t0 timer
thread 0
  afterfunc t0 0 1
  sleep 1
thread 1
  close ch0
  close ch0
`, []string{"crash@close of closed channel@T1@s3"}, false},
		{"a deadlock", `lang go
obj m0 mutex
obj m1 mutex
thread 0
  go 1
  lock m0
  lock m1
thread 1
  lock m1
  lock m0
`, []string{"deadlock@T0@s1", "deadlock@T0@s2,T1@s4", "leak@T1@s3"}, false},
		{"assertions and crashes", `lang go
obj x0 var
thread 0
  go 1
  read x0 r0
  assert r0 == 0 #7
thread 1
  write x0 1
  read x0 r1
  crashif r1 == 1 #8
`, []string{"assertion@A7", "crash@P8"}, false},
		{"an AfterFunc's function run twice", `lang go
obj ch0 chan 0
obj t0 timer
thread 0
  afterfunc t0 1 1
  sleep 2
  reset t0 1 _
  sleep 2
thread 1
  recv ch0 r0
`, []string{"leak@T1@s4,T1.1@s4"}, true},
		{"a leak", `lang go
obj ch0 chan 0
thread 0
  go 1
thread 1
  recv ch0 r0
`, []string{"leak@T1@s1"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tg, release, err := newTarget(mustParse(t, tt.text))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			v, err := exploreCounted(context.Background(), tg, search.NewDFS(), DefaultLimits, false, 10000)
			if err != nil {
				t.Fatal(err)
			}
			got := v.Keys()
			if tt.among {
				for _, w := range tt.want {
					if !slices.Contains(got, w) {
						t.Errorf("bugs %q, want %q among them", got, w)
					}
				}
			} else if !slices.Equal(got, tt.want) {
				t.Errorf("bugs %q, want %q", got, tt.want)
			}
		})
	}
}

// firstOnly is an unsound strategy that claims to be exhaustive after its
// first execution.
type firstOnly struct {
	search.Strategy
	ran bool
}

func (f *firstOnly) Begin() (schedule.Schedule, bool) {
	if f.ran {
		return nil, false
	}
	return f.Strategy.Begin()
}
func (f *firstOnly) End(r *search.Report) { f.ran = true; f.Strategy.End(r) }
func (f *firstOnly) Exhausted() bool      { return true }

// The comparison catches a strategy that claims completeness without it:
// the bugs and the traces it misses are reported.
func TestCompareCatchesAnUnsoundStrategy(t *testing.T) {
	saved := strategies
	defer func() { strategies = saved }()
	strategies = []strategyDef{{name: "first", traces: "cover", run: func(ctx context.Context, t target, l Limits) (*Verdict, error) {
		return exploreCounted(ctx, t, &firstOnly{Strategy: search.NewDFS()}, l, false, 1000)
	}}}
	p := mustParse(t, `lang go
obj x0 var
thread 0
  go 1
  read x0 r0
  assert r0 == 0 #7
thread 1
  write x0 1
  read x0 r1
  crashif r1 == 1 #8
`)
	res, err := Compare(context.Background(), p, DefaultLimits, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Disagree {
		got = append(got, d.Strategy+" "+d.What+" "+strings.Fields(d.Detail)[0])
	}
	want := []string{"first missed assertion@A7", "first trace-missed"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("disagreements %q, want one starting %q", got, w)
		}
	}
	if len(res.Reference.Bugs) != 2 {
		t.Errorf("every schedule found %q, want two bugs", res.Reference.Keys())
	}
}
