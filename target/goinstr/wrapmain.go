package goinstr

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stdbg/stdbg/internal/atomicfile"
)

// WrapMain handles a program written with package sthread whose main does
// not call sthread.Run: it writes, under cache, a go command overlay in
// which main's body runs inside sthread.Run, and returns the overlay's path.
// It returns "" when dir's package is not such a program (not package main,
// no main, no import of sthread, or main already calls Run).
func WrapMain(dir, cache string) (string, error) {
	if v, err := newerToolchain(dir); err != nil {
		return "", err
	} else if v != "" {
		resp, err := remote(dir, v, request{Op: "wrapmain", Dir: dir, Cache: cache})
		if err != nil {
			return "", err
		}
		return resp.Overlay, nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil || f.Name.Name != "main" {
			continue
		}
		name := sthreadName(f)
		if name == "" {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != "main" || fd.Body == nil {
				continue
			}
			if callsRun(fd.Body, name) {
				return "", nil
			}
			tf := fset.File(fd.Pos())
			lb, rb := tf.Offset(fd.Body.Lbrace), tf.Offset(fd.Body.Rbrace)
			var b strings.Builder
			b.Write(src[:lb+1])
			b.WriteString(" " + name + ".Run(func() {")
			b.Write(src[lb+1 : rb])
			b.WriteString("});")
			b.Write(src[rb:])
			return writeOverlay(cache, path, b.String())
		}
	}
	return "", nil
}

// sthreadName returns the name under which f imports sthread, "" if it
// does not.
func sthreadName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == sthreadPath {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "sthread"
		}
	}
	return ""
}

// callsRun reports whether body calls name.Run.
func callsRun(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// writeOverlay writes text as the replacement of path and an overlay file
// naming it, under cache, and returns the overlay's path.
func writeOverlay(cache, path, text string) (string, error) {
	sum := sha256.Sum256([]byte(path + "\x00" + text))
	dir := filepath.Join(cache, "wrapmain", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Each file written under a name of its own and renamed into place:
	// another process (another find of the same program) may be reading
	// it, and writes the same.
	file := filepath.Join(dir, filepath.Base(path))
	if err := writeOnce(file, []byte(text)); err != nil {
		return "", err
	}
	ov, err := json.MarshalIndent(overlayJSON{Replace: map[string]string{path: file}}, "", "\t")
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := writeOnce(overlay, ov); err != nil {
		return "", err
	}
	return overlay, nil
}

// writeOnce writes data into path atomically unless path holds it
// already.
func writeOnce(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return atomicfile.Write(path, data)
}
