package gotest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stdbg/stdbg/internal/atomicfile"
	"github.com/stdbg/stdbg/target/goinstr"
)

// The cache of results, like go test's: a test whose inputs are the same
// as when a complete search of it found no bug (or it skipped itself)
// gives that result again, "(cached)", without a build or a search. Its
// inputs are every file of the packages of the main module (and of
// modules replaced by directories) that its test binary builds from, the
// versions of the other modules, go.mod, go.sum and go.work, the go
// command's version and build settings, the build tags, the files under
// the package's testdata (but stdbg's corpus, testdata/stdbg), the test's
// selection flags, stdbg itself (its executable and the sources of
// sthread it builds the tests with) and the search settings
// (Config.CacheKey).

// entry is a cached result.
type entry struct {
	Status string
	Detail string
	Lines  []string `json:",omitempty"`
	Stored time.Time
}

// listed is what go list tells of a package the test binary builds from.
type listed struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct {
		Path, Version, GoMod string
		Main                 bool
		Replace              *struct{ Path, Version, Dir string }
	}
	GoFiles, CgoFiles, CFiles, CXXFiles, HFiles, SFiles, SysoFiles []string
	EmbedFiles, TestGoFiles, XTestGoFiles                          []string
	TestEmbedFiles, XTestEmbedFiles                                []string
}

// cacheKeys returns the cache key of each test of the package, none when
// its inputs cannot be known.
func (pk *pkgRun) cacheKeys(ctx context.Context) map[string]string {
	base, err := pk.inputsKey(ctx)
	if err != nil {
		return nil
	}
	cfg := pk.r.cfg
	keys := map[string]string{}
	for _, n := range pk.names {
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00run=%s\x00skip=%s\x00short=%v\x00timeout=%s\x00v=%v\x00", base, n, pk.r.run.rest, cfg.Skip, cfg.Short, cfg.Timeout, cfg.Verbose)
		keys[n] = hex.EncodeToString(h.Sum(nil))
	}
	return keys
}

// inputsKey hashes what the package's test binary, and the search of its
// tests, depend on.
func (pk *pkgRun) inputsKey(ctx context.Context) (string, error) {
	cfg := pk.r.cfg
	h := sha256.New()
	fmt.Fprintf(h, "stdbg test cache 1\x00%s\x00tags=%s\x00race=%v\x00seed=%d\x00stall=%v\x00", cfg.CacheKey, cfg.Tags, cfg.Race, cfg.RandSeed, stallKey(cfg.MaxStall))
	self, err := selfKey()
	if err != nil {
		return "", err
	}
	h.Write([]byte(self))
	env, err := goEnv(ctx, cfg.Dir)
	if err != nil {
		return "", err
	}
	h.Write([]byte(env))

	args := []string{"list", "-deps", "-test", "-json=ImportPath,Dir,Standard,Module,GoFiles,CgoFiles,CFiles,CXXFiles,HFiles,SFiles,SysoFiles,EmbedFiles,TestGoFiles,XTestGoFiles,TestEmbedFiles,XTestEmbedFiles"}
	if cfg.Tags != "" {
		args = append(args, "-tags="+cfg.Tags)
	}
	args = append(args, "--", pk.p.ImportPath)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.Dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("listing the packages of %s: %w", pk.p.ImportPath, err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := map[string]bool{}
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", err
		}
		switch m := l.Module; {
		case l.Standard:
			continue // the go command's version says it
		case m != nil && !m.Main && (m.Replace == nil || m.Replace.Dir == ""):
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Path + "@" + m.Replace.Version
			}
			fmt.Fprintf(h, "module %s@%s\n", m.Path, v)
			continue
		case m != nil && m.GoMod != "" && !seen[m.GoMod]:
			seen[m.GoMod] = true
			dir := filepath.Dir(m.GoMod)
			for _, f := range []string{m.GoMod, filepath.Join(dir, "go.sum")} {
				if err := hashFile(h, f); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return "", err
				}
			}
		}
		for _, group := range [][]string{l.GoFiles, l.CgoFiles, l.CFiles, l.CXXFiles, l.HFiles, l.SFiles, l.SysoFiles, l.EmbedFiles,
			l.TestGoFiles, l.XTestGoFiles, l.TestEmbedFiles, l.XTestEmbedFiles} {
			for _, f := range group {
				if filepath.IsAbs(f) {
					continue // made by the go command (a test's main) from the others
				}
				path := filepath.Join(l.Dir, f)
				if seen[path] {
					continue
				}
				seen[path] = true
				if err := hashFile(h, path); err != nil {
					return "", err
				}
			}
		}
	}
	if err := hashTestdata(h, pk.p.Dir); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile adds the name and contents of the file at path to h.
func hashFile(h hash.Hash, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "file %s\n", path)
	_, err = io.Copy(h, f)
	return err
}

// hashTestdata adds the files under the package's testdata directory, but
// stdbg's corpus, to h: their names, sizes and modification times.
func hashTestdata(h hash.Hash, dir string) error {
	root := filepath.Join(dir, "testdata")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path == filepath.Join(root, "stdbg") {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "testdata %s %d %d %v\n", path, info.Size(), info.ModTime().UnixNano(), info.Mode())
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

var (
	selfOnce sync.Once
	selfSum  string
	selfErr  error
)

// selfKey identifies stdbg: its executable (path, size, time) and the
// sources of package sthread and its packages that instrumented tests are
// built with.
func selfKey() (string, error) {
	selfOnce.Do(func() {
		h := sha256.New()
		exe, err := os.Executable()
		if err != nil {
			selfErr = err
			return
		}
		st, err := os.Stat(exe)
		if err != nil {
			selfErr = err
			return
		}
		fmt.Fprintf(h, "%s %d %d\n", exe, st.Size(), st.ModTime().UnixNano())
		src, err := goinstr.SourceDir()
		if err != nil {
			selfErr = err
			return
		}
		selfErr = filepath.WalkDir(filepath.Join(src, "sthread"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			return hashFile(h, path)
		})
		selfSum = hex.EncodeToString(h.Sum(nil))
	})
	return selfSum, selfErr
}

var (
	envOnce sync.Once
	envText string
	envErr  error
)

// goEnv is the go command's settings that change what it builds.
func goEnv(ctx context.Context, dir string) (string, error) {
	envOnce.Do(func() {
		cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "CGO_ENABLED", "CC",
			"GOEXPERIMENT", "GOFLAGS", "GOWORK", "GODEBUG", "CGO_CFLAGS", "CGO_LDFLAGS")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			envErr = fmt.Errorf("go env: %w", err)
			return
		}
		envText = string(out)
		if work := strings.TrimSpace(strings.Split(envText, "\n")[9]); work != "" && work != "off" {
			h := sha256.New()
			for _, f := range []string{work, work + ".sum"} {
				if err := hashFile(h, f); err != nil && !errors.Is(err, fs.ErrNotExist) {
					envErr = err
					return
				}
			}
			envText += hex.EncodeToString(h.Sum(nil))
		}
	})
	return envText, envErr
}

// lookup returns the cached result of key, nil if there is none.
func lookup(dir, key string) *result {
	if key == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, key[:2], key+".json"))
	if err != nil {
		return nil
	}
	var e entry
	if json.Unmarshal(b, &e) != nil || e.Status != statusOK && e.Status != statusSkip {
		return nil
	}
	return &result{Status: e.Status, Detail: e.Detail, Lines: e.Lines}
}

// store keeps the result of a test whose search was complete and found no
// bug, or that skipped itself.
func (pk *pkgRun) store(keys map[string]string, res *result) {
	key := keys[res.Name]
	if key == "" || res.Status != statusOK && res.Status != statusSkip || res.Cached {
		return
	}
	b, err := json.Marshal(entry{Status: res.Status, Detail: res.Detail, Lines: res.Lines, Stored: time.Now().UTC()})
	if err != nil {
		return
	}
	dir := filepath.Join(pk.r.cfg.Cache, key[:2])
	if os.MkdirAll(dir, 0o755) == nil {
		atomicfile.Write(filepath.Join(dir, key+".json"), b) // a cache: a failure only costs a search
	}
}

// stallKey spells a stall bound for the cache's key.
func stallKey(d *time.Duration) string {
	if d == nil {
		return "default"
	}
	return d.String()
}
