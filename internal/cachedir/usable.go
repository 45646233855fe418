package cachedir

import (
	"fmt"
	"os"
)

// Usable returns stdbg's cache directory (Dir), created if it is missing,
// or an error that says why stdbg cannot use it: it cannot be found,
// created or written to. Every build of a target goes through it.
func Usable() (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("stdbg's cache directory cannot be created (set STDBG_CACHE to a directory stdbg may write to): %w", err)
	}
	f, err := os.CreateTemp(d, ".probe-")
	if err != nil {
		return "", fmt.Errorf("stdbg's cache directory cannot be written to (set STDBG_CACHE to a directory stdbg may write to): %w", err)
	}
	f.Close()
	os.Remove(f.Name())
	return d, nil
}
