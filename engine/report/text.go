package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/internal/rtnames"
)

// WriteText renders the report as the user reads it in a terminal, in
// plain text.
func (r *Report) WriteText(w io.Writer) error { return r.WriteStyled(w, false) }

// Escape sequences of the styled text.
const (
	styleBug   = "\x1b[1;31m" // bold red
	styleClean = "\x1b[1;32m" // bold green
	styleWarn  = "\x1b[1;33m" // bold yellow
	styleReset = "\x1b[0m"
)

// Style wraps a headline in the colour of its kind (bug: red, depth bound:
// yellow, anything else: green) when colour is set, and returns it as it
// is otherwise.
func Style(headline string, bug, colour bool) string {
	if !colour {
		return headline
	}
	switch {
	case bug:
		return styleBug + headline + styleReset
	case strings.HasPrefix(headline, "/!\\"):
		return styleWarn + headline + styleReset
	}
	return styleClean + headline + styleReset
}

// Clean makes text that comes from the program or from a corpus entry
// safe to print: control characters (escape sequences, carriage returns,
// bells) are shown as \xNN instead of acting on the terminal. Tabs stay.
func Clean(s string) string {
	clean := true
	for _, c := range s {
		if isControl(c) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if isControl(c) {
			fmt.Fprintf(&b, "\\x%02x", c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isControl(c rune) bool {
	return c != '\t' && (c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0)
}

// WriteStyled renders the report as WriteText does, with the banner in
// colour when colour is set (on a terminal, NO_COLOR unset). Text that
// comes from the program is cleaned of control characters either way.
func (r *Report) WriteStyled(w io.Writer, colour bool) error {
	var b strings.Builder
	b.WriteString(Style(r.Banner, r.Bug, colour) + "\n")
	if r.Message != "" {
		// Go's race detector writes its report on several lines, with
		// both stacks, and a test's log (an assertion library's message)
		// has its own: keep them apart, each line cleaned.
		for _, line := range strings.Split(strings.TrimRight(r.Message, "\n"), "\n") {
			b.WriteString(Clean(line) + "\n")
		}
	}
	if r.Cycle != "" {
		b.WriteString("Path = " + r.Path + " (" + r.Cycle + ")*\n")
	} else {
		b.WriteString("Path = " + r.Path + "\n")
	}
	if r.Executed != "" && r.Executed != r.Path {
		b.WriteString("Executed = " + r.Executed + "\n")
	}
	rows := make([][3]string, 0, len(r.Steps)+len(r.Waits)+1)
	for _, s := range r.Steps {
		if r.Cycle != "" && s.N == r.CycleStart {
			rows = append(rows, [3]string{"-- cycle, repeated forever:", "", ""})
		}
		what := fmt.Sprintf("step %d  thread %d  %s", s.N, s.Thread, Clean(s.Call))
		if s.Props != "" {
			what = fmt.Sprintf("step %d  [%s]  thread %d  %s", s.N, Clean(s.Props), s.Thread, Clean(s.Call))
		}
		rows = append(rows, [3]string{what, Clean(s.Where.Short()), Clean(s.Where.Source)})
	}
	for _, wt := range r.Waits {
		rows = append(rows, [3]string{fmt.Sprintf("thread %d %s", wt.Thread, Clean(wt.Text)), Clean(wt.Where.Short()), Clean(wt.Where.Source)})
	}
	if r.Failure != nil {
		verb := "fails"
		switch r.Kind {
		case "crash":
			verb = "crashes"
		case "timeout":
			verb = "is stuck"
		}
		rows = append(rows, [3]string{fmt.Sprintf("thread %d %s", r.Failure.Thread, verb), Clean(r.Failure.Where.Short()), Clean(r.Failure.Where.Source)})
	}
	writeColumns(&b, rows)
	if len(r.Stack) > 0 {
		b.WriteString("  stack of the failing thread:\n")
		shown := 0
		for i, f := range r.Stack {
			if shown >= 12 {
				fmt.Fprintf(&b, "    ... %d more frames\n", len(r.Stack)-i)
				break
			}
			loc := f.Module
			if f.File != "" && f.Line > 0 {
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			name := f.Func
			if name == "" {
				name = "??"
			}
			fmt.Fprintf(&b, "    #%d %s (%s)\n", i, Clean(name), Clean(loc))
			shown++
		}
	}
	for _, s := range r.Stalls {
		b.WriteString("  timing: " + Clean(s.Text()) + "\n")
	}
	for _, n := range r.Notes {
		b.WriteString("  note: " + Clean(n) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeColumns aligns "what  where  source" rows.
func writeColumns(b *strings.Builder, rows [][3]string) {
	w0, w1 := 0, 0
	for _, r := range rows {
		if len(r[0]) > w0 {
			w0 = len(r[0])
		}
		if len(r[1]) > w1 {
			w1 = len(r[1])
		}
	}
	if w0 > 70 {
		w0 = 70
	}
	for _, r := range rows {
		line := "  " + pad(r[0], w0) + "  " + pad(r[1], w1)
		if r[2] != "" {
			line += "  " + r[2]
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// JSON renders the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	return json.MarshalIndent(r, "", "  ")
}

// raceAccess is the head of an access in a report of Go's race detector,
// e.g. "Previous write at 0x00c000012345 by goroutine 7:".
var raceAccess = lazyre.New(`^(Read|Write|Previous read|Previous write|Atomic read|Atomic write|Previous atomic read|Previous atomic write)(?: at 0x[0-9a-f]+)? by (goroutine \d+|thread \d+|main goroutine):$`)

// raceFrameLine is a source line of a frame in such a report.
var raceFrameLine = lazyre.New(`^\s+(\S+\.go):(\d+)`)

// runtimeFrame reports whether fn, the function line of a frame in a
// report of Go's race detector, is the Go runtime's (the map code that
// makes a map access, for one).
func runtimeFrame(fn string) bool {
	fn = strings.TrimSpace(fn)
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/")
}

// frameFunc returns the function of a frame's first line in a report of
// Go's race detector ("  main.f()": "main.f").
func frameFunc(line string) string {
	fn, _ := strings.CutSuffix(strings.TrimSpace(line), "()")
	return fn
}

// Summary returns a message on one line: the message itself when it has
// one line, else for a report of Go's race detector its two accesses with
// their first source lines outside the Go runtime and stdbg's
// ("write by goroutine 11 at a.go:49; previous read by goroutine 10 at
// a.go:55"; stdbg's runtime tells the detector of the accesses that Go's
// channel operations make), else its first line.
func Summary(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if len(lines) == 1 {
		return Clean(msg)
	}
	var parts []string
	for i, l := range lines {
		m := raceAccess.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		part := strings.ToLower(m[1][:1]) + m[1][1:] + " by " + m[2]
		at := ""
		for j, f := range lines[i+1:] {
			fm := raceFrameLine.FindStringSubmatch(f)
			if fm == nil {
				if raceAccess.MatchString(f) || strings.TrimSpace(f) == "" {
					break
				}
				continue
			}
			own := runtimeFrame(lines[i+j]) || rtnames.IsRuntimeFunc(frameFunc(lines[i+j]))
			if at == "" || !own {
				at = " at " + filepath.Base(fm[1]) + ":" + fm[2]
			}
			if !own {
				break
			}
		}
		parts = append(parts, part+at)
	}
	if len(parts) == 0 {
		return Clean(lines[0])
	}
	return Clean(strings.Join(parts, "; "))
}
