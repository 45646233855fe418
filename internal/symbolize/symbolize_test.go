package symbolize

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// program is a compiled and run test program: the addresses it printed and
// its module map.
type program struct {
	dir  string            // directory holding sources and binaries (symlinks resolved)
	exe  string            // path of the executable
	addr map[string]uint64 // KEY -> address printed as "KEY 0x..."
	mods []Module
}

// buildOpts describes how to build a test program.
type buildOpts struct {
	cxx   bool     // build testdata/main.cpp with c++ instead of main.c with cc
	flags []string // extra compiler flags (-pie, -no-pie, -gdwarf-4, ...)
	// post runs after linking, before the program is run (stripping).
	post func(t testing.TB, p *program)
}

// needTool skips the test when a tool is not installed.
func needTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not available: %v", name, err)
	}
}

// run runs a command in dir and fails the test on error.
func run(t testing.TB, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// build compiles a test program (and, for C, its shared library) into a
// fresh temporary directory, runs it and parses its output.
func build(t testing.TB, o buildOpts) *program {
	t.Helper()
	compiler := "cc"
	if o.cxx {
		compiler = "c++"
	}
	needTool(t, compiler)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"modmap.h", "main.c", "main.cpp", "shared.c"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := &program{dir: dir, exe: filepath.Join(dir, "prog"), addr: make(map[string]uint64)}
	args := append([]string{"-g", "-O0"}, o.flags...)
	if o.cxx {
		run(t, dir, compiler, append(args, "-o", "prog", "main.cpp")...)
	} else {
		run(t, dir, compiler, append(args, "-shared", "-fPIC", "-o", "libshared.so", "shared.c")...)
		run(t, dir, compiler, append(args, "-o", "prog", "main.c", "-L.", "-lshared",
			"-Wl,-rpath,"+dir, "-ldl")...)
	}
	if o.post != nil {
		o.post(t, p)
	}
	out := run(t, dir, p.exe)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && fields[0] == "MOD":
			var m Module
			for i, dst := range []*uint64{&m.Bias, &m.Start, &m.End} {
				if *dst, err = strconv.ParseUint(fields[1+i], 0, 64); err != nil {
					t.Fatalf("bad module line %q: %v", sc.Text(), err)
				}
			}
			m.Path = strings.Join(fields[4:], " ")
			if m.Path == "-" {
				m.Path = ""
			}
			p.mods = append(p.mods, m)
		case len(fields) == 2:
			v, err := strconv.ParseUint(fields[1], 0, 64)
			if err != nil {
				t.Fatalf("bad address line %q: %v", sc.Text(), err)
			}
			p.addr[fields[0]] = v
		}
	}
	if len(p.mods) == 0 {
		t.Fatalf("no module map in output:\n%s", out)
	}
	return p
}

// get returns an address printed by the program.
func (p *program) get(t testing.TB, key string) uint64 {
	t.Helper()
	v, ok := p.addr[key]
	if !ok {
		t.Fatalf("program did not print %s", key)
	}
	return v
}

// markerLine returns the line of testdata/file containing "/* marker */".
func markerLine(t testing.TB, file, marker string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "/* "+marker+" */") {
			return i + 1
		}
	}
	t.Fatalf("marker %s not found in %s", marker, file)
	return 0
}

// lookup kinds of a test case.
const (
	kindReturn = "return"
	kindExact  = "exact"
	kindData   = "data"
)

// symCase is one expected lookup in a test program.
type symCase struct {
	name   string
	kind   string // kindReturn, kindExact or kindData
	key    string // address printed by the program
	delta  uint64 // added to the address
	fn     string // expected function (code) or variable name (data)
	file   string // expected source base name, "" for none
	marker string // expected line marker in file
	module string // expected module base name prefix, "" to skip
	system bool   // expected IsSystem
}

// check runs one case against s.
func (c symCase) check(t *testing.T, p *program, s *Symbolizer) {
	t.Helper()
	addr := p.get(t, c.key) + c.delta
	if c.kind == kindData {
		name, ok := s.Data(addr)
		if !ok || name != c.fn {
			t.Errorf("Data(%#x) = %q, %v; want %q, true", addr, name, ok, c.fn)
		}
		return
	}
	var f Frame
	if c.kind == kindReturn {
		f = s.Return(addr)
	} else {
		f = s.Exact(addr)
	}
	if f.PC != addr {
		t.Errorf("%s(%#x).PC = %#x", c.kind, addr, f.PC)
	}
	if f.Func != c.fn {
		t.Errorf("%s(%#x).Func = %q, want %q (frame %+v)", c.kind, addr, f.Func, c.fn, f)
	}
	if c.module != "" && !strings.HasPrefix(filepath.Base(f.Module), c.module) {
		t.Errorf("%s(%#x).Module = %q, want %s*", c.kind, addr, f.Module, c.module)
	}
	if got := IsSystem(f); got != c.system {
		t.Errorf("IsSystem(%+v) = %v, want %v", f, got, c.system)
	}
	if c.file == "" {
		return
	}
	if want := filepath.Join(p.dir, c.file); f.File != want {
		t.Errorf("%s(%#x).File = %q, want %q", c.kind, addr, f.File, want)
	}
	if want := markerLine(t, c.file, c.marker); f.Line != want {
		t.Errorf("%s(%#x).Line = %d, want %d", c.kind, addr, f.Line, want)
	}
	if text, ok := SourceLine(f.File, f.Line); !ok || !strings.Contains(text, c.marker) {
		t.Errorf("SourceLine(%q, %d) = %q, %v; want the line marked %s", f.File, f.Line, text, ok, c.marker)
	}
	if want := c.fn + " (" + c.file + ":" + strconv.Itoa(f.Line) + ")"; f.String() != want {
		t.Errorf("String() = %q, want %q", f.String(), want)
	}
	if want := c.file + ":" + strconv.Itoa(f.Line); f.Short() != want {
		t.Errorf("Short() = %q, want %q", f.Short(), want)
	}
}

// cCases are the lookups checked in every build of testdata/main.c.
var cCases = []symCase{
	{name: "return address", kind: kindReturn, key: "RA", fn: "worker", file: "main.c", marker: "LINE_CALL", module: "prog"},
	{name: "function entry", kind: kindExact, key: "FN", fn: "worker", file: "main.c", marker: "LINE_WORKER", module: "prog"},
	{name: "global", kind: kindData, key: "GCOUNTER", fn: "gcounter"},
	{name: "struct member", kind: kindData, key: "GPAIR_B", fn: "gpair+8"},
	{name: "static array element", kind: kindData, key: "SSTATE2", fn: "sstate+8"},
	{name: "libc entry", kind: kindExact, key: "LIBC", fn: "pthread_mutex_lock", module: "libc.so", system: true},
	{name: "libc return", kind: kindReturn, key: "LIBC", delta: 8, fn: "pthread_mutex_lock", module: "libc.so", system: true},
	{name: "shared library", kind: kindReturn, key: "SO_RA", fn: "shared_here", file: "shared.c", marker: "LINE_SO", module: "libshared.so"},
	{name: "shared library static", kind: kindData, key: "SO_DATA", fn: "so_table+16"},
	{name: "first element", kind: kindData, key: "GFORK0", fn: "gforks"},
	{name: "array element", kind: kindData, key: "GFORK2", fn: "gforks+80"},
	{name: "element of a member", kind: kindData, key: "GTABLE_LOCK1", fn: "gtable+48"},
}

// typedCases are cCases as Options.Types names them: elements and
// members from the DWARF types, a pthread_mutex_t (a union) as a whole.
var typedCases = typed(cCases, map[string]string{
	"GPAIR_B": "gpair.b", "SSTATE2": "sstate[2]", "SO_DATA": "so_table[2]",
	"GFORK0": "gforks[0]", "GFORK2": "gforks[2]", "GTABLE_LOCK1": "gtable.locks[1]",
})

// typed returns cases with the data names of names.
func typed(cases []symCase, names map[string]string) []symCase {
	out := slices.Clone(cases)
	for i, c := range out {
		if n, ok := names[c.key]; ok && c.kind == kindData {
			out[i].fn = n
		}
	}
	return out
}

// cxxCases are the lookups checked in every build of testdata/main.cpp.
var cxxCases = []symCase{
	{name: "method", kind: kindReturn, key: "BAR", fn: "ns::Foo::bar", file: "main.cpp", marker: "LINE_CXX_BAR", module: "prog"},
	{name: "namespace function", kind: kindReturn, key: "BAZ", fn: "ns::baz", file: "main.cpp", marker: "LINE_CXX_BAZ", module: "prog"},
	{name: "template", kind: kindReturn, key: "TWICE", fn: "ns::twice<int>", file: "main.cpp", marker: "LINE_CXX_TWICE", module: "prog"},
	{name: "namespace global", kind: kindData, key: "GVAL1", fn: "ns::gval+8"},
	{name: "lambda", kind: kindReturn, key: "LAMBDA", fn: "main::{lambda(int)#1}::operator()", file: "main.cpp", marker: "LINE_CXX_LAMBDA", module: "prog"},
}

func TestSymbolize(t *testing.T) {
	// Only the first build uses the system's debug directory: loading
	// the DWARF of libc (when libc6-dbg is installed) takes a while, and
	// the others check the .dynsym-only path for libc.
	noDebugDirs := Options{DebugDirs: []string{}}
	builds := []struct {
		name  string
		build buildOpts
		opts  Options
		cases []symCase
	}{
		{"c-pie", buildOpts{flags: []string{"-fPIE", "-pie"}}, Options{}, cCases},
		{"c-nopie", buildOpts{flags: []string{"-fno-pie", "-no-pie"}}, noDebugDirs, cCases},
		{"c-dwarf4", buildOpts{flags: []string{"-gdwarf-4"}}, noDebugDirs, cCases},
		{"cxx-pie", buildOpts{cxx: true, flags: []string{"-fPIE", "-pie"}}, Options{}, cxxCases},
		{"cxx-nopie", buildOpts{cxx: true, flags: []string{"-fno-pie", "-no-pie"}}, noDebugDirs, cxxCases},
		{"c-types", buildOpts{flags: []string{"-fPIE", "-pie"}}, Options{DebugDirs: []string{}, Types: true}, typedCases},
		{"cxx-types", buildOpts{cxx: true, flags: []string{"-fPIE", "-pie"}}, Options{DebugDirs: []string{}, Types: true},
			typed(cxxCases, map[string]string{"GVAL1": "ns::gval[1]"})},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			p := build(t, b.build)
			s := NewWithOptions(p.mods, b.opts)
			defer s.Close()
			for _, c := range b.cases {
				t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
					c.check(t, p, s)
				})
			}
			if errs := s.Errors(); len(errs) > 0 {
				t.Errorf("unexpected load errors: %v", errs)
			}
		})
	}
}

func TestUnknownAddress(t *testing.T) {
	s := New([]Module{{Path: "/nonexistent/libx.so", Start: 0x1000, End: 0x2000}})
	defer s.Close()
	for _, pc := range []uint64{0x10, 0x3000, ^uint64(0)} {
		if f := s.Return(pc); f != (Frame{PC: pc}) {
			t.Errorf("Return(%#x) = %+v, want only PC", pc, f)
		}
		if f := s.Exact(pc); f != (Frame{PC: pc}) {
			t.Errorf("Exact(%#x) = %+v, want only PC", pc, f)
		}
		if name, ok := s.Data(pc); ok {
			t.Errorf("Data(%#x) = %q, true; want false", pc, name)
		}
	}
	if f := s.Return(0); f != (Frame{}) {
		t.Errorf("Return(0) = %+v", f)
	}
	f := s.Exact(0x1800)
	if f.Module != "/nonexistent/libx.so" || f.Func != "" || f.File != "" {
		t.Errorf("Exact in unreadable module = %+v, want module only", f)
	}
	if got, want := f.String(), "0x1800 (libx.so)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if !IsSystem(f) {
		t.Errorf("IsSystem(%+v) = false, want true (no file)", f)
	}
	if len(s.Errors()) == 0 {
		t.Error("no error recorded for an unreadable module")
	}
}

// TestOddFiles checks that unreadable, non-ELF and truncated files degrade
// to module-only frames.
func TestOddFiles(t *testing.T) {
	needTool(t, "cc")
	p := build(t, buildOpts{})
	exe, err := os.ReadFile(p.exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{
		"empty":     nil,
		"text":      []byte("not an ELF file\n"),
		"truncated": exe[:200],
		"halfway":   exe[:len(exe)/2],
	}
	var mods []Module
	base := uint64(0x10000000)
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		mods = append(mods, Module{Path: path, Start: base, End: base + 0x100000})
		base += 0x1000000
	}
	mods = append(mods,
		Module{Path: "relative.so", Start: base, End: base + 0x1000},
		Module{Path: dir, Start: base + 0x1000000, End: base + 0x1001000}, // a directory
	)
	s := New(mods)
	defer s.Close()
	for _, m := range s.Modules() {
		for _, pc := range []uint64{m.Start + 1, m.Start + 0x800} {
			f := s.Return(pc)
			if f.Module != m.Path || f.PC != pc {
				t.Errorf("Return(%#x) in %s = %+v", pc, m.Path, f)
			}
			if _, ok := s.Data(pc); ok {
				t.Errorf("Data(%#x) in %s found something", pc, m.Path)
			}
		}
	}
	if errs := s.Errors(); len(errs) < len(files) {
		t.Errorf("Errors() = %v, want one per broken file", errs)
	}
	for _, err := range s.Errors() {
		t.Log(err)
	}
}

// TestCorruptDWARF flips bytes in the debug sections of a real binary and
// checks that lookups never panic.
func TestCorruptDWARF(t *testing.T) {
	p := build(t, buildOpts{flags: []string{"-fno-pie", "-no-pie"}})
	exe, err := os.ReadFile(p.exe)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(p.exe)
	if err != nil {
		t.Fatal(err)
	}
	var spans [][2]uint64
	for _, sec := range ef.Sections {
		if strings.HasPrefix(sec.Name, ".debug_") || sec.Name == ".symtab" || sec.Name == ".strtab" {
			spans = append(spans, [2]uint64{sec.Offset, sec.Size})
		}
	}
	ef.Close()
	if len(spans) == 0 {
		t.Fatal("no debug sections")
	}
	main := p.mods[0]
	if filepath.Base(main.Path) != "prog" {
		t.Fatalf("first module is %s, want the executable", main.Path)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		data := bytes.Clone(exe)
		for range 1 + i%8 {
			sp := spans[rng.IntN(len(spans))]
			if sp[1] == 0 {
				continue
			}
			data[sp[0]+rng.Uint64N(sp[1])] = byte(rng.Uint32())
		}
		path := filepath.Join(t.TempDir(), "prog")
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
		m := main
		m.Path = path
		s := New([]Module{m})
		s.Return(p.get(t, "RA"))
		s.Exact(p.get(t, "FN"))
		s.Data(p.get(t, "GCOUNTER"))
		s.Close()
	}
}

// TestSeparateDebugFile strips the program and provides its debug
// information as a separate file, found by build ID or by .gnu_debuglink.
func TestSeparateDebugFile(t *testing.T) {
	needTool(t, "objcopy")
	needTool(t, "strip")
	tests := []struct {
		name  string
		flags []string
		place func(t testing.TB, p *program, debugDir string) // puts prog.debug in place
	}{
		{
			name:  "build-id",
			flags: []string{"-Wl,--build-id"},
			place: func(t testing.TB, p *program, debugDir string) {
				f, err := elf.Open(p.exe)
				if err != nil {
					t.Fatal(err)
				}
				id := buildID(f)
				f.Close()
				if len(id) < 2 {
					t.Fatal("no build ID in the executable")
				}
				h := hex.EncodeToString(id)
				dst := filepath.Join(debugDir, ".build-id", h[:2], h[2:]+".debug")
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(p.dir, "prog.debug"), dst); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name:  "debuglink",
			flags: []string{"-Wl,--build-id=none"},
			place: func(t testing.TB, p *program, debugDir string) {
				run(t, p.dir, "objcopy", "--add-gnu-debuglink=prog.debug", "prog")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debugDir := t.TempDir()
			p := build(t, buildOpts{
				flags: append([]string{"-fPIE", "-pie"}, tt.flags...),
				post: func(t testing.TB, p *program) {
					run(t, p.dir, "objcopy", "--only-keep-debug", "prog", "prog.debug")
					run(t, p.dir, "strip", "--strip-all", "prog")
					tt.place(t, p, debugDir)
				},
			})
			f, err := elf.Open(p.exe)
			if err != nil {
				t.Fatal(err)
			}
			if hasDWARF(f) || f.Section(".symtab") != nil {
				t.Fatal("executable was not stripped")
			}
			f.Close()

			// Without the debug directory, only the module is known.
			s := NewWithOptions(p.mods, Options{DebugDirs: []string{}})
			if tt.name == "build-id" {
				if fr := s.Return(p.get(t, "RA")); fr.Func != "" || fr.File != "" {
					t.Errorf("stripped lookup without debug file = %+v", fr)
				}
			}
			s.Close()

			s = NewWithOptions(p.mods, Options{DebugDirs: []string{debugDir}})
			defer s.Close()
			for _, c := range cCases {
				t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
					c.check(t, p, s)
				})
			}
		})
	}
}

// TestConcurrent hammers a fresh Symbolizer from many goroutines (run with
// -race).
func TestConcurrent(t *testing.T) {
	p := build(t, buildOpts{})
	opts := Options{DebugDirs: []string{}} // keep libc quick under -race
	s := NewWithOptions(p.mods, opts)
	defer s.Close()
	want := map[string]Frame{}
	ref := NewWithOptions(p.mods, opts)
	defer ref.Close()
	for _, k := range []string{"RA", "SO_RA", "LIBC"} {
		want[k] = ref.Return(p.get(t, k))
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				k := []string{"RA", "SO_RA", "LIBC"}[(g+i)%3]
				if f := s.Return(p.get(t, k)); f != want[k] {
					t.Errorf("concurrent Return(%s) = %+v, want %+v", k, f, want[k])
					return
				}
				if name, ok := s.Data(p.get(t, "GPAIR_B")); !ok || name != "gpair+8" {
					t.Errorf("concurrent Data = %q, %v", name, ok)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCloseThenLookup(t *testing.T) {
	p := build(t, buildOpts{})
	s := New(p.mods)
	ra := p.get(t, "RA")
	before := s.Return(ra)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if after := s.Return(ra); after != before {
		t.Errorf("Return after Close = %+v, want %+v", after, before)
	}
	// A module never loaded before Close yields module-only frames.
	so := s.Return(p.get(t, "SO_RA"))
	if so.Func != "" || !strings.HasSuffix(so.Module, "libshared.so") {
		t.Errorf("Return in unloaded module after Close = %+v", so)
	}
}

func TestFrameFormatting(t *testing.T) {
	tests := []struct {
		f            Frame
		str, short   string
		system       bool
		systemReason string
	}{
		{Frame{PC: 0x401136, Module: "/tmp/prog", Func: "worker", File: "/src/deadly-embrace.c", Line: 12},
			"worker (deadly-embrace.c:12)", "deadly-embrace.c:12", false, "user file"},
		{Frame{PC: 0x7f0000001000, Module: "/lib/x86_64-linux-gnu/libc.so.6", Func: "pthread_mutex_lock"},
			"pthread_mutex_lock (libc.so.6)", "pthread_mutex_lock", true, "libc"},
		{Frame{PC: 0x7f0000001000},
			"0x7f0000001000 (??)", "0x7f0000001000", true, "nothing known"},
		{Frame{PC: 0x1234, Module: "/opt/libfoo.so"},
			"0x1234 (libfoo.so)", "libfoo.so", true, "no file"},
		{Frame{PC: 0x1234, Func: "f"},
			"f", "f", true, "no file"},
		{Frame{PC: 0x1234, File: "/src/a.c", Line: 3},
			"0x1234 (a.c:3)", "a.c:3", false, "user file"},
		{Frame{PC: 0x1234, Func: "g", File: "/src/a.c"},
			"g (a.c)", "g", false, "user file without line"},
		{Frame{PC: 1, Module: "/tmp/prog", Func: "std::vector<int>::push_back", File: "/usr/include/c++/12/bits/stl_vector.h", Line: 1287},
			"std::vector<int>::push_back (stl_vector.h:1287)", "stl_vector.h:1287", true, "/usr/include"},
		{Frame{PC: 1, Module: "/tmp/prog", Func: "f", File: "/opt/gcc/include/c++/13/mutex", Line: 5},
			"f (mutex:5)", "mutex:5", true, "c++/ header"},
		{Frame{PC: 1, Module: "/usr/lib/libstdbg.so", Func: "pthread_mutex_lock", File: "/build/stdbg/ctarget/intercept.c", Line: 5},
			"pthread_mutex_lock (intercept.c:5)", "intercept.c:5", true, "libstdbg"},
		{Frame{PC: 1, Module: "/lib/x86_64-linux-gnu/libstdc++.so.6", Func: "std::thread::join"},
			"std::thread::join (libstdc++.so.6)", "std::thread::join", true, "libstdc++"},
		{Frame{PC: 1, Module: "/lib64/ld-linux-x86-64.so.2", Func: "_dl_start"},
			"_dl_start (ld-linux-x86-64.so.2)", "_dl_start", true, "loader"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.str {
			t.Errorf("%+v.String() = %q, want %q", tt.f, got, tt.str)
		}
		if got := tt.f.Short(); got != tt.short {
			t.Errorf("%+v.Short() = %q, want %q", tt.f, got, tt.short)
		}
		if got := IsSystem(tt.f); got != tt.system {
			t.Errorf("IsSystem(%+v) = %v, want %v (%s)", tt.f, got, tt.system, tt.systemReason)
		}
	}
}

func TestSourceLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.c")
	if err := os.WriteFile(path, []byte("int x;\r\n\tint y; \n\nlast"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		line int
		want string
		ok   bool
	}{
		{path, 1, "int x;", true},
		{path, 2, "int y;", true},
		{path, 3, "", true},
		{path, 4, "last", true},
		{path, 5, "", false},
		{path, 0, "", false},
		{path, -1, "", false},
		{"/nonexistent/file.c", 1, "", false},
		{"", 1, "", false},
		{filepath.Dir(path), 1, "", false},
	}
	for _, tt := range tests {
		got, ok := SourceLine(tt.file, tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SourceLine(%q, %d) = %q, %v; want %q, %v", tt.file, tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDemangleName(t *testing.T) {
	tests := map[string]string{
		"_ZNSt6thread4joinEv":     "std::thread::join",
		"_ZN2ns3bazEi":            "ns::baz",
		"_ZN2ns4gvalE":            "ns::gval",
		"_Zbogus":                 "_Zbogus",
		"pthread_mutex_lock":      "pthread_mutex_lock",
		"_ZN12_GLOBAL__N_13fooEv": "(anonymous namespace)::foo",
	}
	for in, want := range tests {
		if got := demangleName(in); got != want {
			t.Errorf("demangleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNoteBuildID(t *testing.T) {
	note := func(name string, typ uint32, desc []byte) []byte {
		var b bytes.Buffer
		w := func(v uint32) { b.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) }
		w(uint32(len(name) + 1))
		w(uint32(len(desc)))
		w(typ)
		b.WriteString(name)
		b.WriteByte(0)
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
		b.Write(desc)
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
		return b.Bytes()
	}
	id := []byte{0xde, 0xad, 0xbe, 0xef, 0x01}
	data := append(note("GNU", 1, []byte{1, 2, 3, 4}), note("GNU", ntGNUBuildID, id)...)
	if got := noteBuildID(data, binary.LittleEndian); !bytes.Equal(got, id) {
		t.Errorf("noteBuildID = %x, want %x", got, id)
	}
	if got := noteBuildID(note("XYZ", ntGNUBuildID, id), binary.LittleEndian); got != nil {
		t.Errorf("noteBuildID(non-GNU) = %x, want nil", got)
	}
	bad := note("GNU", ntGNUBuildID, id)
	bad[4] = 0xff // descsz beyond the data
	if got := noteBuildID(bad, binary.LittleEndian); got != nil {
		t.Errorf("noteBuildID(truncated) = %x, want nil", got)
	}
}

func BenchmarkReturn(b *testing.B) {
	p := build(b, buildOpts{})
	s := New(p.mods)
	defer s.Close()
	ra := p.get(b, "RA")
	s.Return(ra) // load the module and cache the result
	b.ResetTimer()
	for b.Loop() {
		s.Return(ra)
	}
}

// BenchmarkResolve measures an uncached lookup in a loaded module.
func BenchmarkResolve(b *testing.B) {
	p := build(b, buildOpts{})
	s := New(p.mods)
	defer s.Close()
	ra := p.get(b, "RA")
	s.Return(ra)
	for b.Loop() {
		s.resolve(ra - 1)
	}
}

func TestIsSystemStdbgsOwnSources(t *testing.T) {
	tests := []struct {
		f    Frame
		want bool
	}{
		{Frame{Func: "worker", File: "/src/tas.c", Line: 9, Module: "/src/tas"}, false},
		// The annotation header and the entry points of the memory
		// instrumentation are stdbg's: a step shows its caller's line.
		{Frame{Func: "stdbg_yield", File: "/cache/include/stdbg.h", Line: 40, Module: "/src/tas"}, true},
		{Frame{Func: "__tsan_atomic8_exchange", File: "/cache/lib-1/src-2/stdbg_tsan.c", Line: 183, Module: "/src/tas"}, true},
		{Frame{Func: "strlen", File: "", Module: "/usr/lib/x86_64-linux-gnu/libc.so.6"}, true},
	}
	for _, tt := range tests {
		if got := IsSystem(tt.f); got != tt.want {
			t.Errorf("IsSystem(%s in %s) = %v, want %v", tt.f.Func, tt.f.File, got, tt.want)
		}
	}
}
