package report

import (
	"fmt"

	"github.com/stdbg/stdbg/model/wire"
)

// operandNames are the builtins that perform each operation of an
// operand, as the instrumentation of a C program sees them (C11's
// atomic_fetch_add and C++'s fetch_add come to __atomic_fetch_add).
var operandNames = [...]string{
	wire.OperandStore:    "__atomic_store",
	wire.OperandExchange: "__atomic_exchange",
	wire.OperandAdd:      "__atomic_fetch_add",
	wire.OperandSub:      "__atomic_fetch_sub",
	wire.OperandAnd:      "__atomic_fetch_and",
	wire.OperandOr:       "__atomic_fetch_or",
	wire.OperandXor:      "__atomic_fetch_xor",
	wire.OperandNand:     "__atomic_fetch_nand",
	wire.OperandCAS:      "__atomic_compare_exchange",
}

// operandCall renders an atomic store or read-modify-write of size bytes
// at the object named obj with the value it stores or combines
// (__atomic_store(&flag, 1), __atomic_fetch_add(&n, 1)), a
// compare-and-swap with the value it expects and the one it stores
// (__atomic_compare_exchange(&lock, 0, 1)); false when the runtime
// reported no operand. A pointer-sized value that addr names is shown as
// that address (&items[1]).
func operandCall(obj string, size int, o wire.Operand, addr func(uint64) (string, bool)) (string, bool) {
	if o.Op == wire.OperandNone || int(o.Op) >= len(operandNames) {
		return "", false
	}
	name := operandNames[o.Op]
	if o.Op == wire.OperandCAS {
		return fmt.Sprintf("%s(&%s, %s, %s)", name, obj, operandValue(o.V, size, addr), operandValue(o.W, size, addr)), true
	}
	return fmt.Sprintf("%s(&%s, %s)", name, obj, operandValue(o.V, size, addr)), true
}

// operandValue renders a value of size bytes: in decimal, signed as the
// runtime sign-extends it; a wide one that does not fit in 32 bits (an
// address, most likely) as the object it points into when addr names
// one, else in hexadecimal.
func operandValue(v int64, size int, addr func(uint64) (string, bool)) string {
	if size >= 8 && (v >= 1<<32 || v < -(1<<32)) {
		if addr != nil {
			if n, ok := addr(uint64(v)); ok {
				return "&" + n
			}
		}
		return fmt.Sprintf("%#x", uint64(v))
	}
	return fmt.Sprint(v)
}
