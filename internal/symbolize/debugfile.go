package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ntGNUBuildID is the note type of NT_GNU_BUILD_ID.
const ntGNUBuildID = 3

// maxNoteSize bounds the note sections read when looking for a build ID.
const maxNoteSize = 1 << 20

// findDebugFile looks for the separate debug file of f (opened from path):
// first by build ID under each debug directory, then by .gnu_debuglink next
// to the file, in its .debug subdirectory and under each debug directory.
// It returns the file and its path, nil without error when there is none.
func findDebugFile(f *elf.File, path string, debugDirs []string) (*elf.File, string, error) {
	id := buildID(f)
	var errs []error
	try := func(p string, crc *uint32) *elf.File {
		df, err := openDebugFile(p, path, id, crc)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		return df
	}
	if len(id) >= 2 {
		h := hex.EncodeToString(id)
		for _, dir := range debugDirs {
			p := filepath.Join(dir, ".build-id", h[:2], h[2:]+".debug")
			if df := try(p, nil); df != nil {
				return df, p, nil
			}
		}
	}
	if link, crc, ok := debugLink(f); ok {
		dir := filepath.Dir(path)
		cands := []string{filepath.Join(dir, link), filepath.Join(dir, ".debug", link)}
		for _, d := range debugDirs {
			cands = append(cands, filepath.Join(d, dir, link))
		}
		for _, c := range cands {
			if df := try(c, &crc); df != nil {
				return df, c, nil
			}
		}
	}
	return nil, "", errors.Join(errs...)
}

// openDebugFile opens the candidate debug file p for the module at path and
// checks that it has DWARF and belongs to the module: same build ID when both
// have one, else the .gnu_debuglink CRC when given.
func openDebugFile(p, path string, id []byte, crc *uint32) (*elf.File, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("symbolize: debug file %s for %s: not a regular file", p, path)
	}
	if mst, err := os.Stat(path); err == nil && os.SameFile(st, mst) {
		return nil, fs.ErrNotExist // the module itself, found via its own debuglink
	}
	df, err := elf.Open(p)
	if err != nil {
		return nil, fmt.Errorf("symbolize: debug file %s for %s: %w", p, path, err)
	}
	ok, err := matchDebugFile(df, p, id, crc)
	if err != nil || !ok {
		df.Close()
		if err == nil {
			err = fmt.Errorf("symbolize: debug file %s does not match %s", p, path)
		}
		return nil, err
	}
	return df, nil
}

// matchDebugFile checks a candidate debug file (see openDebugFile).
func matchDebugFile(df *elf.File, p string, id []byte, crc *uint32) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = false, fmt.Errorf("symbolize: debug file %s: malformed file: %v", p, r)
		}
	}()
	if !hasDWARF(df) {
		return false, nil
	}
	if did := buildID(df); len(id) > 0 && len(did) > 0 {
		return bytes.Equal(id, did), nil
	}
	if crc == nil {
		return len(id) > 0, nil // found by build ID path
	}
	got, err := fileCRC(p)
	if err != nil {
		return false, err
	}
	return got == *crc, nil
}

// fileCRC computes the .gnu_debuglink checksum (CRC-32/IEEE) of a file.
func fileCRC(p string) (uint32, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("symbolize: checksumming debug file: %w", err)
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, f); err != nil {
		return 0, fmt.Errorf("symbolize: checksumming debug file %s: %w", p, err)
	}
	return h.Sum32(), nil
}

// buildID returns the NT_GNU_BUILD_ID of f, or nil.
func buildID(f *elf.File) (id []byte) {
	defer func() {
		if recover() != nil {
			id = nil
		}
	}()
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > maxNoteSize {
			continue
		}
		data, err := s.Data()
		if err != nil {
			continue
		}
		if id := noteBuildID(data, f.ByteOrder); id != nil {
			return id
		}
	}
	if len(f.Sections) > 0 {
		return nil
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > maxNoteSize {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			continue
		}
		if id := noteBuildID(data, f.ByteOrder); id != nil {
			return id
		}
	}
	return nil
}

// noteBuildID scans ELF notes for a GNU build ID.
func noteBuildID(data []byte, bo interface{ Uint32([]byte) uint32 }) []byte {
	align4 := func(n uint64) uint64 { return (n + 3) &^ 3 }
	for len(data) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(data)), uint64(bo.Uint32(data[4:])), bo.Uint32(data[8:])
		data = data[12:]
		nlen, dlen := align4(namesz), align4(descsz)
		if nlen > uint64(len(data)) || dlen > uint64(len(data))-nlen {
			return nil
		}
		name, desc := data[:namesz], data[nlen:nlen+descsz]
		data = data[nlen+dlen:]
		if typ == ntGNUBuildID && string(bytes.TrimRight(name, "\x00")) == "GNU" && len(desc) > 0 {
			return bytes.Clone(desc)
		}
	}
	return nil
}

// debugLink returns the file name and CRC of f's .gnu_debuglink section.
func debugLink(f *elf.File) (name string, crc uint32, ok bool) {
	defer func() {
		if recover() != nil {
			name, crc, ok = "", 0, false
		}
	}()
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Size > 4096 {
		return "", 0, false
	}
	data, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	n := bytes.IndexByte(data, 0)
	if n <= 0 {
		return "", 0, false
	}
	name = string(data[:n])
	off := (n + 1 + 3) &^ 3
	if off+4 > len(data) || filepath.Base(name) != name {
		return "", 0, false
	}
	return name, f.ByteOrder.Uint32(data[off:]), true
}
