package opsheader

import (
	"os"
	"testing"
)

// TestHeaderUpToDate fails when syncmodel's kinds or APIs changed without
// regenerating the C header: the C library and the model would then
// disagree on the wire.
func TestHeaderUpToDate(t *testing.T) {
	got, err := os.ReadFile("../csrc/stdbg_ops.h")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != Text() {
		t.Fatal("target/ctarget/csrc/stdbg_ops.h is stale: run go run ./target/ctarget/internal/genops > target/ctarget/csrc/stdbg_ops.h")
	}
}
