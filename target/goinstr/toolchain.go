package goinstr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	goversion "go/version"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/stdbg/stdbg/internal/cachedir"
)

// Toolchains. The instrumenter reads the program's code with the parser
// and type checker of the Go that stdbg was built with (go/parser,
// go/types), which refuse a language newer than their own ("package
// requires newer Go version go1.27"), and the standard library's export
// data that the program's toolchain writes. A module whose toolchain (the
// one the go command selects for it: its go and toolchain lines, and
// GOTOOLCHAIN) has a newer language than stdbg's own Go is therefore read
// by a build of the instrumenter made with that toolchain, as the go
// command itself switches to the toolchain a module asks for: stdbg builds
// its instrumenter from the sources it carries (stdbg.Sources) with
// GOTOOLCHAIN set to that version, once (the executable is cached under
// stdbg's cache directory, named by the version and the sources), and
// hands it each request on its standard input. Everything else in stdbg
// (the search, the model, the runtime built into the program with the
// program's own toolchain) does not depend on the program's Go version.

// A ToolchainError says that a package needs a Go newer than the one stdbg
// was built with and that stdbg could not build its instrumenter with
// that Go; it names the command that installs a stdbg that can read it.
type ToolchainError struct {
	Dir     string // the package's directory
	Version string // the toolchain that builds it (go1.27.3)
	Err     error  // why the instrumenter could not be built or run
}

func (e *ToolchainError) Error() string {
	return fmt.Sprintf("%s is built with %s, newer than the %s stdbg was built with, and stdbg's instrumenter could not be built with it (%s): install stdbg with that Go: %s",
		e.Dir, e.Version, runtime.Version(), firstLine(e.Err.Error()), InstallCommand(e.Version))
}

func (e *ToolchainError) Unwrap() error { return e.Err }

// InstallCommand is the command that installs this stdbg, at its version,
// built with Go toolchain version (go1.27.3): go install of its module
// path at its version, or, for a stdbg built from a source tree, go
// install ./cmd/stdbg there.
func InstallCommand(version string) string {
	where := stdbgModule + "/cmd/stdbg@latest"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == stdbgModule {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			where = stdbgModule + "/cmd/stdbg@" + v
		} else {
			where = "./cmd/stdbg (in stdbg's source tree)"
		}
	}
	return "GOTOOLCHAIN=" + version + " go install " + where
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// serving is set in the instrumenter that a stdbg built with an older Go
// runs (Serve): it answers every request itself.
var serving bool

// newerToolchain returns the version of the go command's toolchain for
// the package in dir (go env GOVERSION there) when its language is newer
// than the Go stdbg was built with, and "" when stdbg reads the package
// itself.
func newerToolchain(dir string) (string, error) {
	if serving {
		return "", nil
	}
	self := goversion.Lang(runtime.Version())
	if self == "" {
		return "", nil // a development Go: the newest there is
	}
	vals, err := GoEnv(dir, "GOVERSION")
	if err != nil {
		return "", err
	}
	fields := strings.Fields(vals[0]) // "go1.27.3", or "go1.27.3 X:exp"
	if len(fields) == 0 {
		return "", fmt.Errorf("go env GOVERSION in %s: empty", dir)
	}
	version := fields[0]
	if lang := goversion.Lang(version); lang == "" || goversion.Compare(lang, self) <= 0 {
		return "", nil
	}
	return version, nil
}

// A request is what a stdbg built with an older Go asks its instrumenter.
type request struct {
	Op     string // "instrument", "state" or "wrapmain"
	Config Config // instrument
	Dir    string // state, wrapmain
	Tests  bool   // state
	Cache  string // wrapmain
}

// A response is the instrumenter's answer.
type response struct {
	Result  *Result
	Vars    []Var
	Overlay string
	Err     string
	Nothing bool // Err is ErrNothing
}

// Serve answers one request read from in, writing the response to out: the
// instrumenter that a stdbg built with an older Go than a program's runs
// (see toolchain.go). It is not meant to be called otherwise.
func Serve(in io.Reader, out io.Writer) error {
	serving = true
	var req request
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	var resp response
	var err error
	switch req.Op {
	case "instrument":
		resp.Result, err = Instrument(req.Config)
	case "state":
		resp.Vars, err = PackageState(req.Dir, req.Tests)
	case "wrapmain":
		resp.Overlay, err = WrapMain(req.Dir, req.Cache)
	default:
		err = fmt.Errorf("unknown request %q", req.Op)
	}
	if err != nil {
		resp.Err, resp.Nothing = err.Error(), errors.Is(err, ErrNothing)
	}
	return json.NewEncoder(out).Encode(resp)
}

// remote runs req in the instrumenter built with toolchain version, for
// the package in dir.
func remote(dir, version string, req request) (*response, error) {
	exe, err := instrumenter(version)
	if err != nil {
		return nil, &ToolchainError{Dir: dir, Version: version, Err: err}
	}
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	// In this process's directory, as the request's paths (a relative
	// dir among them: stdbg test ./pkg) are.
	cmd := exec.Command(exe)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, &ToolchainError{Dir: dir, Version: version, Err: fmt.Errorf("running %s: %v: %s", exe, err, strings.TrimSpace(stderr.String()))}
	}
	var resp response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, &ToolchainError{Dir: dir, Version: version, Err: fmt.Errorf("reading the answer of %s: %w", exe, err)}
	}
	if resp.Nothing {
		return nil, ErrNothing
	}
	if resp.Err != "" {
		return nil, errors.New(resp.Err)
	}
	return &resp, nil
}

var buildMu sync.Mutex // one build of an instrumenter at a time in this process

// instrumenter returns the instrumenter built with toolchain version,
// building it if it is not in the cache.
func instrumenter(version string) (string, error) {
	key, err := sourcesKey()
	if err != nil {
		return "", err
	}
	cache, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	exe := filepath.Join(cache, "goinstr", "instrumenter-"+version+"-"+key)
	if _, err := os.Stat(exe); err == nil {
		cachedir.Used(exe)
		return exe, nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	src, err := toolDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.tmp%d", exe, os.Getpid())
	defer os.Remove(tmp)
	cmd := exec.Command("go", "build", "-o", tmp, "./target/goinstr/internal/instrumenter")
	cmd.Dir = src
	// The toolchain asked for (the go command fetches it as it would for
	// the module), stdbg's own go.mod and go.sum, none of the user's
	// settings that change a build.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+version, "GOWORK=off", "GOFLAGS=-mod=readonly", "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, strings.TrimSpace(out.String()))
	}
	if err := os.Rename(tmp, exe); err != nil {
		return "", err
	}
	return exe, nil
}
