package goinstr

import (
	"go/types"
	"runtime"
	"sort"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestMirrorShapes checks every type that the rewriting substitutes (each
// name of the mirrors table that is a type of the standard package):
// sthread's type has the size and alignment of the standard library's, as
// the compiler lays them out, and the same exported fields at the same
// offsets (Timer's C, Cond's L), so that code that pads a struct to a
// cache line, embeds one of them or lays out memory builds and behaves
// the same under stdbg. A name that is an alias (Locker) must be the
// standard type itself. Run under each Go release stdbg supports (.ci/run
// runs it under the newest).
func TestMirrorShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	var paths []string
	for std, m := range mirrors {
		paths = append(paths, std, m.path)
	}
	sort.Strings(paths)
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesSizes, Dir: "../.."}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		byPath[p.PkgPath] = p.Types
	}
	sizes := types.SizesFor("gc", runtime.GOARCH)
	checked := 0
	for std, m := range mirrors {
		for name := range m.names {
			so := byPath[std].Scope().Lookup(name)
			mo := byPath[m.path].Scope().Lookup(name)
			if so == nil && newerName(std+"."+name) {
				continue // a name of a newer Go release
			}
			if so == nil || mo == nil {
				t.Errorf("%s.%s: the standard one is %v, the mirror's %v", std, name, so, mo)
				continue
			}
			if _, ok := so.(*types.TypeName); !ok {
				continue // a function
			}
			checked++
			checkShape(t, std+"."+name, so.Type(), mo.Type(), sizes)
		}
	}
	if checked < 16 {
		t.Errorf("%d types checked: the mirrors table names more", checked)
	}
}

// checkShape compares the standard type st (named what) with the mirror's
// mt.
func checkShape(t *testing.T, what string, st, mt types.Type, sizes types.Sizes) {
	t.Helper()
	if sn, ok := st.(*types.Named); ok && sn.TypeParams().Len() > 0 {
		// A generic type (atomic.Pointer): instantiated with the same
		// argument.
		args := []types.Type{types.NewPointer(types.Typ[types.Int])}
		var err error
		if st, err = types.Instantiate(nil, st, args, true); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if mt, err = types.Instantiate(nil, mt, args, true); err != nil {
			t.Fatalf("%s's mirror: %v", what, err)
		}
	}
	if _, ok := st.Underlying().(*types.Interface); ok {
		if !types.Identical(st, mt) {
			t.Errorf("%s: the mirror's %v is not the standard interface", what, mt)
		}
		return
	}
	if s, m := sizes.Sizeof(st), sizes.Sizeof(mt); s != m {
		t.Errorf("%s: size %d, the mirror's %d", what, s, m)
	}
	if s, m := sizes.Alignof(st), sizes.Alignof(mt); s != m {
		t.Errorf("%s: alignment %d, the mirror's %d", what, s, m)
	}
	ss, ok1 := st.Underlying().(*types.Struct)
	ms, ok2 := mt.Underlying().(*types.Struct)
	if !ok1 || !ok2 {
		t.Errorf("%s: a %T, the mirror's a %T", what, st.Underlying(), mt.Underlying())
		return
	}
	exported := func(s *types.Struct) map[string]*types.Var {
		m := map[string]*types.Var{}
		for i := range s.NumFields() {
			if f := s.Field(i); f.Exported() {
				m[f.Name()] = f
			}
		}
		return m
	}
	offsets := func(s *types.Struct) map[string]int64 {
		var fields []*types.Var
		for i := range s.NumFields() {
			fields = append(fields, s.Field(i))
		}
		off := sizes.Offsetsof(fields)
		m := map[string]int64{}
		for i, f := range fields {
			m[f.Name()] = off[i]
		}
		return m
	}
	sf, mf := exported(ss), exported(ms)
	so, mo := offsets(ss), offsets(ms)
	var names []string
	for n := range sf {
		names = append(names, n)
	}
	for n := range mf {
		if sf[n] == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		switch {
		case sf[n] == nil:
			t.Errorf("%s: the mirror has a field %s that the standard type has not", what, n)
		case mf[n] == nil:
			t.Errorf("%s: the mirror has no field %s", what, n)
		case !types.Identical(sf[n].Type(), mf[n].Type()):
			t.Errorf("%s.%s: %v, the mirror's %v", what, n, sf[n].Type(), mf[n].Type())
		case so[n] != mo[n]:
			t.Errorf("%s.%s: at offset %d, the mirror's at %d", what, n, so[n], mo[n])
		}
	}
}
