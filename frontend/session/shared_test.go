package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// With ShareBuilds on, a Go package resolved again is built once, until
// one of its module's files changes; off, it is built each time.
func TestShareBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program four times")
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "main.go")
	for name, text := range map[string]string{
		"go.mod": "module example.com/shared\n\ngo 1.22\n",
		"main.go": `package main

import "sync"

func main() {
	var mu sync.Mutex
	done := make(chan bool)
	go func() { mu.Lock(); mu.Unlock(); done <- true }()
	mu.Lock()
	mu.Unlock()
	<-done
}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// built resolves the package and returns when its binary was written.
	built := func() time.Time {
		t.Helper()
		time.Sleep(20 * time.Millisecond) // a rebuild would show a later time
		tg, err := Resolve([]string{dir}, Build{})
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(tg.Binary)
		if err != nil {
			t.Fatal(err)
		}
		return st.ModTime()
	}
	ShareBuilds(true)
	defer ShareBuilds(false)
	first := built()
	if again := built(); !again.Equal(first) {
		t.Errorf("built again with its files unchanged: %v, then %v", first, again)
	}
	f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n// changed\n")
	f.Close()
	changed := built()
	if !changed.After(first) {
		t.Errorf("not built again after main.go changed: %v, then %v", first, changed)
	}
	ShareBuilds(false)
	if unshared := built(); !unshared.After(changed) {
		t.Errorf("not built again with ShareBuilds off: %v, then %v", changed, unshared)
	}
}

// The debugger's build is shared too (several replays under Delve of one
// package), apart from the search's build of the same package.
func TestShareDebugBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program three times")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module example.com/shareddebug\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"sync\"\n\nfunc main() {\n\tvar mu sync.Mutex\n\tmu.Lock()\n\tmu.Unlock()\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ShareBuilds(true)
	defer ShareBuilds(false)
	debugBuild := func() (string, time.Time) {
		t.Helper()
		time.Sleep(20 * time.Millisecond) // a rebuild would show a later time
		exe, err := BuildGoDebug(dir, false, false)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(exe)
		if err != nil {
			t.Fatal(err)
		}
		return exe, st.ModTime()
	}
	exe, first := debugBuild()
	if again, at := debugBuild(); again != exe || !at.Equal(first) {
		t.Errorf("the debugger's build made again with its files unchanged: %s at %v, then %s at %v", exe, first, again, at)
	}
	tg, err := Resolve([]string{dir}, Build{})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Binary == exe {
		t.Errorf("the search's build and the debugger's are one binary: %s", exe)
	}
}
