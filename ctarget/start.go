package ctarget

import "github.com/stdbg/stdbg/targetproc"

// Start starts a C or C++ program under stdbg (targetproc.Start) with the
// interposition library preloaded: stdbg's, built on first use (Library),
// unless cfg names another.
func Start(cfg targetproc.Config) (*targetproc.Process, error) {
	if cfg.Library == "" && !cfg.NoPreload {
		// The program first: a program that cannot run needs no library.
		if err := targetproc.CheckBinary(cfg.Binary); err != nil {
			return nil, err
		}
		lib, err := Library()
		if err != nil {
			return nil, err
		}
		cfg.Library = lib
	}
	return targetproc.Start(cfg)
}
