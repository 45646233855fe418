package ctarget

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/internal/atomicfile"
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
// compiler are unchanged.
func Build(src string) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("building %s: %w", src, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("building %s: %w", src, err)
	}
	cc, _, err := CompileArgs(abs, "x", nil)
	if err != nil {
		return "", err
	}
	base, err := CacheDir()
	if err != nil {
		return "", err
	}
	key := sha256.Sum256([]byte(abs + "\x00" + cc + "\x00" + strings.Join(Flags, " ") + "\x00" + sourceHash()))
	dir := filepath.Join(base, "targets", hex.EncodeToString(key[:8]))
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	exe := filepath.Join(dir, name)
	deps := exe + ".deps"
	if upToDate(exe, deps) {
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
