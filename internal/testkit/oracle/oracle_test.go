package oracle

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stdbg/stdbg/internal/testkit/long"
	"github.com/stdbg/stdbg/target/ctarget"
)

// The long mode: go test ./internal/testkit/oracle -run OracleLong -oracle.n 100000
// (or -oracle.duration 3h) compares every strategy on generated programs,
// shrinks each new disagreement and writes its reproducers to -oracle.out.
var (
	flagN        = flag.Int("oracle.n", 0, "long mode: the number of programs to generate for each runtime (0: the long mode does not run unless -oracle.duration is set)")
	flagDuration = flag.Duration("oracle.duration", 0, "long mode: run for this long")
	flagSeed     = flag.Uint64("oracle.seed", 1, "long mode: the first seed")
	flagLang     = flag.String("oracle.lang", "go,c", "long mode: the runtimes, go and/or c")
	flagOut      = flag.String("oracle.out", "", "long mode: the directory of the reproducers (default: a new temporary directory, printed)")
	flagFindings = flag.String("oracle.findings", "", "long mode: a markdown file to append each finding to")
	flagProg     = flag.String("oracle.prog", "", "TestOracleReplay: program files (.prog) to compare, comma-separated")
	flagMax      = flag.Int64("oracle.max", 0, "the most schedules of a program to run (default: DefaultLimits)")
	flagMemory   = flag.Bool("oracle.memory", false, "long mode: of the C programs, only the Memory programs (plain accesses; the others' seeds are skipped)")
	flagShrinks  = flag.Int("oracle.shrinks", 3, "long mode: how many disagreements of each kind (strategy and what) to shrink and write; -1: all (every one is logged)")
)

// quick is the quick mode's size: programs small enough that running every
// schedule of a few hundred takes seconds.
var (
	quickGenGo = GenOptions{MaxThreads: 3, MaxOps: 10}
	quickGenC  = GenOptions{MaxThreads: 3, MaxOps: 9}
	quickLimit = Limits{MaxDepth: 200, MaxExecutions: 500, MinimiseExecutions: 100}
)

// quickSelect compares DPOR on every program, and one other strategy in
// turn, so that a few hundred programs exercise every strategy; and the
// two modes of every Memory program.
func quickSelect(seed uint64) func(string) bool {
	var names []string
	for _, n := range StrategyNames() {
		if n != "dpor" && n != "memory" {
			names = append(names, n)
		}
	}
	other := names[int(seed)%len(names)]
	return func(n string) bool { return n == "dpor" || n == "memory" || n == other }
}

// TestOracleQuick compares the strategies on small generated Go and C
// programs (one executable of each build): every strategy that claims
// completeness must report exactly the bugs running every schedule reports
// (and DPOR cover its traces), but for the findings recorded in
// knownFindings. A C execution is a hand-over between two processes, a
// hundred times the cost of an interpreted Go one; with eleven strategies
// in turn, twelve C programs compare each on one or two. go test ./... runs
// 100 Go and 12 C programs, -short 50 and 6, -e2e.long (which .ci/run
// passes) 400 and 50.
func TestOracleQuick(t *testing.T) {
	nGo, nC := long.Size(100, 400), long.Size(12, 50)
	if testing.Short() && !long.Enabled() {
		nGo, nC = 50, 6
	}
	for _, run := range []struct {
		lang Lang
		n    int
		gen  GenOptions
	}{{Go, nGo, quickGenGo}, {C, nC, quickGenC}} {
		t.Run(string(run.lang), func(t *testing.T) {
			c := &Campaign{Lang: run.lang, Gen: run.gen, Limits: quickLimit, Select: quickSelect, Known: knownFinding}
			seeds := make([]uint64, run.n)
			for i := range seeds {
				seeds[i] = uint64(i + 1)
			}
			if run.lang == C {
				requireCompiler(t)
				if err := c.PrepareC(seeds); err != nil {
					t.Fatal(err)
				}
			}
			for _, seed := range seeds {
				res, fresh, err := c.Program(context.Background(), seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for _, d := range fresh {
					t.Errorf("%s program of seed %d: %s\n%s(%s)", run.lang, seed, d, Generate(run.lang, seed, run.gen), res.summary())
				}
			}
			t.Logf("%s", c.Stats)
		})
	}

}

// TestOracleLong is the long mode (see the flags): it generates
// -oracle.n programs of each runtime, or as many as -oracle.duration
// allows, compares every strategy on each, shrinks each new disagreement
// and writes its reproducers.
func TestOracleLong(t *testing.T) {
	if *flagN == 0 && *flagDuration == 0 {
		t.Skip("the long mode runs with -oracle.n or -oracle.duration")
	}
	out := *flagOut
	if out == "" {
		var err error
		if out, err = os.MkdirTemp("", "stdbg-oracle-"); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "oracle: reproducers in %s\n", out)
	ctx := context.Background()
	if *flagDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *flagDuration)
		defer cancel()
	}
	var campaigns []*Campaign
	for _, l := range strings.Split(*flagLang, ",") {
		lang := Lang(strings.TrimSpace(l))
		if lang != Go && lang != C {
			t.Fatalf("-oracle.lang: no runtime %q", l)
		}
		if lang == C {
			requireCompiler(t)
		}
		shrinks := *flagShrinks
		if shrinks < 0 {
			shrinks = math.MaxInt
		}
		c := &Campaign{Lang: lang, Profiles: LongProfiles, Limits: DefaultLimits, Known: knownFinding, ShrinkTries: 400, MaxShrinks: shrinks}
		c.OnFinding = func(f *Finding) {
			files, err := f.Write(out)
			if err != nil {
				t.Errorf("writing %s: %v", f.Name(), err)
			}
			fmt.Fprintf(os.Stderr, "oracle: FINDING %s\n%s", f.Name(), f.Report())
			if *flagFindings != "" {
				if err := AppendFile(*flagFindings, f.Markdown(files)); err != nil {
					t.Errorf("%v", err)
				}
			}
		}
		campaigns = append(campaigns, c)
	}
	start, last := time.Now(), time.Now()
	const batch = 50
	for i := 0; *flagN == 0 || i < *flagN; i += batch {
		for _, c := range campaigns {
			seeds := make([]uint64, 0, batch)
			for s := *flagSeed + uint64(i); s < *flagSeed+uint64(i+batch) && (*flagN == 0 || s < *flagSeed+uint64(*flagN)); s++ {
				if *flagMemory && c.Lang == C && !Generate(C, s, c.gen(s)).Memory {
					continue
				}
				seeds = append(seeds, s)
			}
			if err := c.PrepareC(seeds); err != nil {
				t.Fatal(err)
			}
			for _, seed := range seeds {
				_, fresh, err := c.Program(ctx, seed)
				for _, d := range fresh {
					fmt.Fprintf(os.Stderr, "oracle: DISAGREEMENT %s seed %d: %s\n", c.Lang, seed, d)
				}
				if err != nil {
					if ctx.Err() != nil {
						report(t, campaigns, start)
						return
					}
					t.Errorf("%s seed %d: %v", c.Lang, seed, err)
				}
			}
		}
		if time.Since(last) > time.Minute {
			last = time.Now()
			report(t, campaigns, start)
		}
	}
	report(t, campaigns, start)
}

func report(t *testing.T, cs []*Campaign, start time.Time) {
	for _, c := range cs {
		msg := fmt.Sprintf("oracle: %s after %s: %s", c.Lang, time.Since(start).Round(time.Second), c.Stats)
		fmt.Fprintln(os.Stderr, msg)
		t.Log(msg)
	}
}

// TestOracleReplay compares the strategies on program files written by the
// long mode: go test ./internal/testkit/oracle -run OracleReplay -oracle.prog F.prog -v
func TestOracleReplay(t *testing.T) {
	if *flagProg == "" {
		t.Skip("give program files with -oracle.prog")
	}
	for _, path := range strings.Split(*flagProg, ",") {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(string(text))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		l := DefaultLimits
		if *flagMax > 0 {
			l.MaxExecutions = *flagMax
		}
		res, err := Compare(context.Background(), p, l, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f := &Finding{Lang: p.Lang, Original: p, Program: p, Result: res}
		t.Logf("%s:\n%s", filepath.Base(path), f.Report())
		for _, d := range res.Disagree {
			t.Errorf("%s: %s", filepath.Base(path), d)
		}
	}
}

// FuzzOracle is the native fuzz target: each input is the seed of a Go
// program, compared as in the long mode.
//
//	go test ./internal/testkit/oracle -run '^$' -fuzz FuzzOracle
func FuzzOracle(f *testing.F) {
	for _, s := range []uint64{1, 2, 3} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		c := &Campaign{Lang: Go, Gen: DefaultGen, Limits: DefaultLimits, Known: knownFinding}
		res, fresh, err := c.Program(context.Background(), seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range fresh {
			t.Errorf("seed %d: %s\n%s(%s)", seed, d, Generate(Go, seed, DefaultGen), res.summary())
		}
	})
}

// requireCompiler fails the test when no C compiler is found: the C
// programs cannot be checked without one.
func requireCompiler(t *testing.T) {
	t.Helper()
	if _, err := ctarget.Compiler(false); err != nil {
		t.Fatalf("the C programs need a C compiler: %v", err)
	}
}
