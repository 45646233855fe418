package dpor

import (
	"testing"

	"github.com/stdbg/stdbg/sthread"
)

// The programs as tests, for stdbg find -run (the README's benchmark of Go
// searches from the command line). Each is clean: Check passes.

func TestCheckLastZero3(t *testing.T)       { sthread.Check(t, LastZero(3)) }
func TestCheckReadersWriters2(t *testing.T) { sthread.Check(t, ReadersWriters(2)) }
func TestCheckCounter3(t *testing.T)        { sthread.Check(t, Counter(3)) }
func TestCheckProdCons1(t *testing.T)       { sthread.Check(t, ProdCons(1)) }
