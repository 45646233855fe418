package rt

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// The program's own view of its stack as text (runtime/debug's Stack and
// PrintStack, which stdbg's instrumentation rewrites into
// sthread/runtime/debug's): the Go runtime's traceback of the calling
// goroutine without the frames of stdbg's runtime, as userCallers leaves
// them out of runtime.Callers. Below the body of a test function come the
// frames package testing called it from (TestBegun), and below the body of
// main none (main's goroutine ends there in Go); the line that says
// which go statement created the goroutine names the program's go
// statement, not the function of stdbg's that started the goroutine
// running it.

// runMain is the qualified name of the function that runs the body of
// main in an instrumented program (sthread.Run), as the Go runtime spells
// it.
const runMain = rtnames.Package + ".Run"

// UserStack returns stack, the calling goroutine's traceback as
// runtime.Stack(buf, false) writes it, or every goroutine's as
// runtime.Stack(buf, true) does, as the program sees its stack: the
// frames of stdbg's runtime are left out, but those whose function own
// names, which are written as own says (a mirror's function, in the
// standard library's terms: two lines, the call and its file). Of every
// goroutine's, the goroutines that run none of the program's frames
// (stdbg's own) are left out, and a line that says that stdbg's runtime
// created a goroutine names the program's go statement when the runtime
// knows it, or is left out.
//
//go:norace
func UserStack(stack []byte, own map[string]string) []byte {
	var out bytes.Buffer
	for i, block := range strings.Split(strings.TrimSuffix(string(stack), "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		if !strings.HasPrefix(lines[0], "goroutine ") {
			return stack
		}
		var b bytes.Buffer
		if userFrames(&b, lines, own, i == 0) || i == 0 {
			if out.Len() > 0 {
				out.WriteByte('\n')
			}
			out.Write(b.Bytes())
		}
	}
	return out.Bytes()
}

// userFrames writes the traceback of one goroutine, its lines, as
// UserStack does, and reports whether it holds a frame of the program;
// self: it is the calling goroutine's.
//
//go:norace
func userFrames(out *bytes.Buffer, lines []string, own map[string]string, self bool) bool {
	out.WriteString(lines[0])
	out.WriteByte('\n')
	program := false
	below := false // past the body of a test: the frames below are TestBegun's
	for i := 1; i < len(lines); i++ {
		line := lines[i]
		file := ""
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			file = lines[i+1]
			i++
		}
		if name, ok := strings.CutPrefix(line, "created by "); ok {
			fn, _, _ := strings.Cut(name, " in goroutine ")
			if !stdbgText(fn, fileOf(file)) {
				out.WriteString(line + "\n" + file + "\n")
			} else if s := createdBy(self, lines[0]); s != "" {
				out.WriteString(s)
			}
			continue
		}
		if below {
			continue
		}
		fn := funcOf(line)
		if s, ok := own[fn]; ok {
			out.WriteString(s)
			continue
		}
		if !stdbgText(fn, fileOf(file)) {
			// (runtime.goexit, shown when every frame above it was
			// stdbg's, is not the program's.)
			program = program || fn != "runtime.goexit"
			out.WriteString(line + "\n")
			if file != "" {
				out.WriteString(file + "\n")
			}
			continue
		}
		if fn == runMain || strings.HasPrefix(fn, runMain+".") {
			// Below the body of main, outside a check: the function main
			// that the instrumentation made a wrapper of the body.
			below = true
			continue
		}
		if fn == checkTest || strings.HasPrefix(fn, checkTest+".") {
			below = true
			for j := range testTail {
				pc := uintptr(quietLoad(&testTail[j]))
				if pc == 0 {
					break
				}
				writeFrames(out, pc)
			}
		}
	}
	return program
}

// funcOf is the function of a traceback's frame line ("main.(*T).m(0x1,
// ...)"): the line without its arguments.
//
//go:norace
func funcOf(line string) string {
	if !strings.HasSuffix(line, ")") {
		return line
	}
	depth := 0
	for i := len(line) - 1; i >= 0; i-- {
		switch line[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return line[:i]
			}
		}
	}
	return line
}

// fileOf is the file of a traceback's file line ("\t/src/x.go:12 +0x1d").
//
//go:norace
func fileOf(line string) string {
	line = strings.TrimPrefix(line, "\t")
	if i := strings.LastIndex(line, " +0x"); i >= 0 {
		line = line[:i]
	}
	if i := strings.LastIndexByte(line, ':'); i >= 0 {
		line = line[:i]
	}
	return line
}

// writeFrames writes the frames at return address pc as a traceback does,
// those of the functions inlined there included, but runtime.goexit's,
// which tracebacks leave out.
//
//go:norace
func writeFrames(out *bytes.Buffer, pc uintptr) {
	// CallersFrames expands the functions inlined at a PC only when more
	// PCs follow: the 0 that follows is skipped.
	frames := runtime.CallersFrames([]uintptr{pc, 0})
	for {
		fr, more := frames.Next()
		if fr.Function != "" && fr.Function != "runtime.goexit" {
			out.WriteString(fr.Function + "(...)\n\t" + fr.File + ":" + strconv.Itoa(fr.Line))
			if fr.Entry != 0 && fr.PC >= fr.Entry {
				out.WriteString(" +0x" + strconv.FormatUint(uint64(fr.PC-fr.Entry), 16))
			}
			out.WriteByte('\n')
		}
		if !more {
			return
		}
	}
}

// createdBy is the line a traceback ends with for a goroutine, of the
// given header line, that stdbg's runtime started for a go statement of
// the program: "created by" the function of that statement, in the
// goroutine that made it, and its file and line; "" when the runtime does
// not know it. self: the goroutine is the calling one (a checked
// goroutine's statement is known to itself only).
//
//go:norace
func createdBy(self bool, header string) string {
	var pc uintptr
	var by uint64
	if th, ok := Current(); self && ok {
		pc, by = th.spawnPC, th.spawnBy
	} else {
		id, _, _ := strings.Cut(strings.TrimPrefix(header, "goroutine "), " ")
		if n, err := strconv.ParseUint(id, 10, 64); err == nil {
			pc, by = outsiderOrigin(n)
		}
	}
	if pc == 0 {
		return ""
	}
	fr := userFrame(pc)
	if fr.Function == "" {
		return ""
	}
	s := "created by " + fr.Function
	if by != 0 {
		s += " in goroutine " + strconv.FormatUint(by, 10)
	}
	s += "\n\t" + fr.File + ":" + strconv.Itoa(fr.Line)
	if f := runtime.FuncForPC(pc - 1); f != nil && pc > f.Entry() {
		s += " +0x" + strconv.FormatUint(uint64(pc-f.Entry()-1), 16)
	}
	return s + "\n"
}

// origins holds, direct-mapped by goroutine id, where each goroutine
// started outside a check was made (noteOrigin): three words per entry,
// its id, the return address of the go statement's call and the id of the
// goroutine that made it. Words are read and written quietly, as pcClass's:
// a goroutine writes its own entry, and reads only its own.
var origins [1 << 8][3]atomic.Uint64

// noteOrigin records that goroutine id was made by the go statement at
// return address pc, in goroutine by.
//
//go:norace
func noteOrigin(id uint64, pc uintptr, by uint64) {
	e := &origins[id&(uint64(len(origins))-1)]
	quietStore(&e[0], 0)
	quietStore(&e[1], uint64(pc))
	quietStore(&e[2], by)
	quietStore(&e[0], id)
}

// outsiderOrigin returns where goroutine id was made (noteOrigin), or 0s
// when its entry was taken by another.
//
//go:norace
func outsiderOrigin(id uint64) (uintptr, uint64) {
	e := &origins[id&(uint64(len(origins))-1)]
	if id == 0 || quietLoad(&e[0]) != id {
		return 0, 0
	}
	pc, by := uintptr(quietLoad(&e[1])), quietLoad(&e[2])
	if quietLoad(&e[0]) != id {
		return 0, 0
	}
	return pc, by
}

// stdbgText reports whether a frame of a traceback, of function fn in
// file, is stdbg's: stdbg's runtime's (stdbgFrame), or of the search that
// runs in the process (the packages rtnames.RaceSuppressions names), as
// the goroutine that drives a check runs it.
//
//go:norace
func stdbgText(fn, file string) bool {
	return stdbgFrame(fn, file) || rtnames.IsSuppressed(fn)
}
