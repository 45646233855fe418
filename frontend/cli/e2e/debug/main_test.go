package debug

import (
	"os"
	"testing"

	"github.com/stdbg/stdbg/internal/testkit/clirun"
)

func TestMain(m *testing.M) { os.Exit(clirun.Main(m)) }
