// Package debug is package runtime/debug of the standard library for
// programs that stdbg checks: Stack and PrintStack print the calling
// goroutine's stack as the program sees it, without the frames of stdbg's
// runtime (the function that runs a goroutine of the program, the
// trampoline of a checked goroutine), as sthread/runtime's Caller and
// Callers leave them out; the line that says which go statement created
// the goroutine names the program's. Below the body of a test, the stack
// goes on as package testing called the test function. stdbg's
// instrumentation of plain Go (package goinstr) rewrites runtime/debug's
// Stack and PrintStack into this package's; every other name of this
// package is the standard library's own.
package debug

import (
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/stdbg/stdbg/sthread/internal/rt"
)

// Stack is debug.Stack: a formatted stack trace of the calling goroutine,
// as the program sees it (the frames of stdbg's runtime left out).
//
//go:norace
func Stack() []byte { return rt.UserStack(debug.Stack(), nil) }

// PrintStack is debug.PrintStack: it prints the stack trace that Stack
// returns to standard error, the frame of PrintStack as the standard
// library's.
//
//go:norace
func PrintStack() {
	os.Stderr.Write(rt.UserStack(debug.Stack(), map[string]string{printStack: stdPrintStack()}))
}

// printStack is the name of this package's PrintStack, as a traceback
// spells it.
const printStack = "github.com/stdbg/stdbg/sthread/runtime/debug.PrintStack"

// stdPrintStack is the frame of the standard library's PrintStack, as it
// shows in the stack it prints: its name, and the line after the one where
// it begins (its body is one line, its call of Stack).
//
//go:norace
func stdPrintStack() string {
	fn := runtime.FuncForPC(reflect.ValueOf(debug.PrintStack).Pointer())
	if fn == nil {
		return "runtime/debug.PrintStack()\n"
	}
	file, line := fn.FileLine(fn.Entry())
	return "runtime/debug.PrintStack()\n\t" + file + ":" + strconv.Itoa(line+1) + "\n"
}

// The rest of runtime/debug, the standard library's own.

// SetGCPercent is debug.SetGCPercent.
func SetGCPercent(percent int) int { return debug.SetGCPercent(percent) }

// FreeOSMemory is debug.FreeOSMemory.
func FreeOSMemory() { debug.FreeOSMemory() }

// ReadGCStats is debug.ReadGCStats.
func ReadGCStats(stats *GCStats) { debug.ReadGCStats(stats) }

// SetMaxStack is debug.SetMaxStack.
func SetMaxStack(bytes int) int { return debug.SetMaxStack(bytes) }

// SetMaxThreads is debug.SetMaxThreads.
func SetMaxThreads(threads int) int { return debug.SetMaxThreads(threads) }

// SetPanicOnFault is debug.SetPanicOnFault.
func SetPanicOnFault(enabled bool) bool { return debug.SetPanicOnFault(enabled) }

// SetMemoryLimit is debug.SetMemoryLimit.
func SetMemoryLimit(limit int64) int64 { return debug.SetMemoryLimit(limit) }

// SetTraceback is debug.SetTraceback.
func SetTraceback(level string) { debug.SetTraceback(level) }

// SetCrashOutput is debug.SetCrashOutput.
func SetCrashOutput(f *os.File, opts CrashOptions) error { return debug.SetCrashOutput(f, opts) }

// WriteHeapDump is debug.WriteHeapDump.
func WriteHeapDump(fd uintptr) { debug.WriteHeapDump(fd) }

// ReadBuildInfo is debug.ReadBuildInfo.
func ReadBuildInfo() (info *BuildInfo, ok bool) { return debug.ReadBuildInfo() }

// ParseBuildInfo is debug.ParseBuildInfo.
func ParseBuildInfo(data string) (bi *BuildInfo, err error) { return debug.ParseBuildInfo(data) }

// The standard library's types.
type (
	// BuildInfo is debug.BuildInfo.
	BuildInfo = debug.BuildInfo
	// BuildSetting is debug.BuildSetting.
	BuildSetting = debug.BuildSetting
	// Module is debug.Module.
	Module = debug.Module
	// GCStats is debug.GCStats.
	GCStats = debug.GCStats
	// CrashOptions is debug.CrashOptions.
	CrashOptions = debug.CrashOptions
)
