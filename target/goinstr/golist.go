package goinstr

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// A Go target's start reads four things of the packages in its build:
// the files that key the instrumentation (sourceKey), the package-level
// variables (PackageState), the default GODEBUG of the test binary
// (defaultGodebug) and what loading the main module's packages needs
// (loadMain, load.go). Each is a go list, and each go command costs a tenth
// of a second of CPU or more: one `go list -deps` prints the lines of all
// four, each kind under its own mark, and the listing is kept for as long
// as what it depends on is unchanged (listingKey).

// Marks of the lines of a listing.
const (
	markKey     = 'K' // sourceKey's line of a package of a module
	markState   = 'S' // PackageState's line of a package of the main module
	markGodebug = 'G' // defaultGodebug's line of a main package
	markIgnored = 'I' // the files a main-module package leaves out (for the stamp)
)

// listTemplate prints a line of each kind for every package that has one.
var listTemplate = "{{if .Module}}{{if .Module.Main}}" +
	"K{{.ImportPath}}|{{.Module.GoVersion}}|{{.Dir}}|{{join .GoFiles \"|\"}}|{{join .CgoFiles \"|\"}}|{{join .TestGoFiles \"|\"}}|{{join .XTestGoFiles \"|\"}}|{{join .SFiles \"|\"}}\n" +
	"S{{.ImportPath}}|{{.DepOnly}}|{{.Dir}}|{{join .GoFiles \"|\"}}|{{join .CgoFiles \"|\"}}|{{join .TestGoFiles \"|\"}}|{{join .XTestGoFiles \"|\"}}\n" +
	"I{{.Dir}}|{{join .IgnoredGoFiles \"|\"}}|{{join .IgnoredOtherFiles \"|\"}}\n" +
	"{{else}}" +
	"Kext|{{.ImportPath}}|{{.Module.Path}}|{{.Module.Version}}|{{.Module.Dir}}|{{with .Module.Replace}}{{if not .Version}}local{{end}}{{end}}|{{.Dir}}|{{join .EmbedFiles \"\\t\"}}|{{join .GoFiles \"|\"}}|{{join .CgoFiles \"|\"}}|{{join .SFiles \"|\"}}\n" +
	"{{end}}{{end}}" +
	"{{if eq .Name \"main\"}}G{{.ImportPath}}|{{.Name}}|{{.DefaultGODEBUG}}\n{{end}}" +
	loadTemplate

// listing is one go list of a package's build.
type listing struct {
	mu    sync.Mutex
	lines map[byte][]string // by mark; nil until listed
	stamp string            // what the lines depend on, as they were listed
}

// listings are kept by directory, tests, tags and go env's key: *listing.
var listings sync.Map

// listed returns the lines of the given mark of the go list of the package
// in dir (its tests with tests, built with tags), from one go command for
// the three readers of a Go target's start. A listing is listed again when
// the go.mod, go.sum and go.work files, the environment, or a directory or
// file of a main-module or locally replaced package it names changed.
func listed(dir string, tests bool, tags string, mark byte) ([]string, error) {
	key := fmt.Sprintf("%s\x00%v\x00%s", goEnvKey(dir), tests, tags)
	v, _ := listings.LoadOrStore(key, &listing{})
	l := v.(*listing)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines == nil || listStamp(dir, l.lines) != l.stamp {
		lines, err := goListAll(dir, tests, tags)
		if err != nil {
			l.lines = nil
			return nil, err
		}
		l.lines, l.stamp = lines, listStamp(dir, lines)
	}
	return l.lines[mark], nil
}

// goLists counts the go lists goListAll ran.
var goLists atomic.Int64

// goListAll runs the go list of the package in dir and sorts its lines by
// mark (the mark removed).
func goListAll(dir string, tests bool, tags string) (map[byte][]string, error) {
	goLists.Add(1)
	args := []string{"list", "-deps", "-f", listTemplate}
	if tests {
		args = append(args, "-test")
	}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the packages of %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	lines := map[byte][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		lines[line[0]] = append(lines[line[0]], line[1:])
	}
	return lines, nil
}

// listStamp names the state of what a listing's lines depend on beyond go
// env's key: the go.sum files from dir up, and the name, size and time of
// the directory and every file of each main-module package and locally
// replaced package they name, those its build constraints leave out
// included (a file added, removed or edited changes it; the module
// cache's files are named by their version).
func listStamp(dir string, lines map[byte][]string) string {
	h := sha256.New()
	stamp := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "%s %d %d\x00", p, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(h, "%s -\x00", p)
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		for d := abs; ; d = filepath.Dir(d) {
			stamp(filepath.Join(d, "go.sum"))
			stamp(filepath.Join(d, "go.work.sum"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, line := range lines[markIgnored] {
		parts := strings.Split(line, "|")
		for _, f := range parts[1:] {
			if f != "" {
				stamp(filepath.Join(parts[0], f))
			}
		}
	}
	for _, line := range lines[markKey] {
		parts := strings.Split(line, "|")
		var pkgDir string
		var files []string
		switch {
		case parts[0] == "ext" && len(parts) >= 9 && (parts[5] == "local" || parts[3] == ""):
			pkgDir, files = parts[6], parts[8:]
		case parts[0] != "ext" && len(parts) >= 3:
			pkgDir, files = parts[2], parts[3:]
		default:
			continue
		}
		stamp(pkgDir)
		for _, f := range files {
			if f != "" && !filepath.IsAbs(f) {
				stamp(filepath.Join(pkgDir, f))
			}
		}
	}
	return string(h.Sum(nil))
}
