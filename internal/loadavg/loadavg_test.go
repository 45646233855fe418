package loadavg

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		if got := Read(1); got != "?" {
			t.Errorf("Read(1) = %q without /proc/loadavg, want ?", got)
		}
		return
	}
	for _, tt := range []struct{ n, fields int }{{1, 1}, {3, 3}, {0, 0}, {99, 0}} {
		got := Read(tt.n)
		if tt.fields == 0 {
			if got != "?" {
				t.Errorf("Read(%d) = %q, want ?", tt.n, got)
			}
			continue
		}
		f := strings.Fields(got)
		if len(f) != tt.fields {
			t.Fatalf("Read(%d) = %q, want %d fields", tt.n, got, tt.fields)
		}
		for _, v := range f {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				t.Errorf("Read(%d) = %q: %q is not a load average", tt.n, got, v)
			}
		}
	}
}
