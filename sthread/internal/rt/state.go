package rt

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/stdbg/stdbg/engine/search"
)

// Package-level state. The search inside a target runs execution after
// execution of the checked function in one process, so each must start
// from the state a fresh process starts it from. The instrumentation of
// plain Go (package goinstr) registers the package-level variables of
// every package it rewrites (RegisterVars, from a generated init
// function); a runner with Config.Restore takes a snapshot of them, and of
// what they reach, when its first execution begins (after the package
// initialisation, TestMain and whatever ran before the check), and puts
// them back before each later execution (snapshot.go, restore.go). What it cannot put
// back makes the next execution fail to begin with a
// search.StateError naming the variable, and stdbg searches again
// with a fresh process per execution.

// A Var is a package-level variable as the instrumentation registers it.
type Var struct {
	// Name is the variable's name and Pos where it is declared
	// (file:line), for messages.
	Name, Pos string
	// Addr is a pointer to the variable.
	Addr any
}

var (
	varsMu sync.Mutex
	// vars are the registered variables, in registration order.
	vars []Var
	// ownPrefixes are the import paths (and, with a trailing slash, the
	// path prefixes) of the packages whose types are the program's own:
	// the modules of the registered packages, and sthread's mirrors.
	ownPrefixes = []string{sthreadPath, sthreadPath + "/", "main"}
)

// sthreadPath is the import path of package sthread, whose mirrors of the
// standard library's types hold the program's objects.
const sthreadPath = "github.com/stdbg/stdbg/sthread"

// RegisterVars registers package-level variables of a package of module
// (its path) for Config.Restore. Each Var's Addr must be a non-nil
// pointer. The generated init functions of instrumented packages call it;
// it is safe to call at any time, but a runner takes its snapshot of the
// variables registered when its first execution begins.
func RegisterVars(module string, vs []Var) {
	varsMu.Lock()
	defer varsMu.Unlock()
	vars = append(vars, vs...)
	if module != "" && !ownModule(module) {
		ownPrefixes = append(ownPrefixes, module, module+"/")
	}
}

// ownModule reports whether path is among ownPrefixes; varsMu is held.
func ownModule(path string) bool {
	for _, p := range ownPrefixes {
		if p == path {
			return true
		}
	}
	return false
}

// own reports whether the package at import path pkg is the program's
// own (a registered module's, or sthread's); varsMu is held.
func own(pkg string) bool {
	for _, p := range ownPrefixes {
		if pkg == p || strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return false
}

// PutBack puts the registered variables back as they were when the
// runner's first execution began, after its last execution: in a process
// that searches several tests in turn, the next test then starts from
// what the first started from. It fails with a *search.StateError when
// they cannot be, and does nothing for a runner without Config.Restore
// or that ran no execution.
//
//go:norace
func (r *Runner) PutBack() error {
	if !r.cfg.Restore || r.state == nil {
		return nil
	}
	return r.putBack()
}

// putBack takes the snapshot of the registered variables when the
// runner's first execution begins, and puts them back before each later
// one. It fails with a *search.StateError when they cannot be.
//
//go:norace
func (r *Runner) putBack() (err error) {
	if r.state != nil && r.state.problem != "" {
		return &search.StateError{State: r.state.problem}
	}
	if raceOn && raceHide {
		// The scheduler reads and writes what the goroutines of the
		// executions read and write: it takes the last execution's
		// accesses as done before its own (each thread releases raceEnd
		// when it ends), and the next execution's threads take its own
		// as done before theirs (they acquire raceStart).
		raceEnable()
		if r.last != nil {
			raceAcquire(unsafe.Pointer(r.last.raceEnd))
		}
		defer func() {
			raceReleaseMerge(unsafe.Pointer(&raceStart))
			raceDisable()
		}()
	}
	if r.state == nil {
		varsMu.Lock()
		r.state = takeSnapshot(vars)
		if len(vars) < r.cfg.Vars {
			// The instrumentation's init functions did not all run (or
			// were not built): executions would start from state no one
			// puts back.
			r.state.problem = fmt.Sprintf("%d of the %d package-level variables stdbg instrumented registered themselves", len(vars), r.cfg.Vars)
		}
		varsMu.Unlock()
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = &search.StateError{State: fmt.Sprintf("putting back the package-level variables failed: %v", p)}
		}
	}()
	if msg := r.state.restore(); msg != "" {
		r.state.problem = msg
		return &search.StateError{State: msg}
	}
	return nil
}
