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
	"reflect.MakeChan": "a channel made by reflection is not instrumented",
	"reflect.Select":   "a select made by reflection is not instrumented",
	"reflect.ChanOf":   "a channel made by reflection is not instrumented",
}

// uncheckedPkgs names packages any use of whose listed names runs unchecked.
var uncheckedPkgs = map[string]string{
	"sync/atomic": "runs without a scheduling point",
	"time":        "uses real time",
	"context":     "uses real time and goroutines",
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
		if _, ok := replacements[full]; ok {
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
		out = append(out, fmt.Sprintf("%s:%d: not instrumented: %s %s", rel(r.dir, r.tf.Name()), line, name, why))
	}
	sort.Strings(out)
	return out
}

// covered reports whether the name of package path is one whose use
// matters to the checker (types and functions that synchronise or wait).
func covered(path, name string) bool {
	switch path {
	case "sync/atomic":
		return true
	case "time":
		return name == "NewTimerFunc"
	case "context":
		switch name {
		case "AfterFunc", "WithTimeoutCause", "WithDeadlineCause", "WithoutCancel":
			return true
		}
	}
	return false
}
