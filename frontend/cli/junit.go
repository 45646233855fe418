package cli

import (
	"encoding/xml"
	"strings"

	"github.com/stdbg/stdbg/frontend/gotest"
	"github.com/stdbg/stdbg/internal/atomicfile"
)

// This file writes corpus run results, and stdbg test's, as JUnit XML.

// JUnit XML, as read by CI systems.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(path string, results []rerun) error {
	s := junitSuite{Name: "stdbg corpus", Tests: len(results)}
	for _, r := range results {
		c := junitCase{Name: r.Path, Classname: "stdbg.corpus", Time: r.Seconds, SystemOut: r.Status + ": " + r.Detail}
		switch r.Status {
		case statusReproduces, statusChanged:
			c.Failure = &junitMessage{Message: r.Status, Text: r.Detail}
			s.Failures++
		case statusCorrupt, statusError:
			c.Error = &junitMessage{Message: r.Status, Text: r.Detail}
			s.Errors++
		case statusDiverged:
			c.Skipped = &junitMessage{Message: "diverged: " + r.Detail}
			s.Skipped++
		}
		s.Time += r.Seconds
		s.Cases = append(s.Cases, c)
	}
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append([]byte(xml.Header), append(b, '\n')...))
}

// writeTestJUnit writes a run of stdbg test as JUnit XML: a test suite per
// package, a test case per test (a BUG or FAIL a failure, an ERROR an
// error, SKIP skipped), and a package that did not build as a suite with
// one error.
func writeTestJUnit(path string, sum *gotest.Summary) error {
	var suites junitSuites
	index := map[string]int{}
	for _, r := range sum.Results {
		i, ok := index[r.Package]
		if !ok {
			i = len(suites.Suites)
			index[r.Package] = i
			suites.Suites = append(suites.Suites, junitSuite{Name: r.Package})
		}
		s := &suites.Suites[i]
		c := junitCase{Name: r.Test, Classname: r.Package, Time: r.Elapsed.Seconds(), SystemOut: r.Status + ": " + r.Detail}
		text := strings.Join(r.Output, "\n")
		switch r.Status {
		case "BUG", "FAIL":
			c.Failure = &junitMessage{Message: r.Status + ": " + r.Detail, Text: text}
			s.Failures++
		case "ERROR":
			c.Error = &junitMessage{Message: r.Detail, Text: text}
			s.Errors++
		case "SKIP":
			c.Skipped = &junitMessage{Message: r.Detail}
			s.Skipped++
		}
		s.Tests++
		s.Time += c.Time
		s.Cases = append(s.Cases, c)
	}
	for _, b := range sum.Broken {
		suites.Suites = append(suites.Suites, junitSuite{Name: b.Package, Tests: 1, Errors: 1, Cases: []junitCase{{
			Name: "[build failed]", Classname: b.Package, Error: &junitMessage{Message: "build failed", Text: strings.Join(b.Output, "\n")}}}})
	}
	out, err := xml.MarshalIndent(suites, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append([]byte(xml.Header), append(out, '\n')...))
}
