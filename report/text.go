package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText renders the report as the user reads it in a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Banner + "\n")
	if r.Message != "" {
		b.WriteString(r.Message + "\n")
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
		what := fmt.Sprintf("step %d  thread %d  %s", s.N, s.Thread, s.Call)
		if s.Props != "" {
			what = fmt.Sprintf("step %d  [%s]  thread %d  %s", s.N, s.Props, s.Thread, s.Call)
		}
		rows = append(rows, [3]string{what, s.Where.Short(), s.Where.Source})
	}
	for _, wt := range r.Waits {
		rows = append(rows, [3]string{fmt.Sprintf("thread %d %s", wt.Thread, wt.Text), wt.Where.Short(), wt.Where.Source})
	}
	if r.Failure != nil {
		verb := "fails"
		switch r.Kind {
		case "crash":
			verb = "crashes"
		case "timeout":
			verb = "is stuck"
		}
		rows = append(rows, [3]string{fmt.Sprintf("thread %d %s", r.Failure.Thread, verb), r.Failure.Where.Short(), r.Failure.Where.Source})
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
			fmt.Fprintf(&b, "    #%d %s (%s)\n", i, name, loc)
			shown++
		}
	}
	for _, n := range r.Notes {
		b.WriteString("  note: " + n + "\n")
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
