// Command alternate runs several command lines in turn, N rounds, and
// prints for each the minimum and the median of its wall time and of its
// CPU time (user and system, of the command and of every process it
// waited for), then the date and the load average: the way to compare two
// builds on a shared machine, whose load moves between runs of one and
// runs of the other.
//
//	go run ./benchmarks/alternate -n 30 -- stdbg-old version -- stdbg-new version
//
// The command lines are separated by "--"; their output is discarded and
// a failing run (a non-zero exit: a bug found is one) is counted all the
// same and said on the standard error.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/stdbg/stdbg/internal/loadavg"
)

func main() {
	n := flag.Int("n", 10, "rounds")
	flag.Parse()
	var cmds [][]string
	for _, a := range flag.Args() {
		if a == "--" || len(cmds) == 0 {
			cmds = append(cmds, nil)
			if a == "--" {
				continue
			}
		}
		cmds[len(cmds)-1] = append(cmds[len(cmds)-1], a)
	}
	cmds = slices.DeleteFunc(cmds, func(c []string) bool { return len(c) == 0 })
	if *n < 1 || len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: alternate [-n rounds] -- command args... [-- command args...]")
		os.Exit(2)
	}
	wall := make([][]time.Duration, len(cmds))
	cpu := make([][]time.Duration, len(cmds))
	for range *n {
		for j, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			start := time.Now()
			err := cmd.Run()
			w := time.Since(start)
			if cmd.ProcessState == nil {
				fmt.Fprintf(os.Stderr, "alternate: %s: %v\n", strings.Join(c, " "), err)
				os.Exit(2)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "alternate: %s: %v\n", strings.Join(c, " "), err)
			}
			wall[j] = append(wall[j], w)
			cpu[j] = append(cpu[j], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 }
	for j, c := range cmds {
		slices.Sort(wall[j])
		slices.Sort(cpu[j])
		fmt.Printf("%s: wall min %.1f median %.1f ms; CPU min %.1f median %.1f ms\n",
			strings.Join(c, " "), ms(wall[j][0]), ms(wall[j][*n/2]), ms(cpu[j][0]), ms(cpu[j][*n/2]))
	}
	fmt.Printf("%s, load average %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), loadavg.Read(3))
}
