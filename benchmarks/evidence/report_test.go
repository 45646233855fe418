package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMeasureReports runs the -report table with a stand-in for stdbg
// that announces a bug, reports it a while later and minimises it for a
// while more: the table has the three times in that order.
func TestMeasureReports(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "stdbg")
	script := "#!/bin/sh\nsleep 0.2\necho 'stdbg: bug found (deadlock): x; minimising its schedule of 8 steps' >&2\n" +
		"sleep 0.3\necho '*** DEADLOCK DETECTED ***'\nsleep 0.3\necho 'Minimised:'\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	var out strings.Builder
	if err := measureReports(&out, fake, regexp.MustCompile(`^deadly-embrace\.c$`), time.Second, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	m := regexp.MustCompile(`\| deadly-embrace\.c \| ([0-9.]+) s \| ([0-9.]+) s \| ([0-9.]+) \| ([0-9.]+) s \|`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no row for deadly-embrace.c:\n%s", out.String())
	}
	if m[1] >= m[2] || m[2] >= m[4] {
		t.Errorf("found at %s s, reported at %s s, ended at %s s: want them in that order", m[1], m[2], m[4])
	}
	if !strings.Contains(out.String(), "First report / bug found over 1 programs") {
		t.Errorf("no summary:\n%s", out.String())
	}
}
