// Package ctarget is what stdbg needs of C and C++: it builds the
// interposition library from the sources embedded in the stdbg binary
// (csrc: libstdbg.c and its parts under csrc/rt/), compiles targets given
// as source files (with the compiler's memory instrumentation, with
// --memory), writes the decision logs the library replays without a
// checker, and starts a C program with the library preloaded (Start, over
// package targetproc, which runs and drives the processes of every kind of
// target).
package ctarget

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/internal/cachedir"
)

//go:embed csrc/libstdbg.c csrc/rt/*.c csrc/stdbg_wire.h csrc/stdbg_ops.h csrc/stdbg.h csrc/stdbg_tsan.c
var csrc embed.FS

// sources lists the embedded C sources by their path under csrc, in a
// fixed order: libstdbg.c and the parts it includes (rt/), the headers,
// the memory instrumentation's entry points.
func sources() []string {
	var names []string
	fs.WalkDir(csrc, "csrc", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "csrc/"))
		}
		return nil
	})
	return names // WalkDir walks in lexical order
}

// Header returns the text of stdbg.h, the annotation header for targets.
func Header() []byte {
	b, _ := csrc.ReadFile("csrc/stdbg.h")
	return b
}

// ErrNoCompiler is returned when no C compiler can be found.
var ErrNoCompiler = errors.New("no C compiler found: install gcc or clang, or set CC")

// Compiler returns the C (or, with cxx, C++) compiler to use: $CC/$CXX,
// else cc/gcc/clang (c++/g++/clang++) from PATH. The answer is kept for
// the process while $CC, $CXX and $PATH stay as they are.
func Compiler(cxx bool) (string, error) {
	key := compilerKey(cxx)
	if key != "" {
		compilers.Lock()
		c, ok := compilers.m[key]
		compilers.Unlock()
		if ok {
			return c.path, c.err
		}
	}
	path, err := lookCompiler(cxx)
	if key != "" {
		compilers.Lock()
		compilers.m[key] = compilerFound{path, err}
		compilers.Unlock()
	}
	return path, err
}

// compilers are the answers of Compiler in this process, by compilerKey: a
// command asks two or three times (a target's build key, the library's),
// and each look-up stats the compiler's name in every directory of PATH
// before the one that holds it.
var compilers = struct {
	sync.Mutex
	m map[string]compilerFound
}{m: map[string]compilerFound{}}

type compilerFound struct {
	path string
	err  error
}

// compilerKey names what Compiler's answer depends on: the language, $CC
// or $CXX and $PATH; "" (not kept) when PATH holds a relative directory,
// whose meaning moves with the working directory.
func compilerKey(cxx bool) string {
	path := os.Getenv("PATH")
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			return ""
		}
	}
	return fmt.Sprintf("%v\x00%s\x00%s\x00%s", cxx, os.Getenv("CC"), os.Getenv("CXX"), path)
}

// lookCompiler is Compiler's look-up.
func lookCompiler(cxx bool) (string, error) {
	env, names := "CC", []string{"cc", "gcc", "clang"}
	if cxx {
		env, names = "CXX", []string{"c++", "g++", "clang++"}
	}
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", env, v, err)
		}
		return p, nil
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	if cxx {
		return "", errors.New("no C++ compiler found: install g++ or clang++, or set CXX")
	}
	return "", ErrNoCompiler
}

// libFlags and stubFlags compile the library and the entry points of the
// memory instrumentation (stdbg_tsan.c). Both keep frame pointers: at a
// scheduling point the library finds the user's frame that called it by
// walking them (rt/state.c, note_sp), and the stack from there is part of
// the program's state; an entry point without a frame of its own between
// the user's code and the library hid that frame, so an atomic operation's
// state left out the caller's locals (a loop counter), and stateful search
// took different states for one.
var (
	libFlags  = []string{"-fPIC", "-O2", "-g", "-fno-omit-frame-pointer", "-pthread", "-fvisibility=hidden"}
	stubFlags = []string{"-fPIC", "-O2", "-g", "-fno-omit-frame-pointer"}
)

// sourceHash names the library's build: a hash of its compiler flags and
// of every embedded source. The sources are part of the binary, so the
// hash is computed once per binary: a find asks for it two or three times
// (the library's directory, each target's build key), and reading the
// 212 KB of sources for it, memory no command touches otherwise, was a
// millisecond of every command's start. The hash is kept in the cache
// under the identity of the running binary (rememberedHash).
var sourceHash = sync.OnceValue(func() string {
	id := binaryIdentity()
	if h, ok := rememberedHash(id); ok {
		return h
	}
	h := hashSources()
	rememberHash(id, h)
	return h
})

// hashSources computes sourceHash from the embedded sources.
func hashSources() string {
	h := sha256.New()
	h.Write([]byte(strings.Join(libFlags, " ") + "\x00" + strings.Join(stubFlags, " ") + "\x00"))
	// One buffer for every file: io.Copy would make one of 32 KB per
	// file (an embedded file has no WriteTo), most of the heap a short
	// command allocates, and the fresh pages' faults with it.
	buf := make([]byte, 16<<10)
	for _, n := range sources() {
		h.Write([]byte(n))
		f, err := csrc.Open("csrc/" + n)
		if err != nil {
			continue // listed by sources, so always there
		}
		io.CopyBuffer(h, f, buf)
		f.Close()
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// binaryIdentity names the running binary's file as it is now
// (fileIdentity); "" when the binary cannot be named: then nothing is
// remembered.
func binaryIdentity() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return fileIdentity(exe)
}

// fileIdentity names the file at path as it is now: its path, device,
// inode, size, and modification and change times (the change time moves
// with any write to the file, and no one can set it); "" if it cannot be
// looked at.
func fileIdentity(path string) string {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d %d %d %d.%d %d.%d", path, st.Dev, st.Ino, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// compilerIdentity names the compiler's file at path as it is now
// (fileIdentity, through the symbolic links that lead to it: cc ->
// /etc/alternatives/cc -> gcc-12): a compiler upgraded or switched in
// place is another compiler, and what it built is built again. A wrapper
// script is named by its own file, not by the compiler it runs.
func compilerIdentity(path string) string {
	return fileIdentity(path)
}

// hashMemo is the file under the cache directory that keeps the source
// hash of the binary of identity id.
func hashMemo(id string) (string, error) {
	base, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(base, "libkeys", hex.EncodeToString(sum[:12])), nil
}

// rememberedHash returns the source hash kept for the binary of identity
// id, if one is kept and well formed.
func rememberedHash(id string) (string, bool) {
	if id == "" {
		return "", false
	}
	path, err := hashMemo(id)
	if err != nil {
		return "", false
	}
	b, err := os.ReadFile(path)
	h := string(b)
	if err != nil || len(h) != 16 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", false
	}
	cachedir.Used(path)
	return h, true
}

// rememberHash keeps h as the source hash of the binary of identity id,
// if it can: a cache that cannot be written costs the next start the
// hash again, nothing else.
func rememberHash(id, h string) {
	if id == "" {
		return
	}
	path, err := hashMemo(id)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	atomicfile.Write(path, []byte(h))
}

// Library returns the path of the compiled interposition library,
// compiling it on first use into the cache (keyed by a hash of its sources
// and the compiler). It also leaves include/stdbg.h beside it.
func Library() (string, error) {
	cc, dir, lib, built, err := libraryEntry()
	if err != nil || built {
		return lib, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "include"), 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	src, err := os.MkdirTemp(dir, "src-")
	if err != nil {
		return "", fmt.Errorf("creating build directory: %w", err)
	}
	defer os.RemoveAll(src)
	for _, n := range sources() {
		b, _ := csrc.ReadFile("csrc/" + n)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, n)), 0o755); err != nil {
			return "", fmt.Errorf("writing library source: %w", err)
		}
		if err := os.WriteFile(filepath.Join(src, n), b, 0o644); err != nil {
			return "", fmt.Errorf("writing library source: %w", err)
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, "include", "stdbg.h"), Header()); err != nil {
		return "", err
	}
	// The entry points of the compiler's memory instrumentation, linked
	// into the programs stdbg builds (see BuildWith), built without it.
	stub := filepath.Join(src, memoryStub)
	// The compiler runs in the build directory and is given relative
	// paths: the assembler cannot read a line marker GCC writes for an asm
	// statement when the source's path holds a double quote (a cache
	// below such a directory), and the sources are removed after the build.
	cmd := exec.Command(cc, append(append([]string{"-c"}, stubFlags...), "-o", memoryStub, "stdbg_tsan.c")...)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling stdbg's memory instrumentation with %s: %v\n%s", cc, err, out)
	}
	if err := os.Rename(stub, filepath.Join(dir, memoryStub)); err != nil {
		return "", fmt.Errorf("installing %s: %w", memoryStub, err)
	}
	tmp := filepath.Join(src, "libstdbg.so")
	cmd = exec.Command(cc, append(append([]string{"-shared"}, libFlags...), "-o", "libstdbg.so", "libstdbg.c", "-ldl")...)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling the stdbg library with %s: %v\n%s", cc, err, out)
	}
	if err := os.Rename(tmp, lib); err != nil {
		return "", fmt.Errorf("installing %s: %w", lib, err)
	}
	return lib, nil
}

// libraryEntry finds the library's entry in the cache: the compiler, the
// entry's directory and the library's path in it, and whether it is built
// (then marked used).
func libraryEntry() (cc, dir, lib string, built bool, err error) {
	cc, err = Compiler(false)
	if err != nil {
		return "", "", "", false, err
	}
	base, err := cachedir.Dir()
	if err != nil {
		return "", "", "", false, err
	}
	// Named by the sources and by the compiler: its path and its file as
	// it is now (an upgraded or switched compiler builds the library again).
	sum := sha256.Sum256([]byte(cc + "\x00" + compilerIdentity(cc)))
	dir = filepath.Join(base, "lib-"+sourceHash()+"-"+hex.EncodeToString(sum[:4]))
	lib = filepath.Join(dir, "libstdbg.so")
	if _, err := os.Stat(lib); err == nil {
		cachedir.Used(dir)
		return cc, dir, lib, true, nil
	}
	return cc, dir, lib, false, nil
}

// memoryStub is the object file of stdbg_tsan.c in the library's cache
// directory.
const memoryStub = "stdbg_tsan.o"

// IncludeDir returns the directory holding stdbg.h (building the library
// cache entry if needed).
func IncludeDir() (string, error) {
	lib, err := Library()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(lib), "include"), nil
}
