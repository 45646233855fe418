package syncmodel

import "fmt"

// API names the user-level function through which a thread performs an
// operation, so that traces show the call as the user wrote it. Values are
// part of the wire protocol: append new names, never renumber.
type API uint16

// The user-level functions stdbg knows.
const (
	APINone API = iota
	APIPthreadCreate
	APIPthreadJoin
	APIPthreadDetach
	APIPthreadExit
	APIThreadReturn // a thread's start routine returned
	APIMutexInit
	APIMutexLock
	APIMutexTrylock
	APIMutexTimedlock
	APIMutexClocklock
	APIMutexUnlock
	APIMutexDestroy
	APICondInit
	APICondWait
	APICondTimedwait
	APICondClockwait
	APICondSignal
	APICondBroadcast
	APICondDestroy
	APISemInit
	APISemWait
	APISemTrywait
	APISemTimedwait
	APISemClockwait
	APISemPost
	APISemGetvalue
	APISemDestroy
	APIRWInit
	APIRWRdlock
	APIRWWrlock
	APIRWTryRdlock
	APIRWTryWrlock
	APIRWTimedRdlock
	APIRWTimedWrlock
	APIRWClockRdlock
	APIRWClockWrlock
	APIRWUnlock
	APIRWDestroy
	APIBarrierInit
	APIBarrierWait
	APIBarrierDestroy
	APISpinInit
	APISpinLock
	APISpinTrylock
	APISpinUnlock
	APISpinDestroy
	APIPthreadOnce
	APISchedYield
	APISleep
	APIUsleep
	APINanosleep
	APIClockNanosleep
	APIExit
	APIUnderscoreExit
	APIMainReturn // main returned
	APIStdbgYield
	APIStdbgRead
	APIStdbgWrite
	APIStdbgChoose
	// C11 threads.
	APIThrdCreate
	APIThrdJoin
	APIThrdDetach
	APIThrdExit
	APIThrdYield
	APIThrdSleep
	APIMtxInit
	APIMtxLock
	APIMtxTrylock
	APIMtxTimedlock
	APIMtxUnlock
	APIMtxDestroy
	APICndInit
	APICndWait
	APICndTimedwait
	APICndSignal
	APICndBroadcast
	APICndDestroy
	APICallOnce
	// Go (package sthread). Names are written as the user calls them.
	APIGo                // go statement (sthread.Go)
	APICheckedReturn     // the checked function returned (in-process Go checks)
	APIGoMutexLock       // Mutex.Lock
	APIGoMutexTryLock    // Mutex.TryLock
	APIGoMutexUnlock     // Mutex.Unlock
	APIGoRWRLock         // RWMutex.RLock
	APIGoRWTryRLock      // RWMutex.TryRLock
	APIGoRWRUnlock       // RWMutex.RUnlock
	APIGoRWLock          // RWMutex.Lock
	APIGoRWTryLock       // RWMutex.TryLock
	APIGoRWUnlock        // RWMutex.Unlock
	APIWaitGroupAdd      // WaitGroup.Add
	APIWaitGroupDone     // WaitGroup.Done
	APIWaitGroupWait     // WaitGroup.Wait
	APIGoCondWait        // Cond.Wait
	APIGoCondSignal      // Cond.Signal
	APIGoCondBroadcast   // Cond.Broadcast
	APIOnceDo            // Once.Do
	APIMakeChan          // MakeChan
	APIChanSend          // Chan.Send
	APIChanRecv          // Chan.Recv
	APIChanRecv2         // Chan.Recv2
	APIChanRange         // range over Chan.All
	APIChanClose         // Chan.Close
	APIChanLen           // Chan.Len
	APISelect            // Select
	APIGoYield           // sthread.Yield
	APIGoSleep           // sthread.Sleep
	APIGoRead            // sthread.Read
	APIGoWrite           // sthread.Write
	APIGoChoose          // sthread.Choose
	APIAtomicLoad        // atomic Load
	APIAtomicStore       // atomic Store
	APIAtomicAdd         // atomic Add
	APIAtomicSwap        // atomic Swap
	APIAtomicCompareSwap // atomic CompareAndSwap
	APITimeSleep         // time.Sleep on the virtual clock
	APITimerFire         // a timer or ticker firing on the virtual clock
	APIAtomicAnd         // atomic And
	APIAtomicOr          // atomic Or
	APIExec              // an exec* call: the checked program's image ends
	APIStdbgAtomicRead   // stdbg_atomic_read: a Read that is an atomic load
	APIStdbgAtomicWrite  // stdbg_atomic_write: a Write that is an atomic store
	APILoad              // an instrumented plain load (C, -fsanitize=thread)
	APIStore             // an instrumented plain store
	APICAtomicLoad       // an instrumented atomic load (C11, __atomic)
	APICAtomicStore      // an instrumented atomic store
	APICAtomicRMW        // an instrumented atomic read-modify-write (a Write)
	APIMapLoad           // sync.Map.Load (a Read of the map)
	APIMapStore          // sync.Map.Store (a Write)
	APIMapLoadOrStore    // sync.Map.LoadOrStore (a Write)
	APIMapLoadAndDelete  // sync.Map.LoadAndDelete (a Write)
	APIMapDelete         // sync.Map.Delete (a Write)
	APIMapSwap           // sync.Map.Swap (a Write)
	APIMapCompareAndSwap // sync.Map.CompareAndSwap (a Write)
	APIMapCompareAndDel  // sync.Map.CompareAndDelete (a Write)
	APIMapRange          // sync.Map.Range (a Read, before the first call of its function)
	APIMapClear          // sync.Map.Clear (a Write)
	APIThreadStart       // a thread starts its function (ThreadStart)
	APIGoexit            // a goroutine ended by runtime.Goexit (a ThreadExit)
	APITestSkip          // the checked test skipped itself (t.Skip): a ThreadExit of thread 1, which ends the check as its return does
	APITimerStop         // Timer.Stop or Reset (or Ticker's) taking back a time offered: a Select
	APITimerNew          // a timer made (time.NewTimer, After, AfterFunc, NewTicker): the ThreadCreate of its goroutine
	APITimerHalt         // Timer.Stop or Reset (or Ticker's) begins: a Select with default on a channel of the timer's own, which orders it against the timer's other Stops and Resets and its goroutine
	APIChanCloseOutside  // a real channel found closed by code outside the check (before it, or code stdbg does not instrument): its close, as a step of the goroutine that next meets it
	APIMemoryPoll        // a polling loop over plain memory (C, STDBG_MEM_LOG=1): a Yield, Obj the address polled last
	APITestCall          // a goroutine's call of a method of its test's t that logs, fails or skips (Go): a Read of the test's key
	APITestEnd           // a Go test or subtest ends, its function and cleanups done: a Write of the test's key
	APISynctestTest      // testing/synctest.Test: its bubble's BubbleEnter and BubbleEnd
	APISynctestWait      // testing/synctest.Wait (BubbleWait)
	apiCount
)

var apiNames = [...]string{
	APINone:              "",
	APIPthreadCreate:     "pthread_create",
	APIPthreadJoin:       "pthread_join",
	APIPthreadDetach:     "pthread_detach",
	APIPthreadExit:       "pthread_exit",
	APIThreadReturn:      "return",
	APIMutexInit:         "pthread_mutex_init",
	APIMutexLock:         "pthread_mutex_lock",
	APIMutexTrylock:      "pthread_mutex_trylock",
	APIMutexTimedlock:    "pthread_mutex_timedlock",
	APIMutexClocklock:    "pthread_mutex_clocklock",
	APIMutexUnlock:       "pthread_mutex_unlock",
	APIMutexDestroy:      "pthread_mutex_destroy",
	APICondInit:          "pthread_cond_init",
	APICondWait:          "pthread_cond_wait",
	APICondTimedwait:     "pthread_cond_timedwait",
	APICondClockwait:     "pthread_cond_clockwait",
	APICondSignal:        "pthread_cond_signal",
	APICondBroadcast:     "pthread_cond_broadcast",
	APICondDestroy:       "pthread_cond_destroy",
	APISemInit:           "sem_init",
	APISemWait:           "sem_wait",
	APISemTrywait:        "sem_trywait",
	APISemTimedwait:      "sem_timedwait",
	APISemClockwait:      "sem_clockwait",
	APISemPost:           "sem_post",
	APISemGetvalue:       "sem_getvalue",
	APISemDestroy:        "sem_destroy",
	APIRWInit:            "pthread_rwlock_init",
	APIRWRdlock:          "pthread_rwlock_rdlock",
	APIRWWrlock:          "pthread_rwlock_wrlock",
	APIRWTryRdlock:       "pthread_rwlock_tryrdlock",
	APIRWTryWrlock:       "pthread_rwlock_trywrlock",
	APIRWTimedRdlock:     "pthread_rwlock_timedrdlock",
	APIRWTimedWrlock:     "pthread_rwlock_timedwrlock",
	APIRWClockRdlock:     "pthread_rwlock_clockrdlock",
	APIRWClockWrlock:     "pthread_rwlock_clockwrlock",
	APIRWUnlock:          "pthread_rwlock_unlock",
	APIRWDestroy:         "pthread_rwlock_destroy",
	APIBarrierInit:       "pthread_barrier_init",
	APIBarrierWait:       "pthread_barrier_wait",
	APIBarrierDestroy:    "pthread_barrier_destroy",
	APISpinInit:          "pthread_spin_init",
	APISpinLock:          "pthread_spin_lock",
	APISpinTrylock:       "pthread_spin_trylock",
	APISpinUnlock:        "pthread_spin_unlock",
	APISpinDestroy:       "pthread_spin_destroy",
	APIPthreadOnce:       "pthread_once",
	APISchedYield:        "sched_yield",
	APISleep:             "sleep",
	APIUsleep:            "usleep",
	APINanosleep:         "nanosleep",
	APIClockNanosleep:    "clock_nanosleep",
	APIExit:              "exit",
	APIUnderscoreExit:    "_exit",
	APIMainReturn:        "return from main",
	APIStdbgYield:        "stdbg_yield",
	APIStdbgRead:         "stdbg_read",
	APIStdbgWrite:        "stdbg_write",
	APIStdbgAtomicRead:   "stdbg_atomic_read",
	APIStdbgAtomicWrite:  "stdbg_atomic_write",
	APILoad:              "load",
	APIStore:             "store",
	APICAtomicLoad:       "__atomic_load",
	APICAtomicStore:      "__atomic_store",
	APICAtomicRMW:        "__atomic_rmw",
	APIMapLoad:           "Map.Load",
	APIMapStore:          "Map.Store",
	APIMapLoadOrStore:    "Map.LoadOrStore",
	APIMapLoadAndDelete:  "Map.LoadAndDelete",
	APIMapDelete:         "Map.Delete",
	APIMapSwap:           "Map.Swap",
	APIMapCompareAndSwap: "Map.CompareAndSwap",
	APIMapCompareAndDel:  "Map.CompareAndDelete",
	APIMapRange:          "Map.Range",
	APIMapClear:          "Map.Clear",
	APIThreadStart:       "start",
	APIGoexit:            "runtime.Goexit",
	APITestSkip:          "test skips itself (t.Skip)",
	APITimerStop:         "Timer.Stop",
	APITimerNew:          "timer made",
	APIChanCloseOutside:  "closed outside the check: Chan.Close",
	APITimerHalt:         "Timer.Stop or Reset",
	APIMemoryPoll:        "memory poll",
	APITestCall:          "calls its test's t",
	APITestEnd:           "test ends",
	APISynctestTest:      "synctest.Test",
	APISynctestWait:      "synctest.Wait",
	APIStdbgChoose:       "stdbg_choose",
	APIThrdCreate:        "thrd_create",
	APIThrdJoin:          "thrd_join",
	APIThrdDetach:        "thrd_detach",
	APIThrdExit:          "thrd_exit",
	APIThrdYield:         "thrd_yield",
	APIThrdSleep:         "thrd_sleep",
	APIMtxInit:           "mtx_init",
	APIMtxLock:           "mtx_lock",
	APIMtxTrylock:        "mtx_trylock",
	APIMtxTimedlock:      "mtx_timedlock",
	APIMtxUnlock:         "mtx_unlock",
	APIMtxDestroy:        "mtx_destroy",
	APICndInit:           "cnd_init",
	APICndWait:           "cnd_wait",
	APICndTimedwait:      "cnd_timedwait",
	APICndSignal:         "cnd_signal",
	APICndBroadcast:      "cnd_broadcast",
	APICndDestroy:        "cnd_destroy",
	APICallOnce:          "call_once",

	APIGo:                "go",
	APICheckedReturn:     "checked function returns",
	APIGoMutexLock:       "Mutex.Lock",
	APIGoMutexTryLock:    "Mutex.TryLock",
	APIGoMutexUnlock:     "Mutex.Unlock",
	APIGoRWRLock:         "RWMutex.RLock",
	APIGoRWTryRLock:      "RWMutex.TryRLock",
	APIGoRWRUnlock:       "RWMutex.RUnlock",
	APIGoRWLock:          "RWMutex.Lock",
	APIGoRWTryLock:       "RWMutex.TryLock",
	APIGoRWUnlock:        "RWMutex.Unlock",
	APIWaitGroupAdd:      "WaitGroup.Add",
	APIWaitGroupDone:     "WaitGroup.Done",
	APIWaitGroupWait:     "WaitGroup.Wait",
	APIGoCondWait:        "Cond.Wait",
	APIGoCondSignal:      "Cond.Signal",
	APIGoCondBroadcast:   "Cond.Broadcast",
	APIOnceDo:            "Once.Do",
	APIMakeChan:          "MakeChan",
	APIChanSend:          "Chan.Send",
	APIChanRecv:          "Chan.Recv",
	APIChanRecv2:         "Chan.Recv2",
	APIChanRange:         "range Chan.All",
	APIChanClose:         "Chan.Close",
	APIChanLen:           "Chan.Len",
	APISelect:            "Select",
	APIGoYield:           "sthread.Yield",
	APIGoSleep:           "sthread.Sleep",
	APIGoRead:            "sthread.Read",
	APIGoWrite:           "sthread.Write",
	APIGoChoose:          "sthread.Choose",
	APIAtomicLoad:        "atomic.Load",
	APIAtomicStore:       "atomic.Store",
	APIAtomicAdd:         "atomic.Add",
	APIAtomicSwap:        "atomic.Swap",
	APIAtomicCompareSwap: "atomic.CompareAndSwap",
	APITimeSleep:         "time.Sleep",
	APITimerFire:         "timer fires",
	APIAtomicAnd:         "atomic.And",
	APIAtomicOr:          "atomic.Or",
	APIExec:              "exec",
}

// NumAPIs is one more than the largest valid API.
const NumAPIs = int(apiCount)

// String returns the function's name, e.g. "pthread_mutex_lock" ("" for
// APINone), or "api(N)" for an unknown value.
func (a API) String() string {
	if int(a) < len(apiNames) {
		return apiNames[a]
	}
	return fmt.Sprintf("api(%d)", uint16(a))
}
