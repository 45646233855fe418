// Package goexamples holds Go programs with known concurrency bugs, and one
// correct program, written with package sthread. Each _test.go file holds a
// program and a test asserting what stdbg finds in it and that replaying
// the reported schedule reproduces it. Run them with
//
//	go test -v ./examples/go
//
// to see the reports. In a real test one would write sthread.Check(t, f),
// which fails the test with the report; see TestPipeline and
// TestTimeoutFixed.
package goexamples
