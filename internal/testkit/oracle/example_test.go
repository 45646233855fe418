package oracle_test

import (
	"context"
	"fmt"

	"github.com/stdbg/stdbg/internal/testkit/oracle"
)

// Compare runs every schedule of a program and each strategy that claims
// completeness, and says where they disagree: here they agree on the
// deadlock of two goroutines that take two mutexes in opposite orders.
func ExampleCompare() {
	p, err := oracle.Parse(`lang go
obj m0 mutex
obj m1 mutex
obj wg0 waitgroup
thread 0
  wgadd wg0 1
  go 1
  lock m0
  lock m1
  unlock m1
  unlock m0
  wgwait wg0
thread 1
  lock m1
  lock m0
  unlock m0
  unlock m1
  wgdone wg0
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := oracle.Compare(context.Background(), p, oracle.DefaultLimits, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Reference.Keys())
	fmt.Println(len(res.Disagree), "disagreements")
	// Output:
	// [deadlock@T0@s3,T1@s8]
	// 0 disagreements
}

// Generate makes the program of a seed: the same seed, the same program.
func ExampleGenerate() {
	p := oracle.Generate(oracle.C, 7, oracle.GenOptions{MaxThreads: 2, MaxOps: 6})
	q := oracle.Generate(oracle.C, 7, oracle.GenOptions{MaxThreads: 2, MaxOps: 6})
	fmt.Println(p.String() == q.String(), len(p.Threads), p.Size() <= 6)
	// Output: true 2 true
}
