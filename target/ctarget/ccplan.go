package ctarget

import (
	"fmt"
	"path/filepath"
	"strings"
)

// CompilePlan is how a compiler command line is run with stdbg's memory
// instrumentation: every source is compiled to an object with the
// instrumentation, then the objects are linked with stdbg's entry points
// instead of the sanitizer's runtime (the compilers link that runtime
// whenever -fsanitize=thread is on the link line, so the two steps are
// apart).
type CompilePlan struct {
	// Compiles are the argument lists of the compile steps (without the
	// compiler's name), one per source.
	Compiles [][]string
	// Link is the argument list of the link step, nil when the command
	// only compiles (-c, -S, -E).
	Link []string
}

// valueFlags take their value as the next argument.
var valueFlags = map[string]bool{
	"-I": true, "-D": true, "-U": true, "-include": true, "-imacros": true, "-isystem": true, "-iquote": true,
	"-idirafter": true, "-x": true, "-MF": true, "-MT": true, "-MQ": true, "-L": true, "-l": true, "-Xlinker": true,
	"-o": true,
}

// linkOnly are flags (or their prefixes) that matter only to the linker.
func linkOnly(a string) bool {
	for _, p := range []string{"-l", "-L", "-Wl,", "-Xlinker", "-static", "-shared", "-rdynamic", "-pie", "-no-pie"} {
		if strings.HasPrefix(a, p) {
			return true
		}
	}
	return false
}

// PlanMemoryBuild turns a compiler command line (the arguments after the
// compiler's name) into the steps of an instrumented build. objDir is
// where the objects of a compile-and-link command are written; stub is
// stdbg's object with the entry points.
func PlanMemoryBuild(args []string, objDir, stub string) (*CompilePlan, error) {
	compileOnly := false
	for _, a := range args {
		switch a {
		case "-c", "-S", "-E", "-M", "-MM":
			compileOnly = true
		}
		if strings.HasPrefix(a, "-fsanitize=") && a != "-fsanitize=thread" {
			return nil, fmt.Errorf("%s: the memory instrumentation is -fsanitize=thread; it does not combine with other sanitizers", a)
		}
	}
	if compileOnly {
		return &CompilePlan{Compiles: [][]string{append(append([]string{}, args...), MemoryFlags...)}}, nil
	}
	// Split the sources from the rest, keeping each flag's value with it.
	var flags, sources []string
	var link []string
	objects := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if valueFlags[a] && i+1 < len(args) {
			v := args[i+1]
			i++
			link = append(link, a, v)
			if a != "-o" && !linkOnly(a) {
				flags = append(flags, a, v)
			}
			continue
		}
		if !strings.HasPrefix(a, "-") && IsSource(a) {
			obj := filepath.Join(objDir, fmt.Sprintf("%d-%s.o", len(sources), strings.TrimSuffix(filepath.Base(a), filepath.Ext(a))))
			sources = append(sources, a)
			objects[a] = obj
			link = append(link, obj)
			continue
		}
		link = append(link, a)
		if strings.HasPrefix(a, "-") && a != "-fsanitize=thread" && !linkOnly(a) {
			flags = append(flags, a)
		}
	}
	if len(sources) == 0 {
		// Objects compiled earlier (stdbg cc --memory -c): link them with
		// the entry points.
		return &CompilePlan{Link: append(withoutSanitizer(link), stub)}, nil
	}
	p := &CompilePlan{}
	for _, s := range sources {
		c := append(append([]string{}, flags...), MemoryFlags...)
		p.Compiles = append(p.Compiles, append(c, "-c", "-o", objects[s], s))
	}
	p.Link = append(withoutSanitizer(link), stub)
	return p, nil
}

func withoutSanitizer(args []string) []string {
	var out []string
	for _, a := range args {
		if a != "-fsanitize=thread" {
			out = append(out, a)
		}
	}
	return out
}

// MemoryStub returns the path of stdbg's object with the entry points of
// the memory instrumentation (building the library's cache entry if
// needed), for linking instrumented objects.
func MemoryStub() (string, error) {
	lib, err := Library()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(lib), memoryStub), nil
}
