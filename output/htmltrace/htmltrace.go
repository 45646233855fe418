// Package htmltrace renders bug reports as one self-contained HTML page
// (no network: styles, script and pictures are inline): each schedule as
// lanes, one column per thread or goroutine and one row per step, with the
// operation and its source line in the lane of the thread that ran it, a
// few lines of source around it shown on hover or click; then who waits
// for what at the end, with a small waits-for graph for a deadlock, the
// failing thread's stack, the cycle of a lasso marked as repeating, and the
// commands that replay the bug.
package htmltrace

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/stdbg/stdbg/internal/lazyre"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/internal/symbolize"
)

//go:embed page.html
var pageText string

// page is the page's template, parsed when a page is first written, not
// at every stdbg command's start.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageText))
})

// Options are what a page needs besides the reports.
type Options struct {
	// Title heads the page (the program checked).
	Title string
	// Version is stdbg's version, shown at the foot.
	Version string
	// Context is how many lines of source to show around each step's
	// line (default 3).
	Context int
	// Summary is a line about the search (coverage, statistics).
	Summary []string
}

// Write renders the reports as one page.
func Write(w io.Writer, reports []*report.Report, o Options) error {
	if o.Context <= 0 {
		o.Context = 3
	}
	d := pageData{Title: o.Title, Version: o.Version, Summary: o.Summary}
	for i, r := range reports {
		d.Bugs = append(d.Bugs, build(i, r, o.Context))
	}
	var b bytes.Buffer
	if err := page().Execute(&b, d); err != nil {
		return fmt.Errorf("rendering the HTML page: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

type pageData struct {
	Title, Version string
	Summary        []string
	Bugs           []bugData
}

type bugData struct {
	ID                  string
	Banner, Kind, Class string
	Message, Path       string
	Cycle               string
	Threads             []int
	Cols                int // the step column and one per thread
	Rows                []rowData
	Graph               template.HTML // the waits-for graph (SVG), or ""
	Stack               []report.Frame
	StackThread         int
	Replay              []string
	Notes               []string
}

// rowData is one row of the lanes: a step, the start of the cycle, a wait
// or the failure.
type rowData struct {
	Class string // step, cycle-start, wait, failure
	N     int
	Cells []cellData
	InCyc bool
}

type cellData struct {
	Text   string
	Where  string
	Source *sourceData
}

type sourceData struct {
	File  string
	Lines []lineData
}

type lineData struct {
	N       int
	Text    string
	Current bool
}

func build(i int, r *report.Report, context int) bugData {
	d := bugData{ID: fmt.Sprintf("bug%d", i+1), Banner: r.Banner, Kind: r.Kind, Message: r.Message, Path: r.Path,
		Cycle: r.Cycle, Notes: r.Notes}
	d.Class = "clean"
	switch {
	case r.Bug:
		d.Class = "bug"
	case r.Kind == "max-depth":
		d.Class = "warn"
	}
	seen := map[int]bool{}
	addThread := func(t int) {
		if t > 0 && !seen[t] {
			seen[t] = true
			d.Threads = append(d.Threads, t)
		}
	}
	for _, s := range r.Steps {
		addThread(s.Thread)
	}
	for _, w := range r.Waits {
		addThread(w.Thread)
	}
	if r.Failure != nil {
		addThread(r.Failure.Thread)
	}
	sort.Ints(d.Threads)
	d.Cols = len(d.Threads) + 1
	col := map[int]int{}
	for i, t := range d.Threads {
		col[t] = i
	}
	row := func(class string, n, thread int, text string, at report.Location, inCycle bool) rowData {
		cells := make([]cellData, len(d.Threads))
		c := cellData{Text: text, Where: at.Short()}
		if at.File == "" {
			c.Where = ""
		}
		if first, lines, ok := symbolize.SourceContext(at.File, at.Line, context); ok {
			src := &sourceData{File: at.File}
			for k, l := range lines {
				src.Lines = append(src.Lines, lineData{N: first + k, Text: l, Current: first+k == at.Line})
			}
			c.Source = src
		} else if at.Source != "" {
			c.Source = &sourceData{File: at.File, Lines: []lineData{{N: at.Line, Text: at.Source, Current: true}}}
		}
		cells[col[thread]] = c
		return rowData{Class: class, N: n, Cells: cells, InCyc: inCycle}
	}
	for _, s := range r.Steps {
		inCycle := r.Cycle != "" && s.N >= r.CycleStart
		if r.Cycle != "" && s.N == r.CycleStart {
			d.Rows = append(d.Rows, rowData{Class: "cycle-start", Cells: make([]cellData, len(d.Threads))})
		}
		text := s.Call
		if s.Props != "" {
			text += "  [" + s.Props + "]"
		}
		d.Rows = append(d.Rows, row("step", s.N, s.Thread, text, s.Where, inCycle))
	}
	for _, w := range r.Waits {
		d.Rows = append(d.Rows, row("wait", 0, w.Thread, w.Text, w.Where, false))
	}
	if f := r.Failure; f != nil {
		verb := "fails"
		switch r.Kind {
		case "crash":
			verb = "crashes"
		case "timeout":
			verb = "is stuck"
		}
		d.Rows = append(d.Rows, row("failure", 0, f.Thread, verb+": "+r.Message, f.Where, false))
		d.StackThread = f.Thread
	}
	d.Stack = r.Stack
	if len(r.Waits) > 0 {
		d.Graph = waitsFor(r.Waits)
	}
	if r.Replay != "" {
		d.Replay = append(d.Replay, r.Replay)
		if strings.HasPrefix(r.Replay, "stdbg replay ") && !strings.Contains(r.Replay, "--") {
			rest := strings.TrimPrefix(r.Replay, "stdbg replay ")
			d.Replay = append(d.Replay, "stdbg replay --gdb "+rest+"    # C, C++: under GDB", "stdbg replay --dlv "+rest+"    # Go: under Delve")
		}
	}
	return d
}

var (
	heldBy = lazyre.New(`held by (?:thread|goroutine)s? ([0-9, ]+)`)
	joins  = lazyre.New(`for (?:thread|goroutine) (\d+) to (?:exit|finish)`)
)

// holders are the threads holding what a wait waits for (a lock's owner,
// the thread a join waits to end), when the wait names them.
func holders(w report.Wait) []int {
	if len(w.Holders) > 0 {
		return w.Holders
	}
	if m := joins.FindStringSubmatch(w.Text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return []int{n}
	}
	m := heldBy.FindStringSubmatch(w.Text)
	if m == nil {
		return nil
	}
	var out []int
	for _, f := range strings.Split(m[1], ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// edge is an arrow of the waits-for graph: from waits for to. A sure edge
// goes to the thread that holds what from waits for; the others go to
// each thread that could give it (a signal, a value, a unit): the other
// blocked threads, or nobody (to = 0) when none is left.
type edge struct {
	from, to int
	sure     bool
	why      string
}

// edges are the arrows of every wait of a report.
func edges(waits []report.Wait) []edge {
	var out []edge
	for _, w := range waits {
		if hs := holders(w); len(hs) > 0 {
			for _, h := range hs {
				out = append(out, edge{from: w.Thread, to: h, sure: true, why: w.Text})
			}
			continue
		}
		n := 0
		for _, o := range waits {
			if o.Thread != w.Thread {
				out = append(out, edge{from: w.Thread, to: o.Thread, why: w.Text})
				n++
			}
		}
		if n == 0 {
			out = append(out, edge{from: w.Thread, to: 0, why: w.Text})
		}
	}
	return out
}

// waitsFor draws the blocked threads on a circle, with an arrow from each
// to the threads holding what it waits for (solid), or, for a wait that
// no thread holds (a condition variable, a channel, a semaphore, a
// WaitGroup, a barrier), to each thread that could end it (dashed): the
// other blocked threads, or a node "nobody" when no thread is left.
func waitsFor(waits []report.Wait) template.HTML {
	es := edges(waits)
	nodes := map[int]bool{}
	var ids []int
	add := func(t int) {
		if !nodes[t] {
			nodes[t] = true
			ids = append(ids, t)
		}
	}
	for _, w := range waits {
		add(w.Thread)
	}
	for _, e := range es {
		add(e.to)
	}
	sort.Ints(ids)
	if len(ids) > 0 && ids[0] == 0 {
		ids = append(ids[1:], 0) // nobody last
	}
	const size, radius, node = 260.0, 85.0, 24.0
	pos := map[int][2]float64{}
	for i, id := range ids {
		a := 2*math.Pi*float64(i)/float64(len(ids)) - math.Pi/2
		pos[id] = [2]float64{size/2 + radius*math.Cos(a), size/2 + radius*math.Sin(a)}
	}
	if len(ids) == 1 {
		pos[ids[0]] = [2]float64{size / 2, size / 2}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="waits-for" xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="waits-for graph">`,
		size, size, size, size)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker></defs>`)
	for _, e := range es {
		p, q := pos[e.from], pos[e.to]
		class, dash := "edge", ""
		if !e.sure {
			class, dash = "edge could", ` stroke-dasharray="5,4"`
		}
		title := "<title>" + html.EscapeString(e.why) + "</title>"
		if e.to == e.from {
			fmt.Fprintf(&b, `<path class="%s" data-from="%d" data-to="%d" d="M%.1f,%.1f c 40,-50 60,10 %.1f,%.1f" fill="none" stroke="#b3261e" stroke-width="2"%s marker-end="url(#arrow)">%s</path>`,
				class, e.from, e.to, p[0]+node*0.7, p[1]-node*0.7, node*0.05, node*1.4, dash, title)
			continue
		}
		// A curve bending to the left of its direction, so that
		// the two arrows of a cycle of two do not overlap.
		dx, dy := q[0]-p[0], q[1]-p[1]
		l := math.Hypot(dx, dy)
		ux, uy := dx/l, dy/l
		nx, ny := uy, -ux
		const bend = 22.0
		cx, cy := (p[0]+q[0])/2+nx*bend, (p[1]+q[1])/2+ny*bend
		sx, sy := p[0]+ux*node*0.9+nx*node*0.45, p[1]+uy*node*0.9+ny*node*0.45
		ex, ey := q[0]-ux*(node*0.9+2)+nx*node*0.45, q[1]-uy*(node*0.9+2)+ny*node*0.45
		fmt.Fprintf(&b, `<path class="%s" data-from="%d" data-to="%d" d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" fill="none" stroke="#b3261e" stroke-width="2"%s marker-end="url(#arrow)">%s</path>`,
			class, e.from, e.to, sx, sy, cx, cy, ex, ey, dash, title)
	}
	for _, id := range ids {
		p := pos[id]
		label := fmt.Sprintf("T%d", id)
		if id == 0 {
			label = "nobody"
		}
		fmt.Fprintf(&b, `<g class="node" data-thread="%d"><circle cx="%.1f" cy="%.1f" r="%.0f" fill="#fff4e5" stroke="#7a4b00" stroke-width="2"/>`+
			`<text x="%.1f" y="%.1f" text-anchor="middle" dominant-baseline="central" font-size="13">%s</text></g>`,
			id, p[0], p[1], node, p[0], p[1], label)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers and escaped text only
}
