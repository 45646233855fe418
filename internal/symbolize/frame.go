package symbolize

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// Frame is the symbolic description of one code address.
//
// Any of Module, Func and File may be empty when the information is not
// available: an address outside every module has only PC set, a module
// without symbols or debug information yields only PC and Module.
type Frame struct {
	PC     uint64 // the address as given to Symbolizer.Return or Symbolizer.Exact
	Module string // path of the module containing PC, "" if unknown
	Func   string // demangled function name, "" if unknown
	File   string // source file (absolute when DWARF has the comp dir), "" if unknown
	Line   int    // 1-based source line, 0 if unknown
}

// String formats the frame for humans:
//
//	worker (deadly-embrace.c:12)        function and source position
//	pthread_mutex_lock (libc.so.6)      function and module, no line information
//	0x401136 (prog.c:7)                 source position but no function name
//	0x7f3a5c2d1000 (libfoo.so)          module only
//	0x7f3a5c2d1000 (??)                 nothing known
//
// Only base names of files and modules are shown; the full paths are in
// the File and Module fields.
func (f Frame) String() string {
	name := f.Func
	if name == "" {
		name = fmt.Sprintf("%#x", f.PC)
	}
	switch {
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s (%s:%d)", name, filepath.Base(f.File), f.Line)
	case f.File != "":
		return fmt.Sprintf("%s (%s)", name, filepath.Base(f.File))
	case f.Module != "":
		return fmt.Sprintf("%s (%s)", name, filepath.Base(f.Module))
	case f.Func != "":
		return name
	default:
		return name + " (??)"
	}
}

// Short returns the most compact useful description of the frame: the base
// name of the source file and the line ("deadly-embrace.c:12") when known,
// otherwise the function name, otherwise the base name of the module,
// otherwise the hexadecimal PC.
func (f Frame) Short() string {
	switch {
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
	case f.Func != "":
		return f.Func
	case f.Module != "":
		return filepath.Base(f.Module)
	default:
		return fmt.Sprintf("%#x", f.PC)
	}
}

// systemFilePrefixes are directories whose sources belong to the system.
var systemFilePrefixes = []string{
	"/usr/include/",
	"/usr/lib/",
	"/usr/local/include/",
}

// annotationHeader is stdbg's own header for C programs: its functions
// call into stdbg for the user's code, which is where an annotation's step
// is shown.
const annotationHeader = "stdbg.h"

// tsanEntryPoints is the file of stdbg's entry points of the compiler's
// thread-sanitizer instrumentation, linked into the C programs stdbg
// builds with it: the access an entry point reports is the user's, made
// at the line that called it.
const tsanEntryPoints = "stdbg_tsan.c"

// systemFileParts are path components of compiler and C library headers.
var systemFileParts = []string{"bits/", "c++/"}

// systemModulePrefixes are base-name prefixes of system and runtime
// libraries.
var systemModulePrefixes = []string{
	"libc.so", "libc-",
	"libstdc++", "libc++", "libc++abi",
	"libgcc_s", "libgcc-",
	"ld-linux", "ld64.so", "ld-2.",
	"libm.so", "libm-",
	"libpthread.so", "libpthread-",
	"libdl.so", "libdl-",
	"librt.so", "librt-",
	"libunwind",
	"linux-vdso", "linux-gate",
	"libstdbg",
}

// IsSystem reports whether the frame belongs to the system or the runtime
// rather than to the user's code. That is the case when the module is the C
// or C++ runtime, the dynamic loader or stdbg's own preloaded library
// (libc, libstdc++, libgcc_s, ld-linux, libm, libpthread, libstdbg, ...),
// when the source file is under /usr/include, /usr/lib or /usr/local/include
// or is a bits/ or c++/ header, when no source file is known at all, and
// for Go code that is not the user's: the Go runtime and standard library
// (functions without a module path, such as runtime.gopark or sync.(*Mutex).Lock,
// in files under GOROOT) and stdbg's own runtime, package sthread and the
// packages under it.
func IsSystem(f Frame) bool {
	if isGoSystemFunc(f.Func) {
		return true
	}
	if f.Module != "" {
		base := filepath.Base(f.Module)
		for _, p := range systemModulePrefixes {
			if strings.HasPrefix(base, p) {
				return true
			}
		}
	}
	if f.File == "" {
		return true
	}
	file := filepath.ToSlash(f.File)
	if path.Base(file) == annotationHeader || path.Base(file) == tsanEntryPoints {
		return true
	}
	for _, p := range systemFilePrefixes {
		if strings.HasPrefix(file, p) {
			return true
		}
	}
	for _, p := range systemFileParts {
		if strings.HasPrefix(file, p) || strings.Contains(file, "/"+p) {
			return true
		}
	}
	return false
}

// isGoSystemFunc reports whether a Go function name belongs to stdbg's
// sthread package and its packages or to the Go runtime (runtime.,
// internal/...).
func isGoSystemFunc(name string) bool {
	return rtnames.IsRuntimeFunc(name) || strings.HasPrefix(name, "runtime.") ||
		strings.HasPrefix(name, "internal/") || strings.HasPrefix(name, "testing.")
}
