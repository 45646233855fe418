package wire

// currentCPU returns 1 + the CPU the calling thread runs on, 0 when it
// cannot tell (cpu_amd64.s).
func currentCPU() uint32
