package ctarget

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/internal/cachedir"
)

// IsSource reports whether path names a C or C++ source file that stdbg
// compiles itself.
func IsSource(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".c", ".cc", ".cpp", ".cxx", ".c++":
		return true
	}
	return false
}

// IsCXX reports whether a source file is C++.
func IsCXX(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cc", ".cpp", ".cxx", ".c++":
		return true
	}
	return false
}

// Flags are the compiler flags stdbg wants: debug information, no
// optimisation (so every source line is where the trace says), threads.
var Flags = []string{"-g", "-O0", "-pthread"}

// CompileArgs returns the compiler and arguments for building src into
// out with stdbg's flags and stdbg.h on the include path, plus extra
// user arguments.
func CompileArgs(src, out string, extra []string) (string, []string, error) {
	cc, err := Compiler(IsCXX(src))
	if err != nil {
		return "", nil, err
	}
	inc, err := IncludeDir()
	if err != nil {
		return "", nil, err
	}
	args := append([]string{}, Flags...)
	args = append(args, "-I", inc, "-o", out, src)
	args = append(args, extra...)
	return cc, args, nil
}

// Build compiles a C or C++ source file into the cache and returns the
// executable's path. A previous build is reused when the source, the
// headers it included (from the compiler's dependency list) and the
// compiler (its path and its file: an upgraded compiler builds again) are
// unchanged. Memory accesses are not instrumented: see
// BuildWith.
func Build(src string) (string, error) {
	exe, _, err := BuildWith(src, BuildOptions{})
	return exe, err
}

// BuildOptions choose how BuildWith compiles.
type BuildOptions struct {
	// Memory compiles with the compiler's thread-sanitizer
	// instrumentation (-fsanitize=thread) and links stdbg's entry points
	// for it instead of the sanitizer's runtime: the program's loads and
	// stores of global variables and of the heap, and its atomic
	// operations, become scheduling points while several threads run.
	Memory bool
}

// MemoryLogEnv, in an instrumented program's environment, makes its plain
// loads and stores (not its atomics) no scheduling points: the library
// logs them and sends them with the thread's next operation
// (wire.Accesses), for the race detector. With no data race in the
// schedules of the operations, the order of plain accesses between
// operations changes nothing; and the first data race of a program shows
// in some schedule of its operations. A loop that only polls a few
// addresses still yields (syncmodel.APIMemoryPoll).
const MemoryLogEnv = "STDBG_MEM_LOG=1"

// MemoryFlags are the compiler flags of instrumented builds.
var MemoryFlags = []string{"-fsanitize=thread"}

// BuildWith is Build with options. When o.Memory is set but the compiler
// cannot instrument the program, it builds it without the instrumentation
// and note says why in one line.
func BuildWith(src string, o BuildOptions) (exe, note string, err error) {
	if o.Memory {
		exe, err := build(src, true)
		if err == nil {
			return exe, "", nil
		}
		var nm *noMemoryError
		if !errors.As(err, &nm) {
			return "", "", err
		}
		exe, err = build(src, false)
		return exe, nm.Error(), err
	}
	exe, err = build(src, false)
	return exe, "", err
}

// noMemoryError: the compiler refused the memory instrumentation.
type noMemoryError struct{ reason string }

func (e *noMemoryError) Error() string {
	return "memory accesses are not scheduling points: the compiler cannot instrument them (-fsanitize=thread): " + e.reason
}

// MemoryInstrumented tells whether exe was built with stdbg's memory
// instrumentation (BuildOptions.Memory, stdbg cc).
func MemoryInstrumented(exe string) bool {
	f, err := elf.Open(exe)
	if err != nil {
		return false
	}
	defer f.Close()
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "stdbg_memory_instrumented" {
			return true
		}
	}
	return false
}

func build(src string, memory bool) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("building %s: %w", src, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("building %s: %w", src, err)
	}
	// The key needs the compiler, not the library: CompileArgs (which
	// finds the library's include directory) only when compiling.
	cc, err := Compiler(IsCXX(abs))
	if err != nil {
		return "", err
	}
	base, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	flags := strings.Join(Flags, " ")
	if memory {
		flags += " " + strings.Join(MemoryFlags, " ")
	}
	key := sha256.Sum256([]byte(abs + "\x00" + cc + "\x00" + compilerIdentity(cc) + "\x00" + flags + "\x00" + sourceHash()))
	dir := filepath.Join(base, "targets", hex.EncodeToString(key[:8]))
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	exe := filepath.Join(dir, name)
	deps := exe + ".deps"
	if upToDate(exe, deps) {
		cachedir.Used(dir)
		return exe, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("building %s: %w", src, err)
	}
	tmpDir, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("building %s: %w", src, err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, name)
	depFile := filepath.Join(tmpDir, name+".d")
	if memory {
		if err := buildInstrumented(abs, tmp, depFile); err != nil {
			return "", err
		}
	} else {
		cc, args, err := CompileArgs(abs, tmp, []string{"-MD", "-MF", depFile})
		if err != nil {
			return "", err
		}
		cmd := exec.Command(cc, args...)
		cmd.Dir = filepath.Dir(abs)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("compiling %s: %v\n%s", src, err, strings.TrimSpace(out.String()))
		}
	}
	list, err := dependencyList(depFile)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, exe); err != nil {
		return "", fmt.Errorf("installing %s: %w", exe, err)
	}
	if err := atomicfile.Write(deps, []byte(hashList(list))); err != nil {
		return "", err
	}
	return exe, nil
}

// buildInstrumented compiles src with the memory instrumentation into an
// object, then links it with stdbg's entry points (and not the sanitizer's
// runtime) into exe.
func buildInstrumented(src, exe, depFile string) error {
	obj := exe + ".o"
	cc, args, err := CompileArgs(src, obj, append([]string{"-c", "-MD", "-MF", depFile}, MemoryFlags...))
	if err != nil {
		return err
	}
	cmd := exec.Command(cc, args...)
	cmd.Dir = filepath.Dir(src)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if strings.Contains(msg, "sanitize") {
			first, _, _ := strings.Cut(msg, "\n")
			return &noMemoryError{reason: first}
		}
		return fmt.Errorf("compiling %s: %v\n%s", src, err, msg)
	}
	stub, err := MemoryStub()
	if err != nil {
		return err
	}
	link := append(append([]string{}, Flags...), "-o", exe, obj, stub)
	cmd = exec.Command(cc, link...)
	cmd.Dir = filepath.Dir(src)
	out.Reset()
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &noMemoryError{reason: "linking: " + firstLine(strings.TrimSpace(out.String()))}
	}
	return nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// dependencyList reads a make-style dependency file.
func dependencyList(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading dependencies: %w", err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	_, rest, ok := strings.Cut(text, ":")
	if !ok {
		return nil, fmt.Errorf("reading dependencies: malformed %s", path)
	}
	var out []string
	for _, f := range strings.Fields(rest) {
		if f == "\\" {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// hashList renders "sha256 path" lines for files.
func hashList(files []string) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s %s\n", fileHash(f), f)
	}
	return b.String()
}

func fileHash(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "missing"
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func upToDate(exe, deps string) bool {
	if _, err := os.Stat(exe); err != nil {
		return false
	}
	f, err := os.Open(deps)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), " ")
		if !ok || fileHash(path) != sum {
			return false
		}
		n++
	}
	return sc.Err() == nil && n > 0
}
