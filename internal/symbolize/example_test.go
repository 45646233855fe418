package symbolize_test

import (
	"fmt"

	"github.com/stdbg/stdbg/internal/symbolize"
)

func ExampleFrame_String() {
	frames := []symbolize.Frame{
		{PC: 0x40113a, Module: "/tmp/deadly-embrace", Func: "worker", File: "/src/deadly-embrace.c", Line: 12},
		{PC: 0x7f3a5c2d1370, Module: "/lib/x86_64-linux-gnu/libc.so.6", Func: "pthread_mutex_lock"},
		{PC: 0x7f3a5c2d1000},
	}
	for _, f := range frames {
		fmt.Printf("%-32s %-20s system=%v\n", f, f.Short(), symbolize.IsSystem(f))
	}
	// Output:
	// worker (deadly-embrace.c:12)     deadly-embrace.c:12  system=false
	// pthread_mutex_lock (libc.so.6)   pthread_mutex_lock   system=true
	// 0x7f3a5c2d1000 (??)              0x7f3a5c2d1000       system=true
}
