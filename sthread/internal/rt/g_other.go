//go:build !amd64

package rt

import "runtime"

// getg returns 0 on architectures where sthread cannot read the goroutine
// descriptor: every goroutine then looks like the running checked thread,
// so goroutines not started with Go and goroutines left running by a
// transition timeout are not detected.
//
//go:norace
func getg() uintptr { return 0 }

// callers stores in pcs the return addresses of the frames above the caller
// of callers' caller, using runtime.Callers.
//
//go:noinline
//go:norace
func callers(pcs []uintptr) int {
	return runtime.Callers(3, pcs)
}
