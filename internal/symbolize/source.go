package symbolize

import (
	"os"
	"strings"
	"sync"
)

const (
	// maxSourceSize is the largest source file SourceLine reads.
	maxSourceSize = 32 << 20
	// maxSourceFiles bounds the source cache; it is emptied when full.
	maxSourceFiles = 512
)

// sourceCache caches the lines of source files read by SourceLine; a nil
// entry records a file that could not be read.
var sourceCache struct {
	sync.Mutex
	files map[string][]string
}

// SourceLine returns the text of line (1-based) of file with surrounding
// white space removed. Files are read once and cached. ok is false when the
// file cannot be read or has no such line.
func SourceLine(file string, line int) (text string, ok bool) {
	if file == "" || line <= 0 {
		return "", false
	}
	lines := sourceLines(file)
	if line > len(lines) {
		return "", false
	}
	return strings.TrimSpace(lines[line-1]), true
}

// sourceLines returns the lines of file, nil if unreadable.
func sourceLines(file string) []string {
	sourceCache.Lock()
	lines, hit := sourceCache.files[file]
	sourceCache.Unlock()
	if hit {
		return lines
	}
	lines = readLines(file)
	sourceCache.Lock()
	defer sourceCache.Unlock()
	if sourceCache.files == nil || len(sourceCache.files) >= maxSourceFiles {
		sourceCache.files = make(map[string][]string)
	}
	sourceCache.files[file] = lines
	return lines
}

// readLines reads a regular file of reasonable size and splits it into
// lines; it returns nil on any problem.
func readLines(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxSourceSize {
		return nil
	}
	data := make([]byte, st.Size())
	n, err := f.ReadAt(data, 0)
	if err != nil && n != len(data) {
		return nil
	}
	text := strings.TrimSuffix(string(data[:n]), "\n")
	return strings.Split(text, "\n")
}

// SourceContext returns the lines of file from line-around to
// line+around (as far as the file goes), untrimmed, and the number of the
// first; ok is false when the file cannot be read or has no such line.
func SourceContext(file string, line, around int) (first int, lines []string, ok bool) {
	if file == "" || line <= 0 {
		return 0, nil, false
	}
	all := sourceLines(file)
	if line > len(all) {
		return 0, nil, false
	}
	first = max(1, line-around)
	last := min(len(all), line+around)
	return first, append([]string(nil), all[first-1:last]...), true
}
