// The Go exercises are programs of their own (each directory a package main
// of a student's, built by stdbg grade with its harness): this module keeps
// them out of stdbg's module, whose go build ./... they would break.
module exercises

go 1.26.8
