package oracle

import (
	"strings"
	"testing"
)

// Every generated program is well formed and reads back from its text.
func TestGeneratedProgramsRoundTrip(t *testing.T) {
	for _, lang := range []Lang{Go, C} {
		used := map[string]bool{}
		memory := 0
		for seed := uint64(1); seed <= 400; seed++ {
			p := Generate(lang, seed, DefaultGen)
			if err := p.Check(); err != nil {
				t.Fatalf("%s seed %d: %v\n%s", lang, seed, err, p)
			}
			if n := p.Size(); n > DefaultGen.MaxOps {
				t.Errorf("%s seed %d: %d operations, more than %d", lang, seed, n, DefaultGen.MaxOps)
			}
			q, err := Parse(p.String())
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%s", lang, seed, err, p)
			}
			if q.String() != p.String() {
				t.Fatalf("%s seed %d: read back as\n%s\nnot\n%s", lang, seed, q, p)
			}
			if again := Generate(lang, seed, DefaultGen); again.String() != p.String() {
				t.Fatalf("%s seed %d: generated twice, differently", lang, seed)
			}
			if p.Memory {
				memory++
				if !failuresFollowPoints(p) {
					t.Errorf("%s seed %d: a Memory program with a failure after a plain access:\n%s", lang, seed, p)
				}
			}
			for _, th := range p.Threads {
				walk(th.Ops, func(op *Op) error { used[op.Code] = true; return nil })
			}
		}
		if lang == C && (memory < 400/memoryShare/2 || memory > 2*400/memoryShare) {
			t.Errorf("%d Memory programs of 400, want about %d", memory, 400/memoryShare)
		}
		// Over a few hundred seeds the generator uses every operation of
		// the runtime.
		for code, sig := range opCodes {
			if strings.Contains(sig.langs, string(lang[0])) && !used[code] {
				t.Errorf("%s: no generated program uses %s", lang, code)
			}
		}
	}
}

// Parse explains what it cannot read.
func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		text, want string
	}{
		{"thread 0\n  yield\n", "no lang line"},
		{"lang rust\n", "want lang go or lang c"},
		{"lang go\nthread 1\n", "want thread 0"},
		{"lang go\nthread 0\n  frobnicate\n", `unknown operation "frobnicate"`},
		{"lang go\nthread 0\n  lock\n", "lock takes 1 arguments, not 0"},
		{"lang go\nthread 0\n  lock m0\n", `"m0" is not a mutex`},
		{"lang go\nobj m0 mutex\nthread 0\n  read m0 r0\n", `"m0" is not a var`},
		{"lang go\nobj x0 var\nthread 0\n  read x0 r9\n", `no register "r9"`},
		{"lang go\nthread 0\n  go 1\nthread 1\nthread 2\n", "thread 2 is started 0 times"},
		{"lang go\nthread 0\n  if r0 == 1\n", "a body is not closed by end"},
		{"lang go\nthread 0\n  end\n", "end without a body"},
		{"lang c\nobj ch0 chan 0\nthread 0\n", `no type "chan" in c`},
		{"lang go\nmemory\nthread 0\n", "only C programs have a memory build"},
		{"lang c\nmemory\nobj x0 var\nthread 0\n  pload x0 r0\n", `"x0" is not a plain or heap variable`},
		{"lang go\nobj y0 plain\nthread 0\n", `no type "plain" in go`},
		{"lang c\nobj y0 plain\nthread 0\n", "a plain variable needs the memory build"},
		{"lang c\nobj x0 var\nthread 0\n  send x0 1\n", `no operation "send" in c`},
		{"lang go\nobj ch0 chan 0\nthread 0\n  select r0 { recv ch0 r1 | maybe }\n", `bad select case "maybe"`},
		{"lang go\nobj c0 cond m0\nobj m0 mutex\nthread 0\n", "is not a mutex declared before it"},
	} {
		_, err := Parse(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
}

// Shrink keeps what the predicate needs and drops everything else: here
// the assertion #3 of thread 2, which needs thread 2 and so the thread that
// starts it.
func TestShrinkKeepsWhatThePredicateNeeds(t *testing.T) {
	p, err := Parse(`lang go
obj x0 var
obj m0 mutex
obj ch0 chan 1
thread 0
  go 1
  lock m0
  write x0 1
  unlock m0
  send ch0 1
thread 1
  read x0 r0
  go 2
  assert r0 == 0 #1
thread 2
  recv ch0 r1
  if r1 == 1
    write x0 2
    assert r1 != 1 #3
  end
  yield
`)
	if err != nil {
		t.Fatal(err)
	}
	has3 := func(q *Program) bool {
		found := false
		for _, th := range q.Threads {
			walk(th.Ops, func(op *Op) error { found = found || op.Code == "assert" && op.ID == 3; return nil })
		}
		return found
	}
	before := p.String()
	got := Shrink(p, has3, 1000)
	want := "lang go\nthread 0\n  go 1\nthread 1\n  go 2\nthread 2\n  assert r1 != 1 #3\n"
	if got.String() != want {
		t.Errorf("shrunk to\n%s\nwant\n%s", got, want)
	}
	if p.String() != before {
		t.Errorf("Shrink changed its argument:\n%s", p)
	}
}
