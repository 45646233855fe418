package gdbscript

import (
	"strings"
	"testing"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/model/syncmodel"
)

// session returns a two-step session with the given arguments.
func session(args ...string) *Session {
	return &Session{
		Target:  "prog.c",
		Binary:  "/bin/prog",
		Args:    args,
		Library: "/cache/libstdbg.so",
		Log:     "/tmp/x/decisions.log",
		Report: &report.Report{
			Kind: "deadlock", Bug: true, Banner: "*** DEADLOCK DETECTED ***", Path: "1;2",
			Steps: []report.Step{
				{N: 1, Thread: 1, Call: "pthread_create -> thread 2", Where: report.Location{File: "/src/prog.c", Line: 7, Source: `f("a\`}},
				{N: 2, Thread: 2, Call: "pthread_mutex_lock(m)", Where: report.Location{File: "/src/prog.c", Line: 9}},
			},
		},
		Kinds: []syncmodel.Kind{syncmodel.ThreadCreate, syncmodel.MutexLock},
	}
}

func lines(b []byte) []string { return strings.Split(string(b), "\n") }

func has(t *testing.T, script []byte, line string) {
	t.Helper()
	for _, l := range lines(script) {
		if l == line {
			return
		}
	}
	t.Errorf("script lacks the line %q", line)
}

func TestScriptPlain(t *testing.T) {
	b, err := Script(session(`q"uo'te`, `back\slash`, "#x", "$y"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		"set startup-with-shell off",
		"set environment STDBG_REPLAY=/tmp/x/decisions.log",
		"set environment LD_PRELOAD=/cache/libstdbg.so",
		`set args q"uo'te back\slash #x $y`,
		"set pagination off",
		"set max-value-size unlimited",
		"set $trace = {1, 2}",
		"set $counter = 1",
		"python",
		"end",
		"stdbg-start",
	} {
		has(t, b, l)
	}
	if !strings.Contains(string(b), "gdb -q -x") {
		t.Error("the header does not say how to use the script")
	}
	// Every line before the commands is a comment, and none may end with
	// a backslash (GDB would join the next line to it).
	for _, l := range lines(b) {
		if strings.HasPrefix(l, "#") && strings.HasSuffix(l, `\`) {
			t.Errorf("comment line ends with a backslash: %q", l)
		}
		if strings.HasPrefix(l, "set") {
			break
		}
	}
}

func TestScriptShell(t *testing.T) {
	s := session("sp ace", "", `it's`, `trail\`)
	s.Env = []string{"GREETING=  hello  "}
	b, err := Script(s)
	if err != nil {
		t.Fatal(err)
	}
	has(t, b, "set startup-with-shell on")
	has(t, b, `set exec-wrapper env 'STDBG_REPLAY=/tmp/x/decisions.log' 'LD_PRELOAD=/cache/libstdbg.so' 'GREETING=  hello  '`)
	has(t, b, `set args 'sp ace' '' 'it'\''s' 'trail\'`)
	if strings.Contains(string(b), "set environment") {
		t.Error("shell mode must not put LD_PRELOAD in the environment: the shell would load the library")
	}
}

func TestPlainArgsAndEnv(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"a", `b"c`, `d'e`, `f\g`}, true},
		{[]string{"a b"}, false},
		{[]string{"a\tb"}, false},
		{[]string{""}, false},
		{[]string{`x\`}, false},
		{[]string{`x\`, "y"}, true},
	} {
		if got := plainArgs(tt.args); got != tt.want {
			t.Errorf("plainArgs(%q) = %v", tt.args, got)
		}
	}
	for _, tt := range []struct {
		kv   string
		want bool
	}{
		{"A=b c", true},
		{"A= b", false},
		{"A=b ", false},
		{`A=b\`, false},
		{"A==b", true},
		{"A=", true},
	} {
		if got := plainEnv(tt.kv); got != tt.want {
			t.Errorf("plainEnv(%q) = %v", tt.kv, got)
		}
	}
}

func TestScriptRejects(t *testing.T) {
	for name, mod := range map[string]func(s *Session){
		"newline in an argument": func(s *Session) { s.Args = []string{"a\nb"} },
		"relative program":       func(s *Session) { s.Binary = "prog" },
		"library with a blank":   func(s *Session) { s.Library = "/my cache/libstdbg.so" },
		"library with a colon":   func(s *Session) { s.Library = "/a:b/libstdbg.so" },
		"kinds do not match":     func(s *Session) { s.Kinds = s.Kinds[:1] },
		"environment overrides":  func(s *Session) { s.Env = []string{"LD_PRELOAD=/x.so"} },
		"not NAME=VALUE":         func(s *Session) { s.Env = []string{"JUSTNAME"} },
		"invalid UTF-8":          func(s *Session) { s.Args = []string{"\xff"} },
		"no report":              func(s *Session) { s.Report = nil },
	} {
		s := session()
		mod(s)
		if _, err := Script(s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestTraceLine(t *testing.T) {
	if got := traceLine(nil); got != "set $trace = {0}" {
		t.Errorf("empty: %q", got)
	}
	steps := make([]report.Step, 2000)
	for i := range steps {
		steps[i].Thread = 1 + i%2
	}
	got := traceLine(steps)
	if !strings.HasPrefix(got, "set $trace = {1, 2, 1, ") || !strings.HasSuffix(got, ", 1, 2}") || strings.Count(got, ",") != 1999 {
		t.Errorf("long trace: %.60q...", got)
	}
}

func TestComment(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          "# plain",
		`ends in \`:      `# ends in \ .`,
		"line\nbreak\r":  "# line break",
		"trailing   ":    "# trailing",
		"":               "#",
		"tab\there\x7f.": "# tab here .",
	} {
		if got := comment(in); got != want {
			t.Errorf("comment(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPythonBlock checks that the embedded Python stays inside the
// script's python ... end block: GDB ends the block at a line reading end.
func TestPythonBlock(t *testing.T) {
	for i, l := range strings.Split(pythonSource, "\n") {
		if strings.TrimSpace(l) == "end" {
			t.Errorf("stdbg.py line %d reads end: GDB would end the python block there", i+1)
		}
	}
	for _, name := range []string{"stdbg-next", "stdbg-goto", "stdbg-where", "stdbg-trace", "stdbg-start", "stdbg-threads", "stdbg-finish"} {
		if !strings.Contains(pythonSource, `"`+name+`"`) {
			t.Errorf("stdbg.py does not define %s", name)
		}
	}
}

func TestShQuote(t *testing.T) {
	for in, want := range map[string]string{"": "''", "a b": "'a b'", "it's": `'it'\''s'`, `\`: `'\'`} {
		if got := shQuote(in); got != want {
			t.Errorf("shQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
