package syncmodel

import (
	"strings"
	"testing"
)

// Every kind and every API has a name of its own, also as the C header
// spells it (target/ctarget/opsheader: upper case, other characters as _): two
// with one name would be one macro defined twice there, and one bug key.
func TestNamesAreDistinct(t *testing.T) {
	cname := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, strings.ToUpper(s))
	}
	kinds := map[string]Kind{}
	for k := Kind(1); int(k) < NumKinds; k++ {
		if o, dup := kinds[cname(k.String())]; dup {
			t.Errorf("kinds %d and %d are both %q", o, k, k.String())
		}
		kinds[cname(k.String())] = k
	}
	apis := map[string]API{}
	for a := API(1); int(a) < NumAPIs; a++ {
		if o, dup := apis[cname(a.String())]; dup {
			t.Errorf("APIs %d and %d are both %q", o, a, a.String())
		}
		apis[cname(a.String())] = a
	}
}
