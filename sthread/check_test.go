package sthread_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/sthread"
)

func TestPrograms(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			res, err := sthread.Explore(p.f, p.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if p.kind == search.Exited {
				for _, b := range res.Bugs {
					t.Errorf("unexpected bug:\n%s", b)
				}
				if !res.Complete && !res.DepthLimited {
					t.Errorf("exploration incomplete: %+v", res)
				}
				return
			}
			var bug *sthread.Bug
			for _, b := range res.Bugs {
				if b.Kind == p.kind {
					bug = b
					break
				}
			}
			if bug == nil {
				t.Fatalf("no %v found; bugs: %v", p.kind, res.Bugs)
			}
			text := bug.String()
			for _, w := range p.want {
				if !strings.Contains(strings.ReplaceAll(text, "\n", " "), w) {
					t.Errorf("report lacks %q:\n%s", w, text)
				}
			}
			again, err := sthread.RunSchedule(bug.Schedule, p.f, p.opts...)
			if err != nil {
				t.Fatalf("replaying %s: %v", bug.Schedule, err)
			}
			if again == nil || again.Kind != bug.Kind || again.Message != bug.Message {
				t.Errorf("replaying %s gave %v, want %v (%s)", bug.Schedule, again, bug.Kind, bug.Message)
			}
		})
	}
}

func TestExploreErrors(t *testing.T) {
	if _, err := sthread.Explore(nil); err == nil {
		t.Error("Explore(nil) succeeded")
	}
	if _, err := sthread.RunSchedule("1;x", deadlyEmbrace); err == nil || !strings.Contains(err.Error(), "schedule step 2") {
		t.Errorf("bad schedule: err %v", err)
	}
	_, err := sthread.RunSchedule("1;1;3", deadlyEmbrace)
	if err == nil || !strings.Contains(err.Error(), "thread 3 does not exist") {
		t.Errorf("schedule that does not fit: err %v", err)
	}
	var zero error
	if errors.Is(err, zero) {
		t.Error("unexpected")
	}
}

// Every program of the table: DPOR finds the bugs that running every
// schedule finds.
func TestReductionsFindTheSameBugs(t *testing.T) {
	keys := func(t *testing.T, p program, opts ...sthread.Option) []string {
		res, err := sthread.Explore(p.f, append(append(opts, p.opts...), sthread.All(), sthread.MaxExecutions(200000))...)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Complete && !res.DepthLimited {
			t.Skipf("too big to explore every schedule: %+v", res.Stats)
		}
		var ks []string
		for _, b := range res.Bugs {
			ks = append(ks, b.Kind.String()+"@"+b.Where)
		}
		slices.Sort(ks)
		return ks
	}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			if p.brute < 0 {
				t.Skip("too many schedules to run them all")
			}
			none := keys(t, p, sthread.NoReduction())
			dpor := keys(t, p)
			if !slices.Equal(none, dpor) {
				t.Errorf("DPOR found %q, every schedule %q", dpor, none)
			}
		})
	}
}
