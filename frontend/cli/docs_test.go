package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/shellwords"
)

// The command lines of the documents: the README's first commands must
// work as written, and every stdbg command line shown anywhere in
// README.md, ARCHITECTURE.md and docs/*.md must name a command that exists
// with flags it takes.

// repoRoot is the repository, from this package's directory.
var repoRoot = filepath.Join("..", "..")

// commands splits words into the simple commands of a list or pipeline,
// without environment assignments in front and redirections.
func commands(words []string) [][]string {
	var out [][]string
	var cur []string
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w {
		case ";", "&", "&&", "|", "||":
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
		case "<", ">", ">>":
			i++ // the file
		default:
			if len(cur) == 0 && strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
				continue // NAME=value
			}
			cur = append(cur, w)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// checkStdbgArgs checks stdbg's arguments (without "stdbg"): the command
// exists and takes the flags given. With strict, the positional arguments
// must also be as many as the command takes, and those that look like
// paths must exist in the repository.
func checkStdbgArgs(args []string, strict bool) error {
	args = translateCfg(args)
	root := newRoot(nil, io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root {
		if len(args) > 0 && (args[0] == "--version" || args[0] == "-v") {
			return nil
		}
		return errors.New("no such command")
	}
	if !cmd.Runnable() {
		return fmt.Errorf("%s is not a command of its own (name a subcommand)", cmd.CommandPath())
	}
	for i, a := range rest {
		if a == "--" {
			rest = rest[:i] // the rest is the program's own arguments
			break
		}
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return fmt.Errorf("%s: %v", cmd.CommandPath(), err)
	}
	if !strict {
		return nil
	}
	pos := cmd.Flags().Args()
	if err := cmd.ValidateArgs(pos); err != nil {
		return fmt.Errorf("%s: %v", cmd.CommandPath(), err)
	}
	for _, a := range pos {
		if strings.Contains(a, "/") || filepath.Ext(a) != "" {
			if _, err := os.Stat(filepath.Join(repoRoot, a)); err != nil {
				return fmt.Errorf("%s: %s does not exist", cmd.CommandPath(), a)
			}
		}
	}
	return nil
}

// checkGoArgs checks the go command lines of the README's first block:
// go run of stdbg, with stdbg's arguments, and go test of package patterns
// that name directories of the repository.
func checkGoArgs(args []string) error {
	if len(args) == 0 {
		return errors.New("go with no command")
	}
	switch args[0] {
	case "run":
		if len(args) < 2 || args[1] != "./cmd/stdbg" {
			return fmt.Errorf("go run of %v, not of ./cmd/stdbg", args[1:])
		}
		return checkStdbgArgs(args[2:], true)
	case "test":
		pkgs := 0
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			pkgs++
			dir := strings.TrimSuffix(strings.TrimSuffix(a, "..."), "/")
			if st, err := os.Stat(filepath.Join(repoRoot, dir)); err != nil || !st.IsDir() {
				return fmt.Errorf("go test: %s names no directory of the repository", a)
			}
		}
		if pkgs == 0 {
			return errors.New("go test of no package")
		}
		return nil
	}
	return fmt.Errorf("go %s: not a command the README's first lines may show", args[0])
}

// A fencedLine is a line of a fenced code block of a document.
type fencedLine struct {
	file string
	line int    // from 1
	info string // the block's info string: sh, go, ...
	text string
}

// fencedLines returns the lines inside the fenced code blocks of md.
func fencedLines(file, md string) []fencedLine {
	var out []fencedLine
	fence, info := "", ""
	for i, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			info = strings.TrimSpace(strings.TrimLeft(t, t[:1]))
		case fence != "" && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			fence = ""
		case fence != "":
			out = append(out, fencedLine{file, i + 1, info, l})
		}
	}
	return out
}

// TestReadmeFirstCommands checks the commands of the README's first code
// block: go run of stdbg on a bundled example, and go test. The
// subcommand must exist, take the flags given and the number of arguments
// given, and the files they name must exist.
func TestReadmeFirstCommands(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := fencedLines("README.md", string(data))
	if len(lines) == 0 || lines[0].line > 30 {
		t.Fatalf("the README has no code block in its first 30 lines")
	}
	first := lines[0].line
	var saw []string
	for _, l := range lines {
		if l.line != first+len(saw) {
			break // the first block ended
		}
		saw = append(saw, l.text)
		words, err := shellwords.Split(l.text)
		if err != nil {
			t.Errorf("README.md:%d: %v", l.line, err)
			continue
		}
		for _, c := range commands(words) {
			var err error
			switch c[0] {
			case "go":
				err = checkGoArgs(c[1:])
			case "stdbg":
				err = checkStdbgArgs(c[1:], true)
			default:
				err = fmt.Errorf("%s: not a command the README's first lines may show", c[0])
			}
			if err != nil {
				t.Errorf("README.md:%d: %s: %v", l.line, strings.TrimSpace(l.text), err)
			}
		}
	}
	block := strings.Join(saw, "\n")
	for _, want := range []string{"go run ./cmd/stdbg find ", "go test ./..."} {
		if !strings.Contains(block, want) {
			t.Errorf("the README's first code block does not show %q:\n%s", want, block)
		}
	}
}

// TestDocumentCommandLines checks every stdbg command line of the
// documents: in shell blocks, the lines that run stdbg (with environment
// assignments, in lists and pipelines); in other blocks, the lines of a
// session transcript ($ stdbg ...); and in the README's Commands table,
// the command of each row. Each must name an existing command and pass it
// flags it takes.
func TestDocumentCommandLines(t *testing.T) {
	files := []string{"README.md", "ARCHITECTURE.md"}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range fencedLines(f, string(data)) {
			text := strings.TrimSpace(l.text)
			shell := l.info == "sh" || l.info == "shell" || l.info == "bash"
			switch {
			case strings.HasPrefix(text, "$ "):
				text = strings.TrimPrefix(text, "$ ")
			case !shell:
				continue
			}
			words, err := shellwords.Split(text)
			if err != nil {
				t.Errorf("%s:%d: %v", l.file, l.line, err)
				continue
			}
			for _, c := range commands(words) {
				if c[0] != "stdbg" {
					continue
				}
				checked++
				if err := checkStdbgArgs(c[1:], false); err != nil {
					t.Errorf("%s:%d: %s: %v", l.file, l.line, text, err)
				}
			}
		}
	}
	// The Commands table of the README: `stdbg CMD ...` in the first cell.
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Commands\n")
	if !ok {
		t.Fatal("README.md has no Commands section")
	}
	rows := 0
	for i, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "## ") {
			break
		}
		cells := strings.Split(l, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`stdbg ") {
			continue
		}
		rows++
		cmd := strings.Trim(strings.Split(strings.TrimSpace(cells[1]), "`")[1], " ")
		words, err := shellwords.Split(cmd)
		if err == nil {
			err = checkStdbgArgs(words[1:], false)
		}
		if err != nil {
			t.Errorf("README.md, Commands, row %d: %s: %v", i, cmd, err)
		}
	}
	if rows < 5 || checked < 20 {
		t.Errorf("checked %d command lines and %d rows of the Commands table: the extraction is broken", checked, rows)
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`stdbg find --max-depth 10 ./prog -- input.txt`, []string{"stdbg", "find", "--max-depth", "10", "./prog", "--", "input.txt"}},
		{`stdbg replay --schedule '1;1;2' prog.c  # a comment`, []string{"stdbg", "replay", "--schedule", "1;1;2", "prog.c"}},
		{`STDBG_ZOO=1 stdbg find -run "^TestX$" ./p`, []string{"STDBG_ZOO=1", "stdbg", "find", "-run", "^TestX$", "./p"}},
		{`stdbg cc -o p p.c && stdbg find ./p`, []string{"stdbg", "cc", "-o", "p", "p.c", "&&", "stdbg", "find", "./p"}},
		{`go tool pprof -top x.pprof > out.txt`, []string{"go", "tool", "pprof", "-top", "x.pprof", ">", "out.txt"}},
		{`a\ b "c \"d\""`, []string{"a b", `c "d"`}},
	}
	for _, tt := range tests {
		got, err := shellwords.Split(tt.line)
		if err != nil || strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("shellwords.Split(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	if _, err := shellwords.Split(`stdbg replay --schedule '1;2`); err == nil {
		t.Error("an unterminated quote: no error")
	}
	cs := commands([]string{"STDBG_ZOO=1", "stdbg", "find", "&&", "dot", "-Tsvg", ">", "x.svg", "|", "cat"})
	if len(cs) != 3 || cs[0][0] != "stdbg" || len(cs[1]) != 2 || cs[2][0] != "cat" {
		t.Errorf("commands = %q", cs)
	}
}

func TestCheckStdbgArgs(t *testing.T) {
	tests := []struct {
		args   []string
		strict bool
		ok     bool
	}{
		{[]string{"find", "examples/c/deadly-embrace.c"}, true, true},
		{[]string{"find", "--max-depth", "10", "examples/c/deadly-embrace.c", "--", "a", "b"}, true, true},
		{[]string{"find", "--cfg=model-check/max-depth:10", "-run", "TestX", "examples/go/embrace-test"}, true, true},
		{[]string{"find", "examples/c/no-such-example.c"}, true, false},
		{[]string{"find", "examples/c/no-such-example.c"}, false, true},
		{[]string{"find", "--no-such-flag", "x.c"}, false, false},
		{[]string{"frobnicate", "x.c"}, false, false},
		{[]string{"corpus"}, false, false},
		{[]string{"corpus", "run", "--junit", "f.xml"}, false, true},
		{[]string{"--version"}, false, true},
	}
	for _, tt := range tests {
		err := checkStdbgArgs(tt.args, tt.strict)
		if (err == nil) != tt.ok {
			t.Errorf("checkStdbgArgs(%q, %v) = %v, want ok %v", tt.args, tt.strict, err, tt.ok)
		}
	}
}
