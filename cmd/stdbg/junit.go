package main

import (
	"encoding/xml"

	"github.com/stdbg/stdbg/internal/atomicfile"
)

// This file writes corpus run results as JUnit XML.

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
