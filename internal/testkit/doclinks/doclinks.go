// Package doclinks checks the links of Markdown documents: that every
// relative link names a file inside the repository, and that a link's
// fragment names a heading of the Markdown file it points to, as GitHub
// turns headings into anchors. The project's tests run it over README.md,
// ARCHITECTURE.md and docs/*.md, so that a page moved or a heading renamed
// cannot leave a dangling link behind.
package doclinks

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// A Link is a link of a Markdown document.
type Link struct {
	// Target is the destination as written: a path, a path with a
	// fragment (docs/c.md#data-races), a fragment alone (#usage) or a URL.
	Target string
	// Line is the line of the document the link starts on, from 1.
	Line int
}

var (
	// inlineLink matches an inline link or image, [text](target "title"),
	// whose text may span lines; group 1 is the target.
	inlineLink = regexp.MustCompile(`\[[^\]]*\]\(\s*(<[^>\n]*>|[^)\s]+)[^)]*\)`)
	// refDef matches a link reference definition, [label]: target.
	refDef = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:[ \t]*(<[^>\n]*>|\S+)`)
	// htmlLink matches the href or src attribute of raw HTML.
	htmlLink = regexp.MustCompile(`(?i)<[a-z]+\s[^>]*?\b(?:href|src)\s*=\s*"([^"]*)"`)
	// scheme matches a target that is a URL (https:, mailto:, ...).
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// lineAnchor matches the fragment of a link to lines of a source file.
	lineAnchor = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`)
	// atxHeading matches a heading line: # Title, ## Title ##.
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
)

// prose returns the document with its fenced code blocks and code spans
// blanked out (each character but newlines replaced by a space), so that
// what looks like a link or a heading inside code is not taken for one and
// line numbers are kept.
func prose(md string) string {
	lines := strings.SplitAfter(md, "\n")
	var b strings.Builder
	fence := "" // the opening fence while inside a fenced block
	for _, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		body := strings.TrimRight(trimmed, "\r\n")
		switch {
		case fence != "":
			if indent <= 3 && strings.HasPrefix(body, fence) && strings.Trim(body, fence[:1]) == "" {
				fence = ""
			}
			b.WriteString(blank(line))
		case indent <= 3 && (strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~")):
			c := body[:1]
			n := len(body) - len(strings.TrimLeft(body, c))
			if c == "`" && strings.Contains(body[n:], "`") {
				// Not a fence: an info string may not hold a backtick.
				b.WriteString(line)
				continue
			}
			fence = strings.Repeat(c, n)
			b.WriteString(blank(line))
		default:
			b.WriteString(line)
		}
	}
	return blankCodeSpans(b.String())
}

// blank replaces every byte of s but newlines by a space, so that offsets
// in the result are offsets in s.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// blankCodeSpans blanks the code spans of text: a run of backticks up to
// the next run of the same length, within one paragraph. A run without its
// match is literal text.
func blankCodeSpans(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end+n; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

// closingRun returns the index of the next run of exactly n backticks in
// b from i, before a blank line, or -1.
func closingRun(b []byte, i, n int) int {
	for j := i; j < len(b); {
		if b[j] == '\n' && j+1 < len(b) && strings.TrimLeft(lineAt(b, j+1), " \t") == "" {
			return -1
		}
		if b[j] != '`' {
			j++
			continue
		}
		k := j
		for k < len(b) && b[k] == '`' {
			k++
		}
		if k-j == n {
			return j
		}
		j = k
	}
	return -1
}

// lineAt returns the line of b that starts at i, without its newline.
func lineAt(b []byte, i int) string {
	end := i
	for end < len(b) && b[end] != '\n' {
		end++
	}
	return string(b[i:end])
}

// Links returns the links of a Markdown document outside code: inline
// links and images, link reference definitions, and the href and src
// attributes of raw HTML, in the order they appear.
func Links(md string) []Link {
	text := prose(md)
	type found struct {
		at     int
		target string
	}
	var all []found
	for _, re := range []*regexp.Regexp{inlineLink, refDef, htmlLink} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			t := strings.TrimSpace(md[m[2]:m[3]])
			t = strings.TrimSuffix(strings.TrimPrefix(t, "<"), ">")
			all = append(all, found{m[0], t})
		}
	}
	// Order by position (the three kinds were found separately).
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].at < all[j-1].at; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	links := make([]Link, len(all))
	for i, f := range all {
		links[i] = Link{Target: f.target, Line: 1 + strings.Count(md[:f.at], "\n")}
	}
	return links
}

// Slug returns the anchor GitHub gives a heading whose text (as rendered,
// without its markup) is heading: lower case, spaces turned into hyphens,
// every character but letters, digits, hyphens and underscores dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headingText returns the text a heading's source renders to, near enough
// for Slug: code spans and emphasis keep their text, links their label.
func headingText(src string) string {
	src = inlineLink.ReplaceAllStringFunc(src, func(m string) string {
		return m[1:strings.Index(m, "](")]
	})
	return strings.NewReplacer("`", "", "*", "").Replace(src)
}

// Anchors returns the anchors of the headings of a Markdown document
// (headings in code blocks are not headings). A heading whose slug was
// already taken gets -1, -2, ... appended, as on GitHub.
func Anchors(md string) map[string]bool {
	text := prose(md)
	src := strings.Split(md, "\n")
	anchors := map[string]bool{}
	seen := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		if atxHeading.FindStringSubmatch(line) == nil {
			continue
		}
		// Match the source line: the prose has its code spans blanked.
		m := atxHeading.FindStringSubmatch(src[i])
		if m == nil {
			continue
		}
		slug := Slug(headingText(strings.TrimSpace(m[2])))
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// Check checks the links of the Markdown file rel (a path relative to
// root, the repository) and returns one problem per broken link, as
// "file:line: target: why". URLs are not checked; every other target must
// be a relative path that stays inside root and names an existing file or
// directory, and a fragment must name a heading of the Markdown file
// linked to (or, for any other file, lines: #L10, #L10-L20). An error is
// returned when rel itself cannot be read.
func Check(root, rel string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, fmt.Errorf("checking the links of %s: %w", rel, err)
	}
	var problems []string
	anchorsOf := map[string]map[string]bool{filepath.Clean(rel): Anchors(string(data))}
	for _, l := range Links(string(data)) {
		if why := checkTarget(root, rel, l.Target, anchorsOf); why != "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", rel, l.Line, l.Target, why))
		}
	}
	return problems, nil
}

// checkTarget says what is wrong with target, a link of the file rel, or
// "" when nothing is. anchorsOf caches the anchors of Markdown files by
// their path relative to root.
func checkTarget(root, rel, target string, anchorsOf map[string]map[string]bool) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	p, frag, _ := strings.Cut(target, "#")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if strings.HasPrefix(p, "/") {
		return "an absolute path: links must be relative to the file"
	}
	dest := filepath.Clean(rel)
	if p != "" {
		dest = filepath.Join(filepath.Dir(rel), p)
		if dest == ".." || strings.HasPrefix(dest, ".."+string(filepath.Separator)) {
			return "outside the repository"
		}
		if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
			return "no such file"
		}
	}
	if frag == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		if lineAnchor.MatchString(frag) {
			return ""
		}
		return "a fragment of a file that is not Markdown names no heading"
	}
	anchors, ok := anchorsOf[dest]
	if !ok {
		data, err := os.ReadFile(filepath.Join(root, dest))
		if err != nil {
			return fmt.Sprintf("reading it: %v", err)
		}
		anchors = Anchors(string(data))
		anchorsOf[dest] = anchors
	}
	if !anchors[frag] {
		return fmt.Sprintf("no heading of %s has the anchor #%s", filepath.ToSlash(dest), frag)
	}
	return ""
}
