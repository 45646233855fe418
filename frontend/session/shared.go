package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/stdbg/stdbg/target/goinstr"
)

// ShareBuilds makes the Go targets built in this process shared: a Go
// package resolved again with the same build settings and go environment
// (GOFLAGS, GOOS, CGO_ENABLED, ...), while none of the files of its module
// (its .go files, go.mod, go.sum, go.work) changed, is not instrumented,
// built and listed again. The command line builds each
// target once and leaves it off; the tests of a front end, which resolve
// the same example packages in one process again and again, turn it on
// (each build costs the go command's checks of every package and a link).
func ShareBuilds(on bool) {
	shared.Lock()
	defer shared.Unlock()
	shared.on = on
	shared.builds, shared.states = map[string]*sharedBuild{}, map[string]*sharedState{}
}

// shared holds the builds ShareBuilds shares.
var shared struct {
	sync.Mutex
	on     bool
	builds map[string]*sharedBuild
	states map[string]*sharedState
}

// sharedBuild is one build, made once for every caller that asks for it.
type sharedBuild struct {
	once  sync.Once
	built goBuilt
	err   error
}

// sharedState is one package's package-level variables, found once.
type sharedState struct {
	once sync.Once
	vars []goinstr.Var
	err  error
}

// buildShared is buildGo with build tags and a way to link (buildGoMode,
// not for a debugger), shared when ShareBuilds is on.
func buildShared(pkg string, test, race bool, link goLink, tags string) (goBuilt, error) {
	return buildSharedMode(pkg, test, race, link, tags)
}

// buildSharedMode is buildGoMode, shared when ShareBuilds is on: the
// debugger's build (linkDebug) too, which several replays under Delve of
// one package ask for again.
func buildSharedMode(pkg string, test, race bool, link goLink, tags string) (goBuilt, error) {
	build := func() (goBuilt, error) {
		return buildGoMode(pkg, test, race, link, tags)
	}
	how := fmt.Sprint(test, race, tags)
	if link != linkFull {
		how += " " + link.String()
	}
	key, ok := sharedKey(pkg, how)
	if !ok {
		return build()
	}
	shared.Lock()
	b := shared.builds[key]
	if b == nil {
		b = &sharedBuild{}
		shared.builds[key] = b
	}
	shared.Unlock()
	b.once.Do(func() { b.built, b.err = build() })
	// Each caller's own lists, which it may append to.
	built := b.built
	built.warnings, built.unmodelled = slices.Clone(built.warnings), slices.Clone(built.unmodelled)
	built.restored = slices.Clone(built.restored)
	return built, b.err
}

// packageState is goinstr.PackageState, shared when ShareBuilds is on.
func packageState(dir string, test bool) ([]goinstr.Var, error) {
	key, ok := sharedKey(dir, fmt.Sprint("state", test))
	if !ok {
		return goinstr.PackageState(dir, test)
	}
	shared.Lock()
	s := shared.states[key]
	if s == nil {
		s = &sharedState{}
		shared.states[key] = s
	}
	shared.Unlock()
	s.once.Do(func() { s.vars, s.err = goinstr.PackageState(dir, test) })
	return slices.Clone(s.vars), s.err
}

// sharedKey names a build of pkg with the settings how, and the state of
// the files of its module (name, size and modification time); ok is false
// when builds are not shared or the module cannot be read.
func sharedKey(pkg, how string) (key string, ok bool) {
	shared.Lock()
	on := shared.on
	shared.Unlock()
	if !on {
		return "", false
	}
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", false
	}
	dir := abs
	if strings.HasSuffix(dir, ".go") {
		dir = filepath.Dir(dir)
	}
	root := dir
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", false
		}
		root = parent
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", abs, how)
	// What the go command builds with, besides the files.
	for _, v := range buildEnv {
		fmt.Fprintf(h, "%s=%s\x00", v, os.Getenv(v))
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") && name != "go.mod" && name != "go.sum" && name != "go.work" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
