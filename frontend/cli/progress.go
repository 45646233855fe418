package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stdbg/stdbg/engine/search"
)

// ProgressEvery is how often a long search prints a progress line when
// stderr is not a terminal (CI logs, pipes, files). A program running the
// command line in-process (tests) may change it before Run.
var ProgressEvery = 10 * time.Second

// progressLine tells the user how a long search goes. On a terminal it
// keeps one live status line, redrawn at most five times a second and
// erased before the report. Elsewhere it prints a plain line every ten
// seconds, so that a CI log never goes silent for long, and nothing for a
// search that ends sooner.
type progressLine struct {
	w        io.Writer
	terminal bool

	mu      sync.Mutex
	last    time.Time
	shown   bool
	width   int
	stats   search.Stats
	minimal bool // the latest stats are a minimisation's
	start   time.Time
	done    chan struct{}
	stopped sync.Once
}

// newProgress returns a progress display writing to w, or nil when the
// user asked for quiet.
func newProgress(w io.Writer, quiet bool) *progressLine {
	if quiet {
		return nil
	}
	p := &progressLine{w: w, terminal: isTerminalWriter(w), start: time.Now(), done: make(chan struct{})}
	if !p.terminal {
		go p.tick()
	}
	return p
}

// isTerminalWriter reports whether w writes to a terminal.
func isTerminalWriter(w io.Writer) bool {
	var f *os.File
	switch x := w.(type) {
	case *lockedWriter:
		f = x.file()
	case *os.File:
		f = x
	}
	if f == nil {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// colour reports whether stdout gets colours: on a terminal, unless
// NO_COLOR is set (https://no-color.org) or TERM is dumb.
func (a *app) colour() bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && isTerminalWriter(a.stdout)
}

// tick prints the latest statistics every ProgressEvery until stop.
func (p *progressLine) tick() {
	t := time.NewTicker(ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			fmt.Fprintln(p.w, p.text(time.Since(p.start), false))
			p.mu.Unlock()
		}
	}
}

// stop ends the periodic lines; the display says nothing afterwards.
func (p *progressLine) stop() {
	if p == nil {
		return
	}
	p.stopped.Do(func() { close(p.done) })
	p.clear()
}

// minimising shows the progress of a minimisation.
func (p *progressLine) minimising(s search.Stats) {
	p.record(s, true)
}

// update shows the progress of the search.
func (p *progressLine) update(s search.Stats) {
	p.record(s, false)
}

// record keeps s and, on a terminal, redraws the line at most five times
// a second.
func (p *progressLine) record(s search.Stats, minimising bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats, p.minimal = s, minimising
	if !p.terminal || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw(p.text(s.Elapsed, true))
}

// text renders the latest statistics; elapsed is the time to show.
func (p *progressLine) text(elapsed time.Duration, terminal bool) string {
	s := p.stats
	hint := ""
	if terminal {
		hint = "  (Ctrl-C stops)"
	}
	if p.minimal {
		return fmt.Sprintf("stdbg: minimising: %d executions  best %d steps  %s%s",
			s.Executions, s.Depth, elapsed.Round(time.Second), hint)
	}
	rate := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		rate = float64(s.Executions) / sec
	}
	return fmt.Sprintf("stdbg: %d executions  %d transitions  depth %d  %.0f exec/s  %s  bugs %d%s%s",
		s.Executions, s.Transitions, s.Depth, rate, elapsed.Round(time.Second), s.Bugs, left(s), hint)
}

// left says how much of an exhaustive search is done and how long the
// rest may take, from the search's estimate of its tree (Stats.Explored)
// and the time so far: "  ~12% explored, ~1m10s left" ("" without an
// estimate).
func left(s search.Stats) string {
	f := s.Explored
	if f <= 0 || f >= 1 || s.Elapsed <= 0 {
		return ""
	}
	pct := fmt.Sprintf("%.0f%%", 100*f)
	if f < 0.01 {
		pct = fmt.Sprintf("%.2g%%", 100*f)
	}
	rest := float64(s.Elapsed) * (1 - f) / f
	when := "over 100 years"
	if rest < float64(100*365*24*time.Hour) {
		when = roughDuration(time.Duration(rest))
	}
	return fmt.Sprintf("  ~%s explored, ~%s left", pct, when)
}

// roughDuration renders an estimated duration to two units at most:
// "40s", "3m10s", "5h20m", "12 days", "over 100 years".
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		d = d.Round(10 * time.Second)
		m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
		if s == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%ds", m, s)
	case d < 48*time.Hour:
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	case d < 100*365*24*time.Hour:
		days := d.Hours() / 24
		if days < 730 {
			return fmt.Sprintf("%.0f days", days)
		}
		return fmt.Sprintf("%.0f years", days/365)
	}
	return "over 100 years"
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

// clear removes the live line before the report is printed.
func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.shown {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	p.shown = false
}
