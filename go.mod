module github.com/stdbg/stdbg

go 1.26.8

require (
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	golang.org/x/sys v0.49.0 // indirect
)
