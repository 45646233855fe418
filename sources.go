// Package stdbg carries the Go sources that stdbg adds to the builds it
// makes of Go targets, so that an installed stdbg binary needs no source
// tree: package sthread and every package of this module it imports (the
// runtime that instrumented code calls, built with the program), and
// package goinstr with the command that runs it (the instrumenter, which
// stdbg builds again with the program's own Go when that Go is newer than
// the one stdbg was built with).
//
// Package goinstr writes these files once into stdbg's cache, in a
// directory named by their content, and builds from there
// (goinstr.SourceDir).
package stdbg

import "embed"

// Sources holds this module's go.mod and go.sum, this file, and the files
// of the packages listed below (tests included: goinstr leaves them out
// when it writes the sources). TestSourcesComplete in package goinstr
// fails when a package that sthread or the instrumenter imports is
// missing here.
//
//go:embed go.mod go.sum sources.go
//go:embed engine/corpus/*.go engine/executor/*.go engine/hunt/*.go internal/atomicfile/*.go internal/hashmix/*.go
//go:embed internal/targettmp/*.go internal/procgroup/*.go internal/lazyre/*.go internal/cachedir/*.go engine/ltl/*.go engine/report/*.go internal/rtnames/*.go model/schedule/*.go engine/search/*.go
//go:embed internal/symbolize/*.go model/syncmodel/*.go target/targetsearch/*.go model/wire/*.go model/wire/*.s
//go:embed sthread/*.go sthread/context/*.go sthread/internal/rt/*.go sthread/internal/rt/*.s
//go:embed sthread/lang/*.go sthread/math/rand/*.go sthread/math/rand/v2/*.go sthread/runtime/*.go sthread/runtime/debug/*.go
//go:embed sthread/sync/*.go sthread/sync/atomic/*.go sthread/testing/synctest/*.go sthread/time/*.go
//go:embed target/goinstr/*.go target/goinstr/internal/instrumenter/*.go
var Sources embed.FS
