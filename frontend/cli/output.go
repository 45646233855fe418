package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stdbg/stdbg/engine/report"
	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/output/htmltrace"
	"github.com/stdbg/stdbg/output/sarif"
	"github.com/stdbg/stdbg/output/stategraph"
)

// checkOutput refuses, before any work, an output file that could not be
// written: its directory is missing or is not a directory.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return usageErr("--%s %s: the directory %s does not exist", flag, path, dir)
	}
	if !st.IsDir() {
		return usageErr("--%s %s: %s is not a directory", flag, path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErr("--%s %s: a directory is in the way", flag, path)
	}
	return nil
}

// writeSARIF writes the bugs as a SARIF 2.1.0 log, with paths relative to
// the current directory (run stdbg from the repository root for code
// scanning); problems are inputs that could not be judged.
func writeSARIF(path string, reports []*report.Report, problems []string) error {
	base, _ := os.Getwd()
	b, err := sarif.New(reports, sarif.Options{ToolVersion: version, Base: base, Problems: problems}).JSON()
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// writeHTML writes the reports as one self-contained HTML page.
func writeHTML(path, title string, reports []*report.Report, summary []string) error {
	var b bytes.Buffer
	if err := htmltrace.Write(&b, reports, htmltrace.Options{Title: title, Version: version, Summary: summary}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.Write(path, b.Bytes())
}

// writeGraph writes the state space a find recorded as DOT, or refuses
// when it grew past the limit.
func writeGraph(path string, g *stategraph.Recorder, title string) error {
	if g.Over() {
		return usageErr("--graph %s: the search went past %d states, too many to draw: not written (bound it with --max-depth or --executions, or draw a smaller program)",
			path, graphLimit)
	}
	var b bytes.Buffer
	if err := g.Graph().WriteDOT(&b, title); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := atomicfile.Write(path, b.Bytes()); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return nil
}
