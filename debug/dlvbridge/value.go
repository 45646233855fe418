package dlvbridge

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// String is the variable's value on one line, in Go's notation as far as
// Delve read it: 42, "text", main.T {n: 1, s: "a"}, []int len: 3, cap: 4,
// [1,2,3], map[string]int ["a": 1], *main.T {...}, nil. What Delve did not
// read (beyond its load limits) shows as "..." and, for collections, how
// many elements more there are.
func (v *Variable) String() string {
	var b strings.Builder
	writeValue(&b, v, true)
	return b.String()
}

// writeValue writes v; top says whether v is the value asked for (which
// names its type when the type is not plain from the value) or an element
// inside another.
func writeValue(b *strings.Builder, v *Variable, top bool) {
	if v.Unreadable != "" {
		fmt.Fprintf(b, "(unreadable %s)", v.Unreadable)
		return
	}
	switch v.Kind {
	case reflect.Invalid:
		b.WriteString("nil")
	case reflect.String:
		b.WriteString(strconv.Quote(v.Value))
		if more := v.Len - int64(len(v.Value)); more > 0 {
			fmt.Fprintf(b, "...+%d more", more)
		}
	case reflect.Pointer:
		writePointer(b, v)
	case reflect.UnsafePointer:
		fmt.Fprintf(b, "unsafe.Pointer(%#x)", pointee(v))
	case reflect.Struct:
		if top {
			b.WriteString(v.Type + " ")
		}
		writeStruct(b, v)
	case reflect.Slice:
		if top {
			fmt.Fprintf(b, "%s len: %d, cap: %d, ", v.Type, v.Len, v.Cap)
		}
		writeElems(b, v)
	case reflect.Array:
		if top {
			fmt.Fprintf(b, "%s ", v.Type)
		}
		writeElems(b, v)
	case reflect.Map:
		if top {
			b.WriteString(v.Type + " ")
		}
		writeMap(b, v)
	case reflect.Interface:
		writeInterface(b, v)
	case reflect.Chan:
		if len(v.Children) == 0 && v.Addr == 0 && v.Value == "" {
			fmt.Fprintf(b, "%s nil", v.Type)
			return
		}
		fmt.Fprintf(b, "%s %d/%d", v.Type, v.Len, v.Cap)
	case reflect.Func:
		if v.Value == "" {
			b.WriteString("nil")
			return
		}
		b.WriteString(v.Value)
	case reflect.Complex64, reflect.Complex128:
		if v.Value != "" {
			b.WriteString(v.Value)
			return
		}
		if len(v.Children) == 2 {
			fmt.Fprintf(b, "(%s + %si)", v.Children[0].Value, v.Children[1].Value)
			return
		}
		b.WriteString("(...)")
	default:
		// Numbers and booleans: Delve's text is Go's.
		b.WriteString(v.Value)
	}
}

// pointee is the address a pointer holds.
func pointee(v *Variable) uint64 {
	if len(v.Children) > 0 {
		return v.Children[0].Addr
	}
	return v.Base
}

func writePointer(b *strings.Builder, v *Variable) {
	if len(v.Children) == 0 {
		if v.Addr == 0 && v.Base == 0 {
			b.WriteString("nil")
			return
		}
		fmt.Fprintf(b, "(%s)(%#x)", v.Type, v.Base)
		return
	}
	c := &v.Children[0]
	if c.Addr == 0 && c.Kind == reflect.Invalid {
		b.WriteString("nil")
		return
	}
	if c.OnlyAddr {
		fmt.Fprintf(b, "(%s)(%#x)", v.Type, c.Addr)
		return
	}
	b.WriteString("*")
	writeValue(b, c, true)
}

func writeStruct(b *strings.Builder, v *Variable) {
	if len(v.Children) == 0 && v.Len > 0 {
		b.WriteString("{...}")
		return
	}
	b.WriteString("{")
	for i := range v.Children {
		if i > 0 {
			b.WriteString(", ")
		}
		c := &v.Children[i]
		b.WriteString(c.Name + ": ")
		writeValue(b, c, false)
	}
	if more := v.Len - int64(len(v.Children)); more > 0 && len(v.Children) > 0 {
		fmt.Fprintf(b, ", ...+%d more", more)
	}
	b.WriteString("}")
}

func writeElems(b *strings.Builder, v *Variable) {
	b.WriteString("[")
	for i := range v.Children {
		if i > 0 {
			b.WriteString(",")
		}
		writeValue(b, &v.Children[i], false)
	}
	if more := v.Len - int64(len(v.Children)); more > 0 {
		if len(v.Children) > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(b, "...+%d more", more)
	}
	b.WriteString("]")
}

// writeMap writes a map, whose children are its keys and values in turn.
func writeMap(b *strings.Builder, v *Variable) {
	b.WriteString("[")
	n := 0
	for i := 0; i+1 < len(v.Children); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, &v.Children[i], false)
		b.WriteString(": ")
		writeValue(b, &v.Children[i+1], false)
		n++
	}
	if more := v.Len - int64(n); more > 0 {
		if n > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "...+%d more", more)
	}
	b.WriteString("]")
}

// writeInterface writes an interface value as its type, its dynamic type
// and the value it holds: error(*errors.errorString) *{s: "boom"}.
func writeInterface(b *strings.Builder, v *Variable) {
	if len(v.Children) == 0 {
		if v.Addr == 0 {
			b.WriteString("nil")
			return
		}
		b.WriteString(v.Type + " {...}")
		return
	}
	c := &v.Children[0]
	if c.Kind == reflect.Invalid && c.Unreadable == "" {
		b.WriteString("nil")
		return
	}
	fmt.Fprintf(b, "%s(%s) ", v.Type, c.Type)
	writeValue(b, c, false)
}
