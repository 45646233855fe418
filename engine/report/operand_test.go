package report

import (
	"testing"

	"github.com/stdbg/stdbg/model/wire"
)

func TestOperandCall(t *testing.T) {
	named := func(a uint64) (string, bool) { return "items[0]", a == 0x5555000010 }
	for _, c := range []struct {
		size int
		o    wire.Operand
		want string
		ok   bool
	}{
		{1, wire.Operand{Op: wire.OperandStore}, "__atomic_store(&flag, 0)", true},
		{4, wire.Operand{Op: wire.OperandStore, V: 42}, "__atomic_store(&flag, 42)", true},
		{4, wire.Operand{Op: wire.OperandStore, V: -1}, "__atomic_store(&flag, -1)", true},
		{4, wire.Operand{Op: wire.OperandAdd, V: 1}, "__atomic_fetch_add(&flag, 1)", true},
		{2, wire.Operand{Op: wire.OperandNand, V: 3}, "__atomic_fetch_nand(&flag, 3)", true},
		{4, wire.Operand{Op: wire.OperandExchange, V: 7}, "__atomic_exchange(&flag, 7)", true},
		{4, wire.Operand{Op: wire.OperandCAS, V: 0, W: 1}, "__atomic_compare_exchange(&flag, 0, 1)", true},
		// An address stored in a pointer-sized word.
		{8, wire.Operand{Op: wire.OperandStore, V: 0x7ffd1234abcd}, "__atomic_store(&flag, 0x7ffd1234abcd)", true},
		{8, wire.Operand{Op: wire.OperandCAS, V: 0x5555000010, W: 0x5555000020}, "__atomic_compare_exchange(&flag, &items[0], 0x5555000020)", true},
		{8, wire.Operand{Op: wire.OperandStore, V: 1 << 31}, "__atomic_store(&flag, 2147483648)", true},
		// Nothing reported, or an operation this build does not know:
		// the caller shows the access's size instead.
		{4, wire.Operand{}, "", false},
		{4, wire.Operand{Op: 99, V: 1}, "", false},
	} {
		got, ok := operandCall("flag", c.size, c.o, named)
		if got != c.want || ok != c.ok {
			t.Errorf("operandCall(%d bytes, %+v) = %q, %v; want %q, %v", c.size, c.o, got, ok, c.want, c.ok)
		}
	}
}
