package grade

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, stat string
		pgid       int
		cpu        time.Duration
		ok         bool
	}{
		{"plain", "42 (prog) S 1 40 40 0 -1 4194560 10 0 0 0 150 25 3 2 20 0 1 0", 40, 180 * clockTick, true},
		{"name with spaces and parentheses", "42 (a) b (c)) R 1 77 77 0 -1 0 0 0 0 0 1 2 3 4 20 0", 77, 10 * clockTick, true},
		{"cut short", "42 (prog) S 1 40", 0, 0, false},
		{"no name", "42 prog S", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgid, cpu, ok := parseStat([]byte(tt.stat))
			if pgid != tt.pgid || cpu != tt.cpu || ok != tt.ok {
				t.Errorf("parseStat = %d, %s, %v; want %d, %s, %v", pgid, cpu, ok, tt.pgid, tt.cpu, tt.ok)
			}
		})
	}
	// This process's own /proc entry parses.
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	if _, _, ok := parseStat(b); !ok {
		t.Errorf("/proc/self/stat does not parse: %s", b)
	}
}

func TestIdleWall(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		name string
		cpu  []time.Duration // the check's CPU time in all at the end of each second
		want time.Duration   // the idle time after them
	}{
		{"a search on an idle machine", []time.Duration{s, 2 * s, 3 * s}, 0},
		// Two CPUs shared by forty busy processes: a twentieth of one.
		{"a search at load 40", []time.Duration{50e6, 100e6, 150e6, 200e6}, 0},
		{"a program that blocks", []time.Duration{3e6, 5e6, 6e6, 8e6}, 4 * s},
		{"a search, then a block", []time.Duration{s, 2 * s, 2*s + 1e6, 2*s + 2e6}, 2 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w idleWall
			var got time.Duration
			for _, c := range tc.cpu {
				got = w.add(c, s)
			}
			if got != tc.want {
				t.Errorf("idle %v, want %v", got, tc.want)
			}
		})
	}
}

// The meter counts the CPU time of a process this one started in a group
// of its own while it runs, not only once it has been waited for: a Go
// target's search inside the target is such a process, beside the
// session's first one, whose group is the one the meter knows.
func TestMeterCountsChildGroups(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip(err)
	}
	m := newCPUMeter()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Until the child has used a fifth of a second (however busy the
	// machine, within a minute), polling rarely enough that this
	// process's own CPU time stays well below it.
	var child time.Duration
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if _, c, ok := parseStat(b); ok {
			child = c
		}
		if child >= 200*time.Millisecond {
			break
		}
	}
	if child < 200*time.Millisecond {
		t.Skipf("the child used %v of CPU in a minute", child)
	}
	if used := m.used(); used < child {
		t.Errorf("the meter counts %v while the child in a group of its own has used %v", used, child)
	}
}
