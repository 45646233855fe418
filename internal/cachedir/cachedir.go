// Package cachedir locates stdbg's cache directory, which the C library's
// builds, the builds of C and Go targets, Delve and the claims of CPUs
// share.
package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir returns stdbg's cache directory: $STDBG_CACHE, or stdbg under the
// user cache directory. It does not create it.
func Dir() (string, error) {
	if d := os.Getenv("STDBG_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory (set STDBG_CACHE): %w", err)
	}
	return filepath.Join(d, "stdbg"), nil
}
