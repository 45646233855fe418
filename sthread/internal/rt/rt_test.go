package rt

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// The names the runtime finds itself by in stacks and in the executable's
// symbols are those of its functions and variables.
func TestOwnNames(t *testing.T) {
	run := runtime.FuncForPC(reflect.ValueOf((*Thread).run).Pointer()).Name()
	if run != trampolineName {
		t.Errorf("the trampoline is %s, looked for as %s", run, trampolineName)
	}
	if !rtnames.IsRuntimeFunc(run) {
		t.Errorf("%s is not taken as the runtime's", run)
	}
	if name := runtime.FuncForPC(reflect.ValueOf(runOutside).Pointer()).Name(); name != runOutsideName {
		t.Errorf("the bottom of goroutines started outside a check is %s, looked for as %s", name, runOutsideName)
	}
	if p := reflect.TypeOf(Thread{}).PkgPath() + "."; p != rtPrefix {
		t.Errorf("the package's names start with %s, looked for with %s", p, rtPrefix)
	}
}

// The sources of sthread and of the packages under it are the runtime's,
// not their tests or test data, nor other packages.
func TestIsSthreadFile(t *testing.T) {
	root := sthreadDir
	if !strings.HasSuffix(root, "/sthread/") {
		t.Fatalf("sthread's directory is %s", root)
	}
	tests := []struct {
		file string
		want bool
	}{
		{root + "chan.go", true},
		{root + "internal/rt/thread.go", true},
		{root + "sync/mutex.go", true},
		{root + "math/rand/v2/rand.go", true},
		{root + "check_test.go", false},
		{root + "time/time_test.go", false},
		{root + "testdata/stdbg/x.go", false},
		{strings.TrimSuffix(root, "sthread/") + "engine/search/dfs.go", false},
		{strings.TrimSuffix(root, "/") + "x/y.go", false},
	}
	for _, tt := range tests {
		if got := isSthreadFile(tt.file); got != tt.want {
			t.Errorf("isSthreadFile(%q) = %v, want %v", tt.file, got, tt.want)
		}
	}
}
