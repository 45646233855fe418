package session

import (
	"os"
	"path/filepath"
	"testing"
)

// A package written with sthread imports sthread or one of its packages
// (its mirrors of the standard library): it is built as it is; a package
// that imports neither is plain Go, to instrument.
func TestUsesSthread(t *testing.T) {
	tests := []struct {
		name, src string
		want      bool
	}{
		{"sthread", `package p; import "github.com/stdbg/stdbg/sthread"; var _ = sthread.Go`, true},
		{"a mirror only", `package p; import "github.com/stdbg/stdbg/sthread/sync/atomic"; var _ atomic.Int64`, true},
		{"plain Go", `package p; import "sync/atomic"; var _ atomic.Int64`, false},
		{"a package named like it", `package p; import "github.com/stdbg/stdbg/sthreadx"; var _ = sthreadx.F`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := usesSthread(dir); got != tt.want {
				t.Errorf("usesSthread = %v, want %v", got, tt.want)
			}
		})
	}
}
