package goinstr

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWithLang checks the build constraint that raises a rewritten file's
// language version: and'ed into its //go:build line in place, made of its
// // +build lines (those go/build honours) when it has none, none when the
// file asks for Go 1.21 or later already.
func TestWithLang(t *testing.T) {
	const name = "/src/m/a.go"
	const prefix = "//go:build go1.21\n\n//line /src/m/a.go:1:1\n"
	tests := []struct {
		name, src, want string
	}{
		{"no constraint", "package a\n", prefix + "package a\n"},
		{"doc comment", "// Package a is a.\npackage a\n", prefix + "// Package a is a.\npackage a\n"},
		{"go:build line", "// Copyright\n\n//go:build linux || darwin\n\npackage a\n",
			"// Copyright\n\n//go:build (linux || darwin) && go1.21\n\npackage a\n"},
		{"go:build after a block comment", "/* x */\n//go:build linux\n\npackage a\n",
			"/* x */\n//go:build linux && go1.21\n\npackage a\n"},
		{"older version", "//go:build go1.18\n\npackage a\n", "//go:build go1.18 && go1.21\n\npackage a\n"},
		{"new enough", "//go:build go1.22 && linux\n\npackage a\n", "//go:build go1.22 && linux\n\npackage a\n"},
		{"plus build lines", "// +build linux darwin\n// +build amd64\n\npackage a\n",
			"//go:build (linux || darwin) && amd64 && go1.21\n\n//line /src/m/a.go:1:1\n//\n//\n\npackage a\n"},
		// go vet refuses // +build lines that do not match the //go:build
		// line (go test runs it): they become empty comments.
		{"go:build and plus build lines", "//go:build !windows\n// +build !windows\n\npackage a\n",
			"//go:build !windows && go1.21\n//\n\npackage a\n"},
		// No blank line after it: go/build ignores the line.
		{"plus build line in a doc comment", "// +build linux\npackage a\n", prefix + "// +build linux\npackage a\n"},
		{"plus build lines new enough", "// +build go1.21\n\npackage a\n", "// +build go1.21\n\npackage a\n"},
		// A //go:build line in a /* */ comment is no constraint.
		{"in a block comment", "/*\n//go:build linux\n*/\npackage a\n", prefix + "/*\n//go:build linux\n*/\npackage a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := withLang([]byte(tt.src), name)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	if _, err := withLang([]byte("//go:build a\n//go:build b\n\npackage a\n"), name); err == nil {
		t.Error("no error for two //go:build lines")
	}
}

// rangeProgram ranges over channels in every form goinstr rewrites, and
// prints what closures made in a loop see: under the loop variables of Go
// 1.21 and earlier all see the last value; from Go 1.22 each its own.
const rangeProgram = `package main

import (
	"fmt"
	"sync"
)

func fill(n int) chan int {
	ch := make(chan int, n)
	for i := 0; i < n; i++ {
		ch <- i
	}
	close(ch)
	return ch
}

type box struct{ v interface{} }

func main() {
	var mu sync.Mutex
	var fs []func() int
	for v := range fill(3) {
		fs = append(fs, func() int { mu.Lock(); defer mu.Unlock(); return v })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	n := 0
	for range fill(2) {
		n++
	}
	last := -1
	for last = range fill(4) {
	}
	var b box
	for b.v = range fill(2) {
		if b.v == 0 {
			continue
		}
	}
	m := map[string]int{}
	for m["k"] = range fill(2) {
	}
	var slot int
	ptr := func() *int { return &slot }
	for *ptr() = range fill(3) {
	}
	fmt.Println(n, last, b.v, m["k"], slot)
}
`

// mapCallLoop ranges into the element of a map whose key is a call: it
// keeps a range over a function's iterator once instrumented.
const mapCallLoop = `package main

import "fmt"

func key() string { return "k" }

func show() {
	ch := make(chan int, 2)
	ch <- 1
	ch <- 2
	close(ch)
	m := map[string]int{}
	for m[key()] = range ch {
	}
	fmt.Println(m)
}
`

// A range into a map element whose key is a call, below go 1.23, is named
// in a warning: once instrumented it needs go 1.23.
func TestRangeIntoMapWarns(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/r\n\ngo 1.22\n", "show.go": mapCallLoop,
		"main.go": "package main\n\nfunc main() { show() }\n"})
	res, err := Instrument(Config{Dir: dir, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "show.go:13: a range over a channel into a map element needs go 1.23") {
		t.Errorf("warnings: %s", w)
	}
}

// TestInstrumentKeepsLanguage instruments a program that ranges over
// channels in modules at several go versions and checks that the
// instrumented program compiles (sthread's generic calls in a module at
// go 1.16; no range over a function's iterator below go 1.23) and prints
// what the original prints, loop variables included.
func TestInstrumentKeepsLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	for _, v := range []string{"1.16", "1.21", "1.23"} {
		t.Run("go"+v, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"go.mod": "module example.com/r\n\ngo " + v + "\n", "main.go": rangeProgram}
			if v == "1.23" {
				files["show.go"] = mapCallLoop
				files["main.go"] = strings.Replace(rangeProgram, "fmt.Println(n,", "show()\n\tfmt.Println(n,", 1)
			}
			writeTree(t, dir, files)
			res, err := Instrument(Config{Dir: dir, Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if v == "1.23" && len(res.Warnings) > 0 {
				t.Errorf("warnings: %q", res.Warnings)
			}
			b, err := Workspace(dir, t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			run := func(env []string, args ...string) string {
				t.Helper()
				exe := filepath.Join(t.TempDir(), "prog")
				out, err := goCmd(t, dir, env, append(append([]string{"build", "-o", exe}, args...), ".")...)
				if err != nil {
					t.Fatalf("go build %v: %v\n%s", args, err, out)
				}
				var buf bytes.Buffer
				c := exec.Command(exe)
				c.Stdout, c.Stderr = &buf, &buf
				if err := c.Run(); err != nil {
					t.Fatalf("running %v: %v\n%s", args, err, buf.String())
				}
				return buf.String()
			}
			plain, instrumented := run(nil), run(b.Env, "-overlay="+res.Overlay)
			if plain != instrumented {
				t.Errorf("instrumented output %q, want %q", instrumented, plain)
			}
			shared := strings.HasPrefix(plain, "2 2 2 ")
			if old := v == "1.16" || v == "1.21"; shared != old {
				t.Errorf("go %s: closures saw %q", v, plain)
			}
		})
	}
}
