package executor

// SetIncrementalFrom sets the number of live threads from which c keeps
// its thread lists by an index (threads.go), for benchmarks that compare
// the two ways.
func SetIncrementalFrom(c *Executor, n int) { c.incrementalFrom = n }
