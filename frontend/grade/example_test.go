package grade_test

import (
	"fmt"

	"github.com/stdbg/stdbg/frontend/grade"
)

// An assignment as a teacher writes it: two checks of a C exercise.
func ExampleParse() {
	a, err := grade.Parse([]byte(`
name: a bounded buffer
language: c
submit: [buffer.c]
checks:
  - name: no item lost
    kind: no-bug
    bugs: [assertion]
    harness: [test_buffer.c]
    points: 5
  - name: never stuck
    kind: no-bug
    bugs: [deadlock]
    harness: [test_buffer.c]
    points: 5
    visibility: after_due_date
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range a.Checks {
		fmt.Printf("%s: %g points, %s\n", c.Name, c.Points, c.Visibility)
	}
	// Output:
	// no item lost: 5 points, visible
	// never stuck: 5 points, after_due_date
}
