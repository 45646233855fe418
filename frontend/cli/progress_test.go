package cli

import (
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/search"
)

// The progress line's estimate: the share explored and the time left, in
// two units at most.
func TestProgressLeft(t *testing.T) {
	tests := []struct {
		explored float64
		elapsed  time.Duration
		want     string
	}{
		{0, time.Second, ""},
		{1, time.Second, ""},
		{0.5, 10 * time.Second, "  ~50% explored, ~10s left"},
		{0.25, 30 * time.Second, "  ~25% explored, ~1m30s left"},
		{0.004, 40 * time.Second, "  ~0.4% explored, ~2h46m left"},
		{0.1, 20 * time.Minute, "  ~10% explored, ~3h left"},
		{1e-9, time.Minute, "  ~1e-07% explored, ~over 100 years left"},
	}
	for _, tt := range tests {
		got := left(search.Stats{Explored: tt.explored, Elapsed: tt.elapsed})
		if got != tt.want {
			t.Errorf("%v explored after %v: %q, want %q", tt.explored, tt.elapsed, got, tt.want)
		}
	}
	for d, want := range map[time.Duration]string{100 * time.Second: "1m40s", 64 * time.Second: "1m", 3 * 24 * time.Hour: "3 days"} {
		if got := roughDuration(d); got != want {
			t.Errorf("roughDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
