package ctarget_test

import (
	"reflect"
	"testing"

	"github.com/stdbg/stdbg/target/ctarget"
)

func TestPlanMemoryBuild(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		compiles [][]string
		link     []string
		err      bool
	}{
		{
			name:     "compile and link",
			args:     []string{"-g", "-I", "inc", "-o", "prog", "a.c", "b.c", "-lm", "-DX=1"},
			compiles: [][]string{{"-g", "-I", "inc", "-DX=1", "-fsanitize=thread", "-c", "-o", "o/0-a.o", "a.c"}, {"-g", "-I", "inc", "-DX=1", "-fsanitize=thread", "-c", "-o", "o/1-b.o", "b.c"}},
			link:     []string{"-g", "-I", "inc", "-o", "prog", "o/0-a.o", "o/1-b.o", "-lm", "-DX=1", "stub.o"},
		},
		{
			name:     "compile only",
			args:     []string{"-c", "-o", "a.o", "a.c"},
			compiles: [][]string{{"-c", "-o", "a.o", "a.c", "-fsanitize=thread"}},
		},
		{
			name: "link objects, without the sanitizer's runtime",
			args: []string{"-fsanitize=thread", "-o", "prog", "a.o", "-L", "lib", "-lfoo"},
			link: []string{"-o", "prog", "a.o", "-L", "lib", "-lfoo", "stub.o"},
		},
		{
			name:     "C++ with a standard",
			args:     []string{"-std=c++17", "-o", "bank", "bank.cpp", "-Wl,--as-needed"},
			compiles: [][]string{{"-std=c++17", "-fsanitize=thread", "-c", "-o", "o/0-bank.o", "bank.cpp"}},
			link:     []string{"-std=c++17", "-o", "bank", "o/0-bank.o", "-Wl,--as-needed", "stub.o"},
		},
		{name: "another sanitizer", args: []string{"-fsanitize=address", "a.c"}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ctarget.PlanMemoryBuild(tt.args, "o", "stub.o")
			if tt.err {
				if err == nil {
					t.Fatalf("no error, plan %+v", p)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Compiles, tt.compiles) {
				t.Errorf("compiles:\n got %q\nwant %q", p.Compiles, tt.compiles)
			}
			if !reflect.DeepEqual(p.Link, tt.link) {
				t.Errorf("link:\n got %q\nwant %q", p.Link, tt.link)
			}
		})
	}
}
