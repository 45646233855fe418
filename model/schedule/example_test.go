package schedule_test

import (
	"fmt"

	"github.com/stdbg/stdbg/model/schedule"
)

func ExampleParse() {
	s, err := schedule.Parse("Path = 1;1;2:1")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(s), s[2].Thread, s[2].Choice)
	fmt.Println(s)
	// Output:
	// 3 2 1
	// 1;1;2:1
}
