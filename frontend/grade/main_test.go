package grade

import (
	"os"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// TestMain gives the package's tests a stdbg cache of their own, removed at
// the end, so that their builds never go to the user's cache.
func TestMain(m *testing.M) { os.Exit(testcache.Main(m)) }
