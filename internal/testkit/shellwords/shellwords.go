// Package shellwords splits a shell command line into words, for the tests
// that check the commands stdbg prints and the documentation shows. Only
// tests import it.
package shellwords

import (
	"fmt"
	"strings"
)

// Split splits a shell command line into words, honouring single and
// double quotes and backslashes; the operators ;, &, |, <, > (and their
// doubles) are words of their own. It stops at a comment.
func Split(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", line)
			}
			w.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) {
					j++
				}
				w.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated \" in %q", line)
			}
			inWord = true
			i = j
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case strings.IndexByte(";&|<>", c) >= 0:
			flush()
			op := string(c)
			if i+1 < len(line) && line[i+1] == c {
				op += op
				i++
			}
			words = append(words, op)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}
