// Package lazyre provides regular expressions compiled on first use.
//
// A package-level regexp.MustCompile runs when the program starts, in every
// command, whether or not the command ever matches it: the patterns of the
// grader and of the report's parsers cost every stdbg start a millisecond
// of CPU and a few hundred kilobytes of heap. A Regexp made by New compiles
// its pattern the first time one of its methods is called, once, and panics
// then if the pattern does not compile (as MustCompile does at start; the
// tests of a package that uses one exercise it).
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp; it is safe for concurrent use.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// New returns a Regexp for pattern, not yet compiled.
func New(pattern string) *Regexp { return &Regexp{pattern: pattern} }

// Re returns the compiled expression, compiling it on the first call.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.pattern) })
	return r.re
}

// String returns the pattern.
func (r *Regexp) String() string { return r.pattern }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Re().MatchString(s) }

// Match is regexp.Regexp.Match.
func (r *Regexp) Match(b []byte) bool { return r.Re().Match(b) }

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.Re().FindString(s) }

// FindStringIndex is regexp.Regexp.FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Re().FindStringIndex(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.Re().FindStringSubmatchIndex(s) }

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Re().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.Re().FindAllStringIndex(s, n) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.Re().ReplaceAllString(src, repl) }

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}

// SubexpIndex is regexp.Regexp.SubexpIndex.
func (r *Regexp) SubexpIndex(name string) int { return r.Re().SubexpIndex(name) }

// Split is regexp.Regexp.Split.
func (r *Regexp) Split(s string, n int) []string { return r.Re().Split(s, n) }
