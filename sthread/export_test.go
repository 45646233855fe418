package sthread

// The package's tests check the executor's thread list against the model
// after every step of every check they run (executor.Options.CheckThreads).
func init() { checkThreads = true }
