package benchmarks

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stdbg/stdbg/target/goinstr"
)

// plainDir is a plain Go program of the zoo, by name.
func plainDir(b *testing.B, name string) string {
	dir, err := filepath.Abs(filepath.Join("..", "examples", "go", "plain", name))
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkInstrumentCold loads, type-checks and rewrites a plain Go
// program with an empty cache, as the first stdbg find on it does.
func BenchmarkInstrumentCold(b *testing.B) {
	dir := plainDir(b, "ctxleak")
	for i := 0; i < b.N; i++ {
		if _, err := goinstr.Instrument(goinstr.Config{Dir: dir, Cache: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInstrumentWarm is the same with the cache filled: only the
// sources are listed and hashed.
func BenchmarkInstrumentWarm(b *testing.B) {
	dir := plainDir(b, "ctxleak")
	cache := b.TempDir()
	if _, err := goinstr.Instrument(goinstr.Config{Dir: dir, Cache: cache}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := goinstr.Instrument(goinstr.Config{Dir: dir, Cache: cache})
		if err != nil || !res.Cached {
			b.Fatalf("%v: cached %v", err, res != nil && res.Cached)
		}
	}
}

// buildPlain instruments and builds a plain program of the zoo, with the
// race detector if race is set, as stdbg find does.
func buildPlain(b *testing.B, name string, race bool) string {
	dir := plainDir(b, name)
	res, err := goinstr.Instrument(goinstr.Config{Dir: dir, Cache: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	exe := filepath.Join(b.TempDir(), name)
	args := []string{"build", "-gcflags=github.com/stdbg/stdbg/sthread=-l", "-overlay=" + res.Overlay, "-o", exe}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

// BenchmarkBuildPlain instruments and builds a plain program (the go
// command's cache is warm after the first iteration, as on a developer's
// machine).
func BenchmarkBuildPlain(b *testing.B) {
	for _, race := range []bool{false, true} {
		name := "norace"
		if race {
			name = "race"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				buildPlain(b, "ctxleak", race)
			}
		})
	}
}

// BenchmarkPlainZoo explores plain programs of the zoo out of process,
// without and with the race detector, and reports executions per second.
func BenchmarkPlainZoo(b *testing.B) {
	for _, name := range []string{"fanin", "ctxok", "wgchanok"} {
		for _, race := range []bool{false, true} {
			sub := name
			if race {
				sub += "/race"
			}
			b.Run(sub, func(b *testing.B) {
				exploreGo(b, buildPlain(b, name, race))
			})
		}
	}
}
