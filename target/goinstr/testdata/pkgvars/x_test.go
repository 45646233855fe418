package pkgvars_test

import (
	"testing"

	"github.com/stdbg/stdbg/target/goinstr/testdata/pkgvars"
)

var calls int

func TestFromOutside(t *testing.T) {
	calls++
	pkgvars.Bump()
}
