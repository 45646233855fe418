// Package gdbscript writes GDB scripts that replay one stdbg schedule under
// GDB, one thread step at a time.
//
// The program runs with the stdbg library preloaded and STDBG_REPLAY naming
// a decision log (package ctarget, Decisions): the library follows the log
// alone, without a checker, so GDB is all that runs. The script loads the
// program, sets its environment and arguments, and defines, in Python, a
// breakpoint on the library's stdbg_step hook (called at every transition)
// and the commands stdbg-start, stdbg-next, stdbg-goto, stdbg-where,
// stdbg-trace and stdbg-threads. At every stop it selects the GDB thread of
// the stdbg thread that runs next and that thread's frame in the user's
// code, so that list, bt and print work there.
//
// Use it with
//
//	gdb -q -x SCRIPT
//
// (never as a .gdbinit: GDB's auto-load safe-path refuses those).
package gdbscript

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/model/syncmodel"
)

//go:embed stdbg.py
var pythonSource string

// Session is what a script replays: the program, how to start it, the
// decision log and what the native run under the checker showed.
type Session struct {
	// Target is the program as the user named it (shown in the header).
	Target string
	// Binary is the executable GDB debugs.
	Binary string
	// Args are the program's arguments.
	Args []string
	// Env holds extra NAME=VALUE entries for the program's environment.
	Env []string
	// Library is the stdbg interposition library (LD_PRELOAD).
	Library string
	// Log is the decision log the library follows (STDBG_REPLAY).
	Log string
	// Report is the report of the native run that wrote the log: every
	// step's thread, call and place, and how the run ended.
	Report *report.Report
	// Kinds holds the kind of every step's operation, as in the log; it
	// has one entry per step of Report.
	Kinds []syncmodel.Kind
	// ScriptPath is where the script goes, for its header's usage line
	// (Write sets it).
	ScriptPath string
}

// step is one step as the Python side sees it.
type step struct {
	Thread int    `json:"thread"`
	Kind   int    `json:"kind"`
	Create bool   `json:"create"`
	Exit   bool   `json:"exit"`
	Leaves bool   `json:"leaves"` // the thread finishes (returns, pthread_exit)
	Call   string `json:"call"`
	Func   string `json:"func,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"`
}

// place is a thread at a place, for waits and failures.
type place struct {
	Thread int    `json:"thread"`
	Text   string `json:"text,omitempty"`
	Func   string `json:"func,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"`
}

type outcome struct {
	Kind    string  `json:"kind"`
	Bug     bool    `json:"bug"`
	Banner  string  `json:"banner"`
	Message string  `json:"message"`
	Waits   []place `json:"waits,omitempty"`
	Failure *place  `json:"failure,omitempty"`
}

// data is everything the Python side reads.
type data struct {
	Target   string  `json:"target"`
	Binary   string  `json:"binary"`
	Log      string  `json:"log"`
	Schedule string  `json:"schedule"`
	Shell    bool    `json:"shell"`
	Steps    []step  `json:"steps"`
	Outcome  outcome `json:"outcome"`
}

// Script renders the GDB script of s.
func Script(s *Session) ([]byte, error) {
	if s.Report == nil {
		return nil, errors.New("gdb script: no report of the run")
	}
	if len(s.Kinds) != len(s.Report.Steps) {
		return nil, fmt.Errorf("gdb script: the decision log has %d steps, the report %d", len(s.Kinds), len(s.Report.Steps))
	}
	for _, p := range []struct{ what, path string }{{"program", s.Binary}, {"library", s.Library}, {"decision log", s.Log}} {
		if p.path == "" || !filepath.IsAbs(p.path) {
			return nil, fmt.Errorf("gdb script: the %s path %q is not absolute", p.what, p.path)
		}
		if err := passable(p.what+" path", p.path); err != nil {
			return nil, err
		}
	}
	if strings.ContainsAny(s.Library, " \t:") {
		return nil, fmt.Errorf("gdb script: LD_PRELOAD cannot carry the library path %q (blanks and colons separate its entries): set STDBG_CACHE to a directory without them", s.Library)
	}
	env := []string{"STDBG_REPLAY=" + s.Log, "LD_PRELOAD=" + s.Library}
	for _, kv := range s.Env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("gdb script: environment entry %q is not NAME=VALUE", kv)
		}
		if name == "STDBG_REPLAY" || name == "LD_PRELOAD" {
			return nil, fmt.Errorf("gdb script: the program's environment may not set %s (the replay needs it)", name)
		}
		env = append(env, kv)
	}
	for _, kv := range env {
		if err := passable("environment entry", kv); err != nil {
			return nil, err
		}
	}
	for _, a := range s.Args {
		if err := passable("argument", a); err != nil {
			return nil, err
		}
	}
	shell := !plainArgs(s.Args)
	for _, kv := range env {
		if !plainEnv(kv) {
			shell = true
		}
	}

	d := data{
		Target:   s.Target,
		Binary:   s.Binary,
		Log:      s.Log,
		Schedule: s.Report.Path,
		Shell:    shell,
		Steps:    make([]step, len(s.Report.Steps)),
		Outcome: outcome{
			Kind:    s.Report.Kind,
			Bug:     s.Report.Bug,
			Banner:  s.Report.Banner,
			Message: s.Report.Message,
		},
	}
	for i, st := range s.Report.Steps {
		d.Steps[i] = step{
			Thread: st.Thread, Kind: int(s.Kinds[i]), Create: s.Kinds[i] == syncmodel.ThreadCreate, Exit: s.Kinds[i] == syncmodel.Exit,
			Leaves: s.Kinds[i] == syncmodel.ThreadExit,
			Call:   st.Call, Func: st.Where.Func, File: st.Where.File, Line: st.Where.Line, Source: st.Where.Source,
		}
	}
	for _, w := range s.Report.Waits {
		d.Outcome.Waits = append(d.Outcome.Waits, place{Thread: w.Thread, Text: w.Text, Func: w.Where.Func, File: w.Where.File, Line: w.Where.Line, Source: w.Where.Source})
	}
	if f := s.Report.Failure; f != nil {
		d.Outcome.Failure = &place{Thread: f.Thread, Func: f.Where.Func, File: f.Where.File, Line: f.Where.Line, Source: f.Where.Source}
	}
	js, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("gdb script: %w", err)
	}

	var b bytes.Buffer
	header(&b, s, shell)
	if shell {
		// Arguments with blanks (or environment values GDB's set
		// environment cannot carry): GDB 13 splits the arguments at blanks
		// and honours no quotes when it starts the program without a
		// shell. Start it through /bin/sh instead (the stdbg.py part sets
		// $SHELL for GDB only), and give the library's variables to env(1)
		// in the exec wrapper, so that the shell itself never runs with the
		// library preloaded.
		b.WriteString("set startup-with-shell on\n")
		words := []string{"env"}
		for _, kv := range env {
			words = append(words, shQuote(kv))
		}
		b.WriteString("set exec-wrapper " + strings.Join(words, " ") + "\n")
		quoted := make([]string, len(s.Args))
		for i, a := range s.Args {
			quoted[i] = shQuote(a)
		}
		b.WriteString(strings.TrimRight("set args "+strings.Join(quoted, " "), " ") + "\n")
	} else {
		b.WriteString("set startup-with-shell off\n")
		for _, kv := range env {
			b.WriteString("set environment " + kv + "\n")
		}
		b.WriteString(strings.TrimRight("set args "+strings.Join(s.Args, " "), " ") + "\n")
	}
	b.WriteString("set non-stop off\n")
	b.WriteString("set pagination off\n")
	b.WriteString("set max-value-size unlimited\n")
	b.WriteString(traceLine(s.Report.Steps) + "\n")
	b.WriteString("set $counter = 1\n")
	b.WriteString("python\n")
	b.WriteString("_stdbg_data = \"" + base64.StdEncoding.EncodeToString(js) + "\"\n")
	b.WriteString(pythonSource)
	if !strings.HasSuffix(pythonSource, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("end\n")
	b.WriteString("stdbg-start\n")
	return b.Bytes(), nil
}

// Write writes the script of s to path.
func Write(path string, s *Session) error {
	if s.ScriptPath == "" {
		c := *s
		c.ScriptPath = path
		s = &c
	}
	b, err := Script(s)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing the gdb script: %w", err)
	}
	return nil
}

// traceLine renders the schedule as a GDB array: $trace[i] is the thread
// of step i+1. GDB has no empty arrays: an empty schedule is {0}.
func traceLine(steps []report.Step) string {
	ids := make([]string, len(steps))
	for i, st := range steps {
		ids[i] = fmt.Sprint(st.Thread)
	}
	if len(ids) == 0 {
		ids = []string{"0"}
	}
	return "set $trace = {" + strings.Join(ids, ", ") + "}"
}

// header writes the script's opening comment: how to use it, what it
// holds and how it runs a step.
func header(b *bytes.Buffer, s *Session, shell bool) {
	r := s.Report
	use := "THIS-FILE"
	if s.ScriptPath != "" {
		use = shellWord(s.ScriptPath)
	}
	lines := []string{
		"stdbg replay script for GDB: " + s.Target,
		"",
		"Use:  gdb -q -x " + use,
		"(source it with -x or `source`; not as .gdbinit: GDB's safe-path refuses those)",
		"",
		"It starts the program with the stdbg library preloaded, following the",
		"decision log " + s.Log,
		"(each step's thread, operation and result, from a native run of the schedule",
		"under stdbg), and stops before step 1. No stdbg process runs: the library",
		"follows the log alone and parks every thread but the one whose turn it is.",
		"",
		"Commands:",
		"  stdbg-next       run the step about to run, stop before the next one",
		"  stdbg-finish     run just the step's operation, stop in your code after the",
		"                   call (then next, step, print; stdbg-next goes on)",
		"  stdbg-goto K     run to step K (restarts the program when K is behind);",
		"                   stdbg-goto end runs to the end of the log",
		"  stdbg-where      step k of n, its thread, operation and line, what runs next",
		"  stdbg-trace      the whole schedule, the step about to run marked =>",
		"  stdbg-threads    every stdbg thread: GDB thread, LWP, place in your code",
		"  stdbg-start      start again, stop before step 1",
		"$trace holds the thread of every step of the log ($trace[0] is step 1's: the",
		"schedule, then any steps run after it by the default policy), $counter the",
		"step about to run. Each stop selects the GDB thread that runs next and its",
		"frame in your code (frame N): list, bt, print work there. Needs GDB with",
		"Python (tested with GDB 13).",
		"",
		"How a step runs. stdbg_step(from, to) is called at every transition after",
		"thread `to` got its turn; a silent breakpoint stops there. The step then",
		"runs with scheduler-locking on and thread `to` selected, so only `to` runs",
		"and the thread it hands over to stays frozen until the next stop: every",
		"stop is exact. (With scheduler-locking off, the thread given the turn",
		"would run on while GDB stops the others, past the place shown.)",
		"A step that creates a thread (kind 1 in the log) would hang that way: the",
		"creator waits for the new thread to reach its first operation. Such a step",
		"runs with scheduler-locking off (the library keeps every other thread",
		"parked) until the creator is back from the create call, where a",
		"thread-specific breakpoint stops it; the rest of the step runs with",
		"scheduler-locking on (stdbg-next does both; after a plain `continue`,",
		"continue again). A step that ends the program (exit, main returning) runs",
		"with scheduler-locking off, so that GDB sees the whole process exit.",
		"A thread that finished stays frozen once it has handed over: stdbg-next",
		"first lets such threads exit, each alone (exiting during a step that runs",
		"every thread, they confuse GDB 13's thread list).",
		"scheduler-locking is set at each stop, as it needs a live process.",
		"If you `continue` yourself, keep the thread of the step selected.",
		"The log's end (stdbg_replay_end) and a divergence (stdbg_replay_diverged)",
		"stop the program there, with every thread parked: do not continue then.",
	}
	if shell {
		lines = append(lines, "",
			"The arguments contain blanks (or the environment values GDB cannot set",
			"verbatim): GDB 13 cannot pass those without a shell, so the program starts",
			"through /bin/sh with the library's variables given to env(1) in the exec",
			"wrapper (never to the shell itself).")
	} else {
		lines = append(lines, "",
			"startup-with-shell is off: a shell started with LD_PRELOAD would load the",
			"library itself and consume STDBG_REPLAY. Arguments are passed verbatim.")
	}
	lines = append(lines, "",
		"Program: "+s.Binary,
		"Library: "+s.Library,
		"Schedule: "+r.Path)
	if r.Executed != "" && r.Executed != r.Path {
		lines = append(lines, "Executed: "+r.Executed)
	}
	if r.Banner != "" {
		lines = append(lines, "Outcome: "+strings.TrimSpace(r.Banner+" "+r.Message))
	}
	for _, st := range r.Steps {
		lines = append(lines, fmt.Sprintf("  step %d  thread %d  %s  %s  %s", st.N, st.Thread, st.Call, st.Where.Short(), st.Where.Source))
	}
	for _, w := range r.Waits {
		lines = append(lines, fmt.Sprintf("  thread %d %s  %s  %s", w.Thread, w.Text, w.Where.Short(), w.Where.Source))
	}
	if f := r.Failure; f != nil {
		lines = append(lines, fmt.Sprintf("  thread %d fails  %s  %s", f.Thread, f.Where.Short(), f.Where.Source))
	}
	for _, l := range lines {
		b.WriteString(comment(l) + "\n")
	}
	b.WriteString("\n")
}

// comment renders one line of text as a GDB comment. Control characters
// become spaces, and a line may not end with a backslash: GDB would join
// the next line (a command) to the comment.
func comment(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimRight("# "+s, " ")
	if strings.HasSuffix(s, `\`) {
		s += " ."
	}
	return s
}

// passable reports why a string cannot reach the program through GDB's
// command language at all: GDB reads one command per line.
func passable(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("gdb script: %s %q is not valid UTF-8", what, s)
	}
	if strings.ContainsAny(s, "\n\r\x00") {
		return fmt.Errorf("gdb script: %s %q contains a line break or NUL, which GDB commands cannot carry", what, s)
	}
	return nil
}

// plainArgs reports whether GDB can pass args verbatim without a shell:
// GDB 13 then splits `set args` at blanks and honours no quoting, so no
// argument may be empty or contain a blank, and the line may not end with
// a backslash (a continuation line).
func plainArgs(args []string) bool {
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\r\v\f") {
			return false
		}
	}
	return len(args) == 0 || !strings.HasSuffix(args[len(args)-1], `\`)
}

// plainEnv reports whether `set environment NAME=VALUE` carries kv
// verbatim: GDB drops blanks around the value, and a final backslash would
// continue the line.
func plainEnv(kv string) bool {
	_, v, _ := strings.Cut(kv, "=")
	return strings.TrimSpace(v) == v && !strings.HasSuffix(v, `\`)
}

// shQuote quotes s as one word for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return shQuote(s)
}
