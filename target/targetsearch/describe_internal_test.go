package targetsearch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDescribeIgnoresStaleRaceLog checks that how a target died is not
// taken from a race detector's file that an earlier process of the same
// id left (it was killed before the file was removed): the failure said
// the last line of another run's report, a path of another clone among
// it. A file the process wrote is still said.
func TestDescribeIgnoresStaleRaceLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "reports.4242")
	if err := os.WriteFile(log, []byte("==================\nWARNING: DATA RACE\n      /elsewhere/sthread/internal/rt/thread.go:365 +0x255\n==================\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	written := time.Now().Add(-time.Hour)
	if err := os.Chtimes(log, written, written); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		started time.Time
		want    string
	}{
		{"written before the process started", written.Add(time.Minute), "ended, with nothing on its standard error"},
		{"written by the process", written.Add(-time.Minute), "ended: /elsewhere/sthread/internal/rt/thread.go:365 +0x255"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tail tailBuffer
			if got := tail.describe(nil, log, tc.started); got != tc.want {
				t.Errorf("describe = %q, want %q", got, tc.want)
			}
		})
	}
}
