package schedprof

import (
	"bytes"
	"compress/gzip"
)

// The profile in pprof's format: profile.proto of github.com/google/pprof,
// protocol buffers, gzipped. Written here rather than with pprof's profile
// package, whose initialisation (dozens of regular expressions for old
// profile formats) every stdbg command would pay.

// pprofProfile is what the profile holds, before its strings are
// numbered.
type pprofProfile struct {
	sampleTypes       [][2]string // type, unit
	defaultSampleType string
	periodType        [2]string
	period            int64
	timeNanos         int64
	durationNanos     int64
	comments          []string
	binary            string // the mapping's file, "" for no mapping
	functions         []pprofFunction
	locations         []pprofLocation // location i has id i+1
	samples           []pprofSample
}

type pprofFunction struct{ name, file string } // function i has id i+1

type pprofLocation struct {
	address uint64
	lines   []pprofLine
}

type pprofLine struct {
	function uint64
	line     int64
}

type pprofSample struct {
	locations []uint64 // leaf first
	values    []int64
}

// Field numbers of profile.proto.
const (
	profSampleType        = 1
	profSample            = 2
	profMapping           = 3
	profLocation          = 4
	profFunction          = 5
	profStringTable       = 6
	profTimeNanos         = 9
	profDurationNanos     = 10
	profPeriodType        = 11
	profPeriod            = 12
	profComment           = 13
	profDefaultSampleType = 14

	valueTypeType = 1
	valueTypeUnit = 2

	sampleLocationID = 1
	sampleValue      = 2

	mappingID             = 1
	mappingFilename       = 5
	mappingHasFunctions   = 7
	mappingHasFilenames   = 8
	mappingHasLineNumbers = 9

	locationID        = 1
	locationMappingID = 2
	locationAddress   = 3
	locationLine      = 4

	lineFunctionID = 1
	lineLine       = 2

	functionID         = 1
	functionName       = 2
	functionSystemName = 3
	functionFilename   = 4
)

// pbuf builds a protocol buffer message.
type pbuf struct{ b []byte }

func (m *pbuf) varint(v uint64) {
	for v >= 0x80 {
		m.b = append(m.b, byte(v)|0x80)
		v >>= 7
	}
	m.b = append(m.b, byte(v))
}

// uint writes a varint field, left out when zero (proto3's default).
func (m *pbuf) uint(field int, v uint64) {
	if v == 0 {
		return
	}
	m.varint(uint64(field) << 3)
	m.varint(v)
}

func (m *pbuf) int(field int, v int64) { m.uint(field, uint64(v)) }

func (m *pbuf) bool(field int, v bool) {
	if v {
		m.uint(field, 1)
	}
}

// bytes writes a length-delimited field (a string, a message, a packed
// list), even empty.
func (m *pbuf) bytes(field int, b []byte) {
	m.varint(uint64(field)<<3 | 2)
	m.varint(uint64(len(b)))
	m.b = append(m.b, b...)
}

// packed writes a packed list of varints.
func (m *pbuf) packed(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	var p pbuf
	for _, v := range vs {
		p.varint(v)
	}
	m.bytes(field, p.b)
}

// encode returns the profile, encoded and gzipped.
func (p *pprofProfile) encode() ([]byte, error) {
	strs := []string{""}
	index := map[string]uint64{"": 0}
	str := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(strs))
			strs = append(strs, s)
			index[s] = i
		}
		return i
	}
	var m pbuf
	valueType := func(field int, vt [2]string) {
		var v pbuf
		v.uint(valueTypeType, str(vt[0]))
		v.uint(valueTypeUnit, str(vt[1]))
		m.bytes(field, v.b)
	}
	for _, st := range p.sampleTypes {
		valueType(profSampleType, st)
	}
	for _, s := range p.samples {
		var v pbuf
		v.packed(sampleLocationID, s.locations)
		vals := make([]uint64, len(s.values))
		for i, x := range s.values {
			vals[i] = uint64(x)
		}
		v.packed(sampleValue, vals)
		m.bytes(profSample, v.b)
	}
	var mapping uint64
	if p.binary != "" {
		mapping = 1
		var v pbuf
		v.uint(mappingID, mapping)
		v.uint(mappingFilename, str(p.binary))
		v.bool(mappingHasFunctions, true)
		v.bool(mappingHasFilenames, true)
		v.bool(mappingHasLineNumbers, true)
		m.bytes(profMapping, v.b)
	}
	for i, l := range p.locations {
		var v pbuf
		v.uint(locationID, uint64(i+1))
		v.uint(locationMappingID, mapping)
		v.uint(locationAddress, l.address)
		for _, ln := range l.lines {
			var lv pbuf
			lv.uint(lineFunctionID, ln.function)
			lv.int(lineLine, ln.line)
			v.bytes(locationLine, lv.b)
		}
		m.bytes(profLocation, v.b)
	}
	for i, f := range p.functions {
		var v pbuf
		v.uint(functionID, uint64(i+1))
		v.uint(functionName, str(f.name))
		v.uint(functionSystemName, str(f.name))
		v.uint(functionFilename, str(f.file))
		m.bytes(profFunction, v.b)
	}
	m.int(profTimeNanos, p.timeNanos)
	m.int(profDurationNanos, p.durationNanos)
	valueType(profPeriodType, p.periodType)
	m.int(profPeriod, p.period)
	for _, c := range p.comments {
		m.uint(profComment, str(c))
	}
	m.uint(profDefaultSampleType, str(p.defaultSampleType))
	// The string table last: every string is numbered by now.
	for _, s := range strs {
		m.bytes(profStringTable, []byte(s))
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(m.b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
