package goinstr

import (
	"fmt"
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

// unchecked names, per package path, the package-level names whose use the
// checker does not see, with why.
var unchecked = map[string]string{
	"sync.Pool":        "a pool's Get and Put are not scheduling points, nor is what the garbage collector takes from it",
	"reflect.MakeChan": "a channel made by reflection is not instrumented",
	"reflect.Select":   "a select made by reflection is not instrumented",
	"reflect.ChanOf":   "a channel made by reflection is not instrumented",
}

// uncheckedPkgs names packages any use of whose listed names runs unchecked
// (see covered).
var uncheckedPkgs = map[string]string{
	"net":                   "network I/O waits outside the scheduler",
	"net/http":              "network I/O waits outside the scheduler",
	"os/exec":               "another process runs outside the scheduler",
	"os/signal":             "signals arrive outside the scheduler",
	"syscall":               "a system call may wait outside the scheduler",
	"golang.org/x/sys/unix": "a system call may wait outside the scheduler",
	"sync/atomic":           "runs without a scheduling point",
	"time":                  "uses real time",
}

// uncovered lists the uses in r's file of names the rewriting does not
// cover, one warning per name and file.
func uncovered(r *fileRewriter) []string {
	seen := map[string]int{}
	ast.Inspect(r.file, func(n ast.Node) bool {
		s, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := s.X.(*ast.Ident)
		if !ok {
			return true
		}
		pn, ok := r.info.Uses[id].(*types.PkgName)
		if !ok {
			return true
		}
		path := pn.Imported().Path()
		full := path + "." + s.Sel.Name
		if _, ok := mirrored(path, s.Sel.Name); ok {
			return true
		}
		why, ok := unchecked[full]
		if !ok {
			if why, ok = uncheckedPkgs[path]; !ok || !covered(path, s.Sel.Name) {
				return true
			}
		}
		key := full + ": " + why
		if _, ok := seen[key]; !ok {
			seen[key] = r.line(s.Pos())
		}
		return true
	})
	var out []string
	for k, line := range seen {
		name, why, _ := strings.Cut(k, ": ")
		out = append(out, fmt.Sprintf("%s:%d: not instrumented: %s (%s)", rel(r.dir, r.tf.Name()), line, name, why))
	}
	sort.Strings(out)
	return out
}

// covered reports whether the name of package path is one whose use
// matters to the checker (types and functions that synchronise or wait).
func covered(path, name string) bool {
	switch path {
	case "sync/atomic", "syscall", "golang.org/x/sys/unix":
		return true
	case "time":
		return name == "NewTimerFunc"
	case "net":
		return strings.HasPrefix(name, "Dial") || strings.HasPrefix(name, "Listen") || name == "Pipe" || name == "FileConn"
	case "net/http":
		switch name {
		case "Get", "Post", "Head", "PostForm", "ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS", "Client", "DefaultClient", "Server":
			return true
		}
	case "os/exec":
		return name == "Command" || name == "CommandContext"
	case "os/signal":
		return name == "Notify" || name == "NotifyContext"
	}
	return false
}
