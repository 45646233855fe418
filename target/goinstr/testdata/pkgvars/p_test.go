package pkgvars

import "testing"

var seen = map[string]bool{}

func TestBump(t *testing.T) {
	done := make(chan bool)
	go func() { Bump(); done <- true }()
	Bump()
	<-done
	seen["bumped"] = true
}
