package doclinks

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Commands", "commands"},
		{"What a run looks like", "what-a-run-looks-like"},
		{"Plain memory: --memory", "plain-memory---memory"},
		{"Reuse (flag 32)", "reuse-flag-32"},
		{"Fourth round: issue 36", "fourth-round-issue-36"},
		{"Stateful search (--visited)", "stateful-search---visited"},
		{"stdbg find on Go programs and tests", "stdbg-find-on-go-programs-and-tests"},
		{"Annotations: stdbg.h", "annotations-stdbgh"},
		{"snake_case and Ünïcode", "snake_case-and-ünïcode"},
	}
	for _, tt := range tests {
		if got := Slug(tt.heading); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

func TestLinks(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []Link
	}{
		{"inline", "See [the page](docs/c.md) and [its part](docs/c.md#data-races).\n",
			[]Link{{"docs/c.md", 1}, {"docs/c.md#data-races", 1}}},
		{"image and title", "intro\n\n![a picture](img/a.png \"A title\")\n",
			[]Link{{"img/a.png", 3}}},
		{"text over two lines", "a [long\nlabel](#anchor) b\n", []Link{{"#anchor", 1}}},
		{"angle brackets", "[x](<docs/a b.md>)\n", []Link{{"docs/a b.md", 1}}},
		{"reference definition", "[x][y]\n\n[y]: docs/y.md \"Y\"\n", []Link{{"docs/y.md", 3}}},
		{"raw HTML", "<img src=\"img/a.svg\" alt=\"\">\n<a href=\"docs/a.md\">a</a>\n",
			[]Link{{"img/a.svg", 1}, {"docs/a.md", 2}}},
		{"in a fenced block", "```\n[not](a.md)\n```\n[yes](b.md)\n", []Link{{"b.md", 4}}},
		{"in a tilde fence", "~~~go\n[not](a.md)\n~~~\n", nil},
		{"a longer fence holds a shorter one", "````\n```\n[not](a.md)\n```\n````\n[yes](b.md)\n", []Link{{"b.md", 6}}},
		{"in a code span", "`[not](a.md)` and [yes](b.md)\n", []Link{{"b.md", 1}}},
		{"code span over two lines", "`stdbg find\n[not](a.md)` [yes](b.md)\n", []Link{{"b.md", 2}}},
		{"unmatched backtick is text", "a ` b [yes](b.md)\n", []Link{{"b.md", 1}}},
		{"code span ends at a paragraph", "a ` b\n\n[yes](b.md) `\n", []Link{{"b.md", 3}}},
		{"double backticks", "``a ` [not](a.md)`` [yes](b.md)\n", []Link{{"b.md", 1}}},
		{"line numbers after multibyte text", "é ü `ö`\n[yes](b.md)\n", []Link{{"b.md", 2}}},
		{"url", "[site](https://example.com/a#b)\n", []Link{{"https://example.com/a#b", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Links(tt.md)
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Links(%q) = %v, want %v", tt.md, got, tt.want)
			}
		})
	}
}

func TestAnchors(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"",
		"## Plain memory: `--memory`",
		"## Usage",
		"## Usage",
		"### [Linked](x.md) heading ###",
		"```yaml",
		"# stdbg.yaml",
		"```",
		"#5  0x0000 in main ()",
		"#include <stdio.h>",
		"text # not a heading",
	}, "\n")
	want := map[string]bool{
		"title": true, "plain-memory---memory": true, "usage": true, "usage-1": true,
		"linked-heading": true,
	}
	if got := Anchors(md); !reflect.DeepEqual(got, want) {
		t.Errorf("Anchors = %v, want %v", got, want)
	}
}

func TestCheck(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"README.md":       "# Top\n\n[a](docs/a.md) [b](docs/a.md#part-two) [self](#top) [dir](docs/) [go](main.go#L3-L5)\n",
		"docs/a.md":       "# A\n\n## Part two\n\n[back](../README.md#top) [site](https://example.com/x#y)\n",
		"docs/broken.md":  "[gone](gone.md)\n[anchor](a.md#part-three)\n\n[self](#nowhere)\n[out](../../x.md)\n[abs](/README.md)\n[frag](../main.go#main)\n",
		"main.go":         "package main\n",
		"docs/escaped.md": "[sp](a%20b.md)\n",
		"docs/a b.md":     "# Spaced\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		file string
		want []string
	}{
		{"README.md", nil},
		{"docs/a.md", nil},
		{"docs/escaped.md", nil},
		{"docs/broken.md", []string{
			"docs/broken.md:1: gone.md: no such file",
			"docs/broken.md:2: a.md#part-three: no heading of docs/a.md has the anchor #part-three",
			"docs/broken.md:4: #nowhere: no heading of docs/broken.md has the anchor #nowhere",
			"docs/broken.md:5: ../../x.md: outside the repository",
			"docs/broken.md:6: /README.md: an absolute path: links must be relative to the file",
			"docs/broken.md:7: ../main.go#main: a fragment of a file that is not Markdown names no heading",
		}},
	}
	for _, tt := range tests {
		got, err := Check(root, tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Check(%s) =\n%s\nwant\n%s", tt.file, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	if _, err := Check(root, "missing.md"); err == nil {
		t.Error("Check of a missing file: no error")
	}
}

// TestRepositoryDocuments checks every relative link of the project's own
// documents: README.md, ARCHITECTURE.md and docs/*.md.
func TestRepositoryDocuments(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "ARCHITECTURE.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, rel)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	links := 0
	for _, f := range files {
		problems, err := Check(root, f)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, p := range problems {
			t.Error(p)
		}
		data, _ := os.ReadFile(filepath.Join(root, f))
		links += len(Links(string(data)))
	}
	if links == 0 {
		t.Error("the documents hold no link at all: the extraction is broken")
	}
}

// TestArchitectureNamesEveryPackage checks that the package map of
// ARCHITECTURE.md names every package of the module (outside examples/,
// which it names as a whole, and outside nested modules such as
// exercises/go), so that a new package cannot be left out.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	data, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	pkgs := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			// A directory with a go.mod of its own (exercises/go) is
			// another module: its packages are not the module's.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !pkgs["model/syncmodel"] || !pkgs["sthread/sync/atomic"] {
		t.Fatalf("the walk missed known packages: %v", pkgs)
	}
	pkgs["examples"] = true
	for p := range pkgs {
		if !strings.Contains(text, "`"+p+"`") {
			t.Errorf("ARCHITECTURE.md does not name package %s", p)
		}
	}
}

// TestReadmeLinksEveryPage checks that the README links to ARCHITECTURE.md
// and to every page under docs/, so that a new page is not left unfound.
func TestReadmeLinksEveryPage(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range Links(string(data)) {
		p, _, _ := strings.Cut(l.Target, "#")
		linked[filepath.Clean(p)] = true
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ARCHITECTURE.md"}
	for _, p := range pages {
		want = append(want, filepath.Join("docs", filepath.Base(p)))
	}
	for _, w := range want {
		if !linked[w] {
			t.Errorf("README.md does not link to %s", w)
		}
	}
}
