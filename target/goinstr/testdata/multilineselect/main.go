// Command multilineselect has select statements whose cases span several
// lines: a receive assigned over lines, a send of a composite literal and
// of a function literal's result written over lines.
package main

import "fmt"

type msg struct {
	id   int
	text string
}

func main() {
	out := make(chan msg) // no receiver: the receive is the case ready
	in := make(chan int, 1)
	in <- 7
	select {
	case v,
		ok := <-in:
		fmt.Println("received", v, ok)
	case out <- msg{
		id:   1,
		text: "one", // a comment in the case
	}:
		fmt.Println("sent one")
	}
	out2 := make(chan msg, 1) // room for one: the send is the case ready
	select {
	case out2 <- msg{
		id: 2,
		text: func() string {
			s := "t"
			s += "wo"
			return s
		}(),
	}:
		fmt.Println("sent", (<-out2).text)
	case v := <-in:
		fmt.Println("unexpected", v)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-func() chan struct{} {
			return done
		}():
			fmt.Println("done")
		}
		close(in)
	}()
	close(done)
	_, ok := <-in
	fmt.Println("in closed", !ok)
}
