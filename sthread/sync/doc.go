// Package sync is package sync of the standard library for programs that
// stdbg checks: Mutex, RWMutex, WaitGroup, Once, Cond and Map, with the
// standard library's names and methods, under a check (sthread.Check,
// or stdbg find) scheduling points whose semantics come from stdbg's model.
// Outside a check every method passes straight through to the standard
// library's, at the cost of one atomic load.
//
// A program written for stdbg uses them through package sthread, which
// re-exports the types; stdbg's instrumentation of plain Go (package
// goinstr) rewrites a use of sync.Mutex into one of this package's Mutex,
// under an import of its own, so that the program's names stay the
// standard library's. What this package does not mirror (sync.Pool,
// sync.OnceFunc, ...) is the standard library's.
package sync
