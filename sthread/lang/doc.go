// Package lang is the target of stdbg's instrumentation of plain Go
// (package goinstr) for what has no package in the standard library: the
// channel operations of the language (send, receive, close, len, range
// loops and select statements on real channels), and the test functions of
// an instrumented package with the methods of their t that log, fail or
// skip. Go statements become calls of sthread.Go, and main's body runs
// inside sthread.Run.
//
// A real channel keeps its type chan T: under a check (stdbg find) its
// state (buffer, closed, waiters) lives in the model, keyed by the
// channel's identity, and values sent under the check never enter the real
// channel. Outside a check every function performs the real operation.
//
// Programs written for stdbg use package sthread's Chan, Select and Go
// instead.
package lang
