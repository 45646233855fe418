package rtnames_test

import (
	"slices"
	"testing"

	"github.com/stdbg/stdbg/rtnames"
)

func TestWithQuickRaceExit(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want string // the GORACE the program sees (the last one)
	}{
		{"none set", []string{"HOME=/h"}, "GORACE=atexit_sleep_ms=0"},
		{"the user's options kept", []string{"GORACE=halt_on_error=1"}, "GORACE=halt_on_error=1 atexit_sleep_ms=0"},
		{"the user's sleep kept", []string{"GORACE=atexit_sleep_ms=50"}, "GORACE=atexit_sleep_ms=50"},
		{"the last of two counts", []string{"GORACE=atexit_sleep_ms=50", "GORACE=log_path=x"}, "GORACE=log_path=x atexit_sleep_ms=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rtnames.WithQuickRaceExit(slices.Clone(tt.env))
			last := ""
			for _, kv := range got {
				if len(kv) > 7 && kv[:7] == "GORACE=" {
					last = kv
				}
			}
			if last != tt.want {
				t.Errorf("GORACE is %q, want %q", last, tt.want)
			}
		})
	}
}
