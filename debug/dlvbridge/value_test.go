package dlvbridge

import (
	"reflect"
	"testing"
)

// TestVariableString checks the one-line text of values as Delve sends
// them: what an editor shows in its variables view.
func TestVariableString(t *testing.T) {
	num := func(name, typ, val string) Variable {
		return Variable{Name: name, Type: typ, Kind: reflect.Int, Value: val}
	}
	str := Variable{Name: "s", Type: "string", Kind: reflect.String, Value: "a\"b", Len: 3}
	tests := []struct {
		name string
		v    Variable
		want string
	}{
		{"int", num("n", "int", "42"), "42"},
		{"bool", Variable{Type: "bool", Kind: reflect.Bool, Value: "true"}, "true"},
		{"string", str, `"a\"b"`},
		{"string cut", Variable{Type: "string", Kind: reflect.String, Value: "abc", Len: 10}, `"abc"...+7 more`},
		{"struct", Variable{Type: "main.T", Kind: reflect.Struct, Len: 2, Children: []Variable{num("n", "int", "1"), str}},
			`main.T {n: 1, s: "a\"b"}`},
		{"struct not read", Variable{Type: "main.T", Kind: reflect.Struct, Len: 2}, "main.T {...}"},
		{"slice", Variable{Type: "[]int", Kind: reflect.Slice, Len: 3, Cap: 4, Children: []Variable{num("", "int", "1"), num("", "int", "2"), num("", "int", "3")}},
			"[]int len: 3, cap: 4, [1,2,3]"},
		{"slice cut", Variable{Type: "[]int", Kind: reflect.Slice, Len: 100, Cap: 100, Children: []Variable{num("", "int", "7")}},
			"[]int len: 100, cap: 100, [7,...+99 more]"},
		{"array", Variable{Type: "[2]int", Kind: reflect.Array, Len: 2, Children: []Variable{num("", "int", "1"), num("", "int", "2")}},
			"[2]int [1,2]"},
		{"map", Variable{Type: "map[string]int", Kind: reflect.Map, Len: 1, Children: []Variable{str, num("", "int", "5")}},
			`map[string]int ["a\"b": 5]`},
		{"nil pointer", Variable{Type: "*main.T", Kind: reflect.Pointer, Children: []Variable{{Type: "main.T", Kind: reflect.Invalid}}}, "nil"},
		{"pointer", Variable{Type: "*int", Kind: reflect.Pointer, Children: []Variable{{Addr: 0xc000012345, Type: "int", Kind: reflect.Int, Value: "3"}}},
			"*3"},
		{"pointer to struct", Variable{Type: "*main.T", Kind: reflect.Pointer, Children: []Variable{{Addr: 0xc000012345, Type: "main.T", Kind: reflect.Struct, Len: 1, Children: []Variable{num("n", "int", "1")}}}},
			"*main.T {n: 1}"},
		{"error", Variable{Type: "error", Kind: reflect.Interface, Children: []Variable{{Addr: 0xc0000a0000, Type: "*errors.errorString", Kind: reflect.Pointer,
			Children: []Variable{{Addr: 0xc0000a0000, Type: "errors.errorString", Kind: reflect.Struct, Len: 1, Children: []Variable{{Name: "s", Type: "string", Kind: reflect.String, Value: "boom", Len: 4}}}}}}},
			`error(*errors.errorString) *errors.errorString {s: "boom"}`},
		{"nil error", Variable{Type: "error", Kind: reflect.Interface, Children: []Variable{{Kind: reflect.Invalid}}}, "nil"},
		{"channel", Variable{Type: "chan int", Kind: reflect.Chan, Addr: 0xc000100000, Len: 1, Cap: 2}, "chan int 1/2"},
		{"func", Variable{Type: "func()", Kind: reflect.Func, Value: "main.f"}, "main.f"},
		{"nil func", Variable{Type: "func()", Kind: reflect.Func}, "nil"},
		{"unreadable", Variable{Type: "int", Kind: reflect.Int, Unreadable: "could not read"}, "(unreadable could not read)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
