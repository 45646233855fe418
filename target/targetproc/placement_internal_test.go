package targetproc

import (
	"os/exec"
	"reflect"
	"testing"
	"time"
)

func TestPlacements(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cpus    []int
		workers int
		want    []Placement
	}{
		{"no CPUs", nil, 1, nil},
		{"one CPU", []int{3}, 1, []Placement{{3, 3}}},
		{"one worker, two CPUs", []int{0, 1}, 1, []Placement{{0, 1}}},
		{"two workers, two CPUs", []int{0, 1}, 2, []Placement{{0, 0}, {1, 1}}},
		{"two workers, four CPUs", []int{0, 1, 2, 3}, 2, []Placement{{0, 1}, {2, 3}}},
		{"three workers, four CPUs", []int{0, 1, 2, 3}, 3, []Placement{{0, 0}, {1, 1}, {2, 2}}},
		{"more workers than CPUs", []int{4, 6}, 3, []Placement{{4, 4}, {6, 6}, {4, 4}}},
		{"allowed CPUs with gaps", []int{2, 5, 7}, 1, []Placement{{2, 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := placements(tc.cpus, tc.workers); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("placements(%v, %d) = %v, want %v", tc.cpus, tc.workers, got, tc.want)
			}
		})
	}
}

func TestClaimCPUs(t *testing.T) {
	t.Setenv("STDBG_CACHE", t.TempDir())
	t.Setenv("STDBG_PIN", "1") // whatever else the machine runs
	all := allowedCPUs()
	a := ClaimCPUs(2)
	want := len(all)
	if want > 2 {
		want = 2
	}
	if len(a.CPUs()) != want {
		t.Fatalf("first claim holds %v of %v, want %d CPUs", a.CPUs(), all, want)
	}
	// A second claim, here or in another process, gets the others.
	b := ClaimCPUs(len(all))
	if len(b.CPUs()) != len(all)-want {
		t.Errorf("second claim holds %v, want the %d CPUs the first left", b.CPUs(), len(all)-want)
	}
	for _, x := range a.CPUs() {
		for _, y := range b.CPUs() {
			if x == y {
				t.Errorf("CPU %d claimed twice", x)
			}
		}
	}
	// With nothing left, the second search is left to the kernel.
	if len(b.CPUs()) > 0 && len(b.Place(1)) != 1 {
		t.Errorf("second claim: Place(1) = %v", b.Place(1))
	}
	a.Release()
	b.Release()
	c := ClaimCPUs(2)
	defer c.Release()
	if len(c.CPUs()) != want {
		t.Errorf("after release, a claim holds %v, want %d CPUs", c.CPUs(), want)
	}
}

func TestClaimCPUsOff(t *testing.T) {
	t.Setenv("STDBG_CACHE", t.TempDir())
	t.Setenv("STDBG_PIN", "0")
	c := ClaimCPUs(2)
	defer c.Release()
	if c.CPUs() != nil || c.Place(1) != nil {
		t.Errorf("with STDBG_PIN=0: CPUs %v, placements %v; want none", c.CPUs(), c.Place(1))
	}
}

// TestClaimCPUsBusy: beside as many busy programs as CPUs, a claim holds
// nothing (the kernel places the search better than a CPU shared with a
// busy program would), unless STDBG_PIN=1.
func TestClaimCPUsBusy(t *testing.T) {
	t.Setenv("STDBG_CACHE", t.TempDir())
	t.Setenv("STDBG_PIN", "")
	for range allowedCPUs() {
		hog := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			hog.Process.Kill()
			hog.Wait()
		}()
	}
	time.Sleep(50 * time.Millisecond) // the hogs run
	if !Busy(1) {
		t.Errorf("Busy(1) is false beside %d busy loops", len(allowedCPUs()))
	}
	c := ClaimCPUs(2)
	if c.CPUs() != nil || c.Place(1) != nil {
		t.Errorf("on a busy machine: CPUs %v, placements %v; want none", c.CPUs(), c.Place(1))
	}
	c.Release()
	t.Setenv("STDBG_PIN", "1")
	c = ClaimCPUs(2)
	defer c.Release()
	if len(c.CPUs()) == 0 {
		t.Errorf("with STDBG_PIN=1 on a busy machine: no CPUs claimed")
	}
}
