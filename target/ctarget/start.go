package ctarget

import (
	"os"

	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/targetproc"
)

// Start starts a C or C++ program under stdbg (targetproc.Start) with the
// interposition library preloaded: stdbg's, built on first use (Library),
// unless cfg names another. The program's calls into shared libraries are
// bound as it starts (LD_BIND_NOW), so that the library can count those
// it does not model (docs/spin.md); not in a stateful search
// (wire.FlagState), where no loop waits and the program's memory is its
// state, lazily bound entries of its tables included, as before.
func Start(cfg targetproc.Config) (*targetproc.Process, error) {
	if cfg.Flags&wire.FlagState == 0 {
		if cfg.Env == nil {
			cfg.Env = os.Environ()
		}
		cfg.Env = append(cfg.Env[:len(cfg.Env):len(cfg.Env)], "LD_BIND_NOW=1")
	}
	if cfg.Library == "" && !cfg.NoPreload {
		_, _, lib, built, err := libraryEntry()
		if err != nil {
			return nil, err
		}
		if !built {
			// The program first: a program that cannot run needs no
			// library built. (targetproc.Start checks it in any case.)
			if err := targetproc.CheckBinary(cfg.Binary); err != nil {
				return nil, err
			}
			if lib, err = Library(); err != nil {
				return nil, err
			}
		}
		cfg.Library = lib
	}
	return targetproc.Start(cfg)
}
