// Package dporcheck holds no code: its tests check, on the bundled C
// examples run as real processes, that DPOR finds exactly the bugs that
// running every schedule finds and runs one execution per Mazurkiewicz
// trace. They live apart from the command line's tests so that each
// package's tests stay short on a busy machine.
package dporcheck
