package main

import (
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/search"
)

// progressLine keeps one live status line on a terminal during a search.
type progressLine struct {
	w     io.Writer
	last  time.Time
	shown bool
	width int
}

// newProgress returns a progress display writing to w, or nil when w is
// not a terminal (pipes and files get no progress noise).
func newProgress(w io.Writer) *progressLine {
	lw, ok := w.(*lockedWriter)
	if !ok || lw.file() == nil {
		return nil
	}
	if _, err := unix.IoctlGetTermios(int(lw.file().Fd()), unix.TCGETS); err != nil {
		return nil
	}
	return &progressLine{w: w}
}

// minimising shows the progress of a minimisation.
func (p *progressLine) minimising(s search.Stats) {
	if p == nil || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw(fmt.Sprintf("stdbg: minimising: %d executions  best %d steps  %s  (Ctrl-C stops)",
		s.Executions, s.Depth, s.Elapsed.Round(time.Second)))
}

// update redraws the line, at most five times a second.
func (p *progressLine) update(s search.Stats) {
	if p == nil || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	rate := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		rate = float64(s.Executions) / sec
	}
	p.draw(fmt.Sprintf("stdbg: %d executions  %d transitions  depth %d  %.0f exec/s  %s  bugs %d  (Ctrl-C stops)",
		s.Executions, s.Transitions, s.Depth, rate, s.Elapsed.Round(time.Second), s.Bugs))
}

// draw writes line over the previous one.
func (p *progressLine) draw(line string) {
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = fmt.Sprintf("%*s", n, "")
	}
	p.width = len(line)
	fmt.Fprint(p.w, "\r"+line+pad)
	p.shown = true
}

// clear removes the line before the report is printed.
func (p *progressLine) clear() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	p.shown = false
}
