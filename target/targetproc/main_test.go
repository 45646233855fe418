package targetproc_test

import (
	"os"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/testcache"
)

// TestMain keeps every build of the tests in a temporary cache: the test
// run's shared one, or one of the package's own (testcache).
func TestMain(m *testing.M) { os.Exit(testcache.Main(m)) }
