// Package plain is stdbg's zoo of concurrency bugs in plain Go: each
// directory below is a small program or test, written without any import of
// stdbg, that shows one real-world bug pattern (or its fix). stdbg find
// instruments them at build time:
//
//	stdbg find ./examples/go/plain/abba
//	STDBG_ZOO=1 stdbg find -run TestTransfer ./examples/go/plain/transfer
//
// The buggy tests skip themselves unless STDBG_ZOO is set: under a plain go
// test their bug would show up only by chance.
package plain
