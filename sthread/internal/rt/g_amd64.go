package rt

// getg returns the address of the calling goroutine's runtime descriptor,
// which identifies the goroutine as long as it lives. Go offers no goroutine
// identity; a checker must tell its threads apart from goroutines it does
// not control, so it reads the descriptor the Go runtime keeps in
// thread-local storage on amd64.
//
//go:norace
func getg() uintptr

// fpcallers stores in pcs the return addresses of the calling goroutine's
// frames, from the caller's caller up, by following the frame pointers
// (which the Go toolchain maintains on amd64, and which Go's execution
// tracer walks the same way). It returns the number stored. It is two
// orders of magnitude cheaper than runtime.Callers, which decodes the
// unwinding tables of every frame.
//
//go:noescape
//go:norace
func fpcallers(pcs []uintptr) int

// callers stores in pcs the return addresses of the frames above the caller
// of callers' caller, physical frames only: the first is where the caller's
// caller was called.
//
//go:noinline
//go:norace
func callers(pcs []uintptr) int {
	return fpcallers(pcs)
}
