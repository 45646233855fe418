package goinstr

import (
	"bytes"
	"fmt"
	"go/build/constraint"
	goversion "go/version"
)

// minLang is the language version that rewritten code needs: the calls of
// sthread's generic functions need Go 1.18, and since Go 1.21 a file can
// raise its own version with a //go:build line. Go 1.21's semantics are
// those of every earlier version for the code a rewritten file holds (its
// loop variables are shared by all iterations, as before Go 1.22).
const minLang = "go1.21"

// moduleLang returns the language version of a module whose go.mod says
// goVersion ("1.16", "1.21.3"; "" when it has no go line, which the go
// command takes as 1.16), in the form go1.N.
func moduleLang(goVersion string) string {
	if goVersion == "" {
		goVersion = "1.16"
	}
	return goversion.Lang("go" + goVersion)
}

// needsLang reports whether a rewritten file of a module at language
// version lang must raise its own version to minLang.
func needsLang(lang string) bool {
	return lang == "" || goversion.Compare(lang, minLang) < 0
}

// withLang returns src, the source of file filename, with a build
// constraint that sets its language version to at least minLang: its
// //go:build line and'ed with go1.21, or when it has none a new one, made
// of its // +build lines and go1.21, before a //line directive that gives
// every line of the file its number back. Its // +build lines become empty
// comments (the line count stays): once the //go:build line changed they
// no longer match it, which go vet, and so go test, refuses.
func withLang(src []byte, filename string) ([]byte, error) {
	h, err := scanHeader(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filename, err)
	}
	tag := &constraint.TagExpr{Tag: minLang}
	if h.goBuild != nil {
		if v := constraint.GoVersion(h.goBuild.expr); v != "" && goversion.Compare(v, minLang) >= 0 {
			return src, nil
		}
		var e edits
		e.replace(h.goBuild.start, h.goBuild.end, "//go:build "+(&constraint.AndExpr{X: h.goBuild.expr, Y: tag}).String())
		out, err := blankPlusBuild(&e, h).apply(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filename, err)
		}
		return out, nil
	}
	var expr constraint.Expr = tag
	if len(h.plusBuild) > 0 {
		expr = h.plusBuild[0].expr
		for _, l := range h.plusBuild[1:] {
			expr = &constraint.AndExpr{X: expr, Y: l.expr}
		}
		if v := constraint.GoVersion(expr); v != "" && goversion.Compare(v, minLang) >= 0 {
			return src, nil
		}
		expr = &constraint.AndExpr{X: expr, Y: tag}
	}
	body, err := blankPlusBuild(&edits{}, h).apply(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filename, err)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "//go:build %s\n\n//line %s:1:1\n", expr, filename)
	out.Write(body)
	return out.Bytes(), nil
}

// blankPlusBuild adds to e the edits that make h's // +build lines empty
// comments, and returns e.
func blankPlusBuild(e *edits, h header) *edits {
	for _, l := range h.plusBuild {
		e.replace(l.start, l.end, "//")
	}
	return e
}

// constraintLine is a build constraint line of a file's header: its
// expression and where it is (the line without its newline).
type constraintLine struct {
	expr       constraint.Expr
	start, end int
}

// header is what a file's header holds of build constraints, as the go
// command reads them (go/build's rules): a //go:build line anywhere among
// the comments before the package clause, // +build lines only in the part
// that ends with a blank line.
type header struct {
	goBuild   *constraintLine
	plusBuild []constraintLine
}

// scanHeader finds the build constraints of src.
func scanHeader(src []byte) (header, error) {
	var h header
	var plus []constraintLine // // +build lines seen, kept if a blank line follows
	inComment := false        // in a /* */ comment
	ended := false            // past the first line that is not a // comment
	for off := 0; off < len(src); {
		start, end := off, len(src)
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			end = off + i
		}
		off = end + 1
		line := bytes.TrimSpace(src[start:end])
		if len(line) == 0 && !ended {
			h.plusBuild = append(h.plusBuild, plus...)
			plus = nil
			continue
		}
		if !bytes.HasPrefix(line, []byte("//")) {
			ended = true
		}
		if !inComment {
			text := string(line)
			switch {
			case constraint.IsGoBuild(text):
				x, err := constraint.Parse(text)
				if err != nil {
					return h, fmt.Errorf("build constraint %q: %w", text, err)
				}
				if h.goBuild != nil {
					return h, fmt.Errorf("more than one //go:build line")
				}
				h.goBuild = &constraintLine{expr: x, start: start, end: end}
			case constraint.IsPlusBuild(text) && !ended:
				if x, err := constraint.Parse(text); err == nil {
					plus = append(plus, constraintLine{expr: x, start: start, end: end})
				}
			}
		}
		for len(line) > 0 {
			if inComment {
				i := bytes.Index(line, []byte("*/"))
				if i < 0 {
					break
				}
				inComment = false
				line = bytes.TrimSpace(line[i+2:])
				continue
			}
			if bytes.HasPrefix(line, []byte("//")) {
				break
			}
			if bytes.HasPrefix(line, []byte("/*")) {
				inComment = true
				line = bytes.TrimSpace(line[2:])
				continue
			}
			return h, nil // the package clause
		}
	}
	return h, nil
}
