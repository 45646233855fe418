//go:build race

package rt

import (
	"runtime"
	"unsafe"
)

// raceOn reports a build with the race detector: see race.go.
const raceOn = true

func raceDisable()                      { runtime.RaceDisable() }
func raceEnable()                       { runtime.RaceEnable() }
func raceAcquire(p unsafe.Pointer)      { runtime.RaceAcquire(p) }
func raceReleaseMerge(p unsafe.Pointer) { runtime.RaceReleaseMerge(p) }
func raceErrors() int                   { return runtime.RaceErrors() }
func raceRead(p unsafe.Pointer)         { runtime.RaceRead(p) }
func raceWrite(p unsafe.Pointer)        { runtime.RaceWrite(p) }
