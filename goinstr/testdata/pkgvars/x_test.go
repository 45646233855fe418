package pkgvars_test

import (
	"testing"

	"github.com/stdbg/stdbg/goinstr/testdata/pkgvars"
)

var calls int

func TestFromOutside(t *testing.T) {
	calls++
	pkgvars.Bump()
}
