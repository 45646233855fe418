package goinstr

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// goEnvNames are the go command's settings stdbg reads before a build,
// asked of it together: each go command costs a tenth of a second of CPU
// in a Go target's start.
var goEnvNames = []string{"GOVERSION", "GOMOD", "GOWORK", "GOFLAGS", "CGO_ENABLED", "CC", "GOROOT", "GOARCH"}

// goEnvs holds the answers, by what decides them (goEnvKey): *goEnvOf.
var goEnvs sync.Map

// goEnvOf is go env's answer in one directory, once known; the callers
// that ask meanwhile wait for it.
type goEnvOf struct {
	mu   sync.Mutex
	vals map[string]string // nil until known
}

// GoEnv returns the values of the go command's settings names in dir, as
// go env prints them there. Those of goEnvNames are asked together, once
// for a directory, an environment and a state of the files that decide
// them (the go.mod and go.work files of dir and its parents, the go env
// -w file); others are asked each time.
func GoEnv(dir string, names ...string) ([]string, error) {
	for _, n := range names {
		if !slices.Contains(goEnvNames, n) {
			return goEnv(dir, names...)
		}
	}
	e, _ := goEnvs.LoadOrStore(goEnvKey(dir), &goEnvOf{})
	ge := e.(*goEnvOf)
	ge.mu.Lock()
	defer ge.mu.Unlock()
	if ge.vals == nil {
		vals, err := goEnv(dir, goEnvNames...)
		if err != nil {
			return nil, err
		}
		ge.vals = map[string]string{}
		for i, n := range goEnvNames {
			ge.vals[n] = vals[i]
		}
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ge.vals[n]
	}
	return out, nil
}

// goEnvKey names what go env's answer in dir depends on: the directory,
// the environment, and the name, size and time of every go.mod and
// go.work from dir up to the root and of the go env -w file.
func goEnvKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", abs)
	for _, kv := range os.Environ() {
		fmt.Fprintf(h, "%s\x00", kv)
	}
	stamp := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%s %d %d\x00", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	for d := abs; ; d = filepath.Dir(d) {
		stamp(filepath.Join(d, "go.mod"))
		stamp(filepath.Join(d, "go.work"))
		if filepath.Dir(d) == d {
			break
		}
	}
	if cfg, err := os.UserConfigDir(); err == nil {
		stamp(filepath.Join(cfg, "go", "env"))
	}
	if p := os.Getenv("GOENV"); p != "" {
		stamp(p)
	}
	return string(h.Sum(nil))
}

// goEnv runs go env names in dir.
func goEnv(dir string, names ...string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"env"}, names...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env in %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	vals := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(vals) != len(names) {
		return nil, fmt.Errorf("go env in %s: %d values for %d names", dir, len(vals), len(names))
	}
	return vals, nil
}
