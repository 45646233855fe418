package ctarget

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// libstdbg.c is one translation unit made of the parts under rt/: each
// part is included exactly once (a part left out would leave the library
// without what it owns, a part included twice would not compile), and
// each says what it owns at its top.
func TestLibraryPartsIncludedOnce(t *testing.T) {
	main, err := csrc.ReadFile("csrc/libstdbg.c")
	if err != nil {
		t.Fatal(err)
	}
	parts := 0
	for _, n := range sources() {
		if !strings.HasPrefix(n, "rt/") {
			continue
		}
		parts++
		if c := strings.Count(string(main), fmt.Sprintf("#include %q\n", n)); c != 1 {
			t.Errorf("libstdbg.c includes %s %d times, want once", n, c)
		}
		b, _ := csrc.ReadFile("csrc/" + n)
		if !strings.HasPrefix(string(b), "/* "+n+": part of libstdbg") || !strings.Contains(string(b), " * Owns ") {
			t.Errorf("%s does not start by saying what it owns", n)
		}
	}
	if got := strings.Count(string(main), "#include \"rt/"); got != parts {
		t.Errorf("libstdbg.c includes %d parts, %d are embedded", got, parts)
	}
	if parts < 10 {
		t.Errorf("%d parts: the library is not split by concern", parts)
	}
}

// TestSourceHashRemembered: the source hash kept for a binary is read back
// for that binary only, a kept file that is not a hash is ignored, and the
// hash a command uses is the sources' (TestMain gives the tests a cache of
// their own).
func TestSourceHashRemembered(t *testing.T) {
	want := hashSources()
	if got := sourceHash(); got != want {
		t.Fatalf("sourceHash() = %s, the sources hash to %s", got, want)
	}
	id := binaryIdentity()
	if id == "" {
		t.Fatal("the test binary has no identity")
	}
	if h, ok := rememberedHash(id); !ok || h != want {
		t.Errorf("after sourceHash, remembered %q, %v; want %s", h, ok, want)
	}
	other := id + " rebuilt"
	if h, ok := rememberedHash(other); ok {
		t.Errorf("another binary's identity remembered %s", h)
	}
	rememberHash(other, "0123456789abcdef")
	if h, ok := rememberedHash(other); !ok || h != "0123456789abcdef" {
		t.Errorf("remembered %q, %v; want 0123456789abcdef", h, ok)
	}
	path, err := hashMemo(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "xyz", "0123456789ABCDEF", "0123456789abcdef0", "0123456789abcde\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if h, ok := rememberedHash(other); ok {
			t.Errorf("kept %q read back as the hash %s", bad, h)
		}
	}
	if _, ok := rememberedHash(""); ok {
		t.Error("a binary without identity has a remembered hash")
	}
}

// TestBinaryIdentityMovesWithTheFile: rewriting a binary in place (same
// path, same inode, same size) gives it another identity.
func TestBinaryIdentityMovesWithTheFile(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	before := binaryIdentity()
	// The test binary is only read: its identity is stable...
	if again := binaryIdentity(); again != before {
		t.Fatalf("identity moved without a change: %q, then %q", before, again)
	}
	// ...and a write to a copy of it, byte for byte the same, moves that
	// copy's (its change time moves with any write).
	cp := filepath.Join(t.TempDir(), "exe")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	id1 := fileIdentity(cp)
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if id2 := fileIdentity(cp); id2 == id1 {
		t.Errorf("rewritten in place, same identity %q", id1)
	}
}
