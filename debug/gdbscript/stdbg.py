# stdbg support for GDB: follow a stdbg decision log one thread step at a
# time. This file is embedded in the script that `stdbg replay --gdb` and
# `stdbg replay --gdb-script FILE` write; the script sets _stdbg_data (the
# program, the steps and the outcome of the run under stdbg, as base64 of
# JSON) first.
#
# How a step runs (the script's header says why):
#   * The library calls stdbg_step(from, to) at every transition, after
#     thread `to` got its turn. A silent breakpoint stops there; the stop
#     handler selects the GDB thread of `to` and its frame in the user's code.
#   * The step then runs with scheduler-locking on and `to` selected: only
#     `to` runs, and the thread it hands over to stays frozen until the next
#     stop, so every stop shows each thread where the step left it.
#   * A step that creates a thread runs with scheduler-locking off (the new
#     thread must reach its first operation while the creator waits for it)
#     until the creator is back from the call, where a thread-specific
#     breakpoint stops it; the rest of the step runs with scheduler-locking
#     on. A step that ends the program runs with scheduler-locking off.
import base64
import json
import os

import gdb

_FATAL_SIGNALS = ("SIGABRT", "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGSYS")

# Modules, directories and path parts that are not the user's code: the
# rules of stdbg's reports (package symbolize, IsSystem).
_SYSTEM_MODULES = (
    "libc.so", "libc-", "libstdc++", "libc++", "libc++abi", "libgcc_s", "libgcc-",
    "ld-linux", "ld64.so", "ld-2.", "libm.so", "libm-", "libpthread.so", "libpthread-",
    "libdl.so", "libdl-", "librt.so", "librt-", "libunwind", "linux-vdso", "linux-gate",
    "libstdbg",
)
_SYSTEM_DIRS = ("/usr/include/", "/usr/lib/", "/usr/local/include/")
_SYSTEM_PARTS = ("bits/", "c++/")


def _say(text):
    gdb.write("stdbg: %s\n" % text)


def _module(pc):
    """The file of the shared library containing pc ("" for the program)."""
    try:
        return gdb.solib_name(pc) or ""
    except gdb.error:
        return ""


def _in_library(frame):
    return os.path.basename(_module(frame.pc())).startswith("libstdbg")


def _is_system(frame):
    """Whether frame belongs to the system or to stdbg, not to the user."""
    base = os.path.basename(_module(frame.pc()))
    if base.startswith(_SYSTEM_MODULES):
        return True
    sal = frame.find_sal()
    if sal is None or sal.symtab is None or sal.line == 0:
        return True
    names = [sal.symtab.filename]
    try:
        names.append(sal.symtab.fullname())
    except gdb.error:
        pass
    for name in names:
        if name.startswith(_SYSTEM_DIRS):
            return True
        for part in _SYSTEM_PARTS:
            if name.startswith(part) or ("/" + part) in name:
                return True
    return False


def _frames():
    """The frames of the selected thread, innermost first."""
    out = []
    try:
        f = gdb.newest_frame()
        while f is not None and len(out) < 256:
            out.append(f)
            f = f.older()
    except gdb.error:
        pass
    return out


def _caller_index(frames):
    """Index of the caller of the intercepted call the thread is in: the
    frame right after the innermost run of libstdbg frames (-1: none)."""
    i = 0
    while i < len(frames) and not _in_library(frames[i]):
        i += 1
    if i == len(frames):
        return -1
    while i < len(frames) and _in_library(frames[i]):
        i += 1
    return i if i < len(frames) else -1


def _user_index(frames, from_caller=True):
    """The frame stdbg's reports show: the first frame of the user's code
    from the caller of the intercepted call on (from the innermost frame
    when from_caller is false), else that first frame."""
    start = _caller_index(frames) if from_caller else 0
    if start < 0:
        start = 0
    for i in range(start, len(frames)):
        if not _is_system(frames[i]):
            return i
    return start if start < len(frames) else 0


def _where(frame):
    sal = frame.find_sal()
    if sal is None or sal.symtab is None or sal.line == 0:
        return frame.name() or "??"
    return "%s:%d" % (os.path.basename(sal.symtab.filename), sal.line)


def _short(st):
    """file:line of a step, wait or failure, as stdbg prints it."""
    if st.get("file") and st.get("line"):
        return "%s:%d" % (os.path.basename(st["file"]), st["line"])
    return st.get("func") or "?"


class _SilentBreakpoint(gdb.Breakpoint):
    """An internal breakpoint that stops without printing anything: the
    stop handler says what happened."""

    def __init__(self, spec, thread_num=None):
        super().__init__(spec, internal=True)
        self.silent = True
        if thread_num is not None:
            self.thread = thread_num


_new_breakpoints = ()


def _make_breakpoints():
    """stdbg_step, stdbg_replay_end and stdbg_replay_diverged: pending until
    the library is loaded (run it through gdb.execute(to_string=True) to
    keep GDB from saying so)."""
    global _new_breakpoints
    _new_breakpoints = tuple(_SilentBreakpoint(s) for s in ("stdbg_step", "stdbg_replay_end", "stdbg_replay_diverged"))


class Stdbg:
    """The replay session: where the program is in the log, and the
    commands. state is one of: not started, starting, at step (stopped
    before step counter), in step (stopped inside step counter: a
    breakpoint of yours, next, ...), ended (the log ran out), diverged,
    failed (a fatal signal), exited, restarting."""

    def __init__(self, data):
        self.data = data
        self.steps = data.get("steps") or []
        self.total = len(self.steps)
        self.outcome = data.get("outcome") or {}
        self.counter = 1
        self.state = "not started"
        self.detail = ""
        self.quiet = False
        self.resuming = False
        self.reaping = False
        self.create_done = False
        self.back_from_create = False
        self.failed_thread = 0
        self.create_bps = []
        gdb.execute("python _make_breakpoints()", to_string=True)
        self.step_bp, self.end_bp, self.div_bp = _new_breakpoints
        gdb.events.stop.connect(self._on_stop)
        gdb.events.exited.connect(self._on_exit)

    def dispose(self):
        """Undo __init__ (the script is being sourced again)."""
        gdb.events.stop.disconnect(self._on_stop)
        gdb.events.exited.disconnect(self._on_exit)
        self.clear_create_bps()
        for bp in (self.step_bp, self.end_bp, self.div_bp):
            if bp.is_valid():
                bp.delete()

    # ---- reading the program -------------------------------------------

    @staticmethod
    def alive():
        inf = gdb.selected_inferior()
        return inf is not None and inf.pid > 0

    @staticmethod
    def read_long(name):
        return int(gdb.parse_and_eval("*(long *) &%s" % name))

    @staticmethod
    def ostid(tid):
        """The LWP of stdbg thread tid (stdbg_thread_ostids), 0 if none."""
        if tid <= 0 or tid >= 4096:
            return 0
        return int(gdb.parse_and_eval("((int *) &stdbg_thread_ostids)[%d]" % tid))

    def thread_table(self):
        """[(stdbg thread id, LWP, gdb.InferiorThread or None)] for every
        thread the program created under stdbg."""
        by_lwp = {th.ptid[1]: th for th in gdb.selected_inferior().threads()}
        most = max([1] + [s["thread"] for s in self.steps]) + sum(1 for s in self.steps if s.get("create"))
        out = []
        for tid in range(1, min(most, 4095) + 1):
            lwp = self.ostid(tid)
            if lwp:
                out.append((tid, lwp, by_lwp.get(lwp)))
        return out

    def gdb_thread(self, tid):
        """The GDB thread of stdbg thread tid, or None."""
        lwp = self.ostid(tid)
        if lwp:
            for th in gdb.selected_inferior().threads():
                if th.ptid[1] == lwp:
                    return th
        return None

    def stdbg_tid(self, thread):
        for tid, _, th in self.thread_table():
            if th is not None and th.num == thread.num:
                return tid
        return 0

    def step(self, k):
        return self.steps[k - 1] if 1 <= k <= self.total else None

    def set_counter(self, k):
        self.counter = k
        gdb.set_convenience_variable("counter", k)

    # ---- moving --------------------------------------------------------

    def clear_create_bps(self):
        for bp in self.create_bps:
            if bp.is_valid():
                bp.delete()
        self.create_bps = []

    def select(self, thread, show, from_caller=True):
        """Select thread and its frame in the user's code; print it (frame
        N) when show."""
        thread.switch()
        frames = _frames()
        if not frames:
            return
        i = _user_index(frames, from_caller)
        if not any(not _is_system(f) for f in frames):
            # A thread about to start: none of its frames is the user's
            # code yet (its step runs its function from the top).
            frames[i].select()
            if show:
                gdb.write("(the thread has not entered your code yet: this step starts its function)\n")
            return
        if show:
            gdb.execute("frame %d" % i)
        else:
            frames[i].select()

    def prepare(self):
        """Select the thread of the step in progress and set
        scheduler-locking for it. Returns the thread, or None."""
        self.clear_create_bps()
        st = self.step(self.counter)
        th = self.gdb_thread(st["thread"]) if st else None
        if th is None:
            return None
        th.switch()
        lock = "on"
        if st.get("create") and not self.create_done:
            # The creator waits for the new thread (the library keeps
            # every other thread parked): all run until the creator is back.
            frames = _frames()
            i = _caller_index(frames)
            if i >= 0:
                self.create_bps.append(_SilentBreakpoint("*%#x" % frames[i].pc(), th.num))
                lock = "off"
        elif st.get("exit"):
            # The program ends: let every thread go, or GDB, waiting for one
            # thread, loses track of the process exiting under it.
            lock = "off"
        gdb.execute("set scheduler-locking " + lock, to_string=True)
        return th

    def check_running(self):
        if not self.alive():
            raise gdb.GdbError("the program is not running: stdbg-start runs it again")
        if self.state == "ended":
            raise gdb.GdbError("the decision log ended after step %d: every thread is parked for good (stdbg-goto K restarts)" % self.total)
        if self.state == "diverged":
            raise gdb.GdbError("the replay diverged at step %d: every thread is parked for good (stdbg-goto K restarts)" % self.counter)
        if self.state == "failed":
            raise gdb.GdbError("the program failed during step %d (%s) (stdbg-goto K restarts)" % (self.counter, self.detail))
        if self.state not in ("at step", "in step"):
            raise gdb.GdbError("the program is %s" % self.state)

    def reap(self):
        """Let the threads that finished in earlier steps leave, each alone.
        A finished thread stays frozen in stdbg_step once it has handed
        over; left there, it would exit at the next step that runs every
        thread, racing GDB's thread bookkeeping (GDB 13 then loses track of
        it, or of the whole process when the program exits). The main
        thread is left alone: its exit shows only when the process ends."""
        pid = gdb.selected_inferior().pid
        done = sorted({s["thread"] for s in self.steps[:self.counter - 1] if s.get("leaves")})
        for tid in done:
            th = self.gdb_thread(tid)
            if th is None or not th.is_valid() or th.ptid[1] == pid:
                continue
            self.reaping = True
            try:
                th.switch()
                gdb.execute("set scheduler-locking on", to_string=True)
                # Returns when the thread is gone (GDB 13 says "No
                # unwaited-for children left").
                gdb.execute("continue", to_string=True)
            except gdb.error:
                pass
            finally:
                self.reaping = False

    def resume(self):
        """Run the rest of the step in progress: stop before the next."""
        self.check_running()
        if self.state == "at step":
            self.reap()
        if self.prepare() is None:
            st = self.step(self.counter)
            raise gdb.GdbError("no GDB thread runs stdbg thread %s" % (st["thread"] if st else "?"))
        self.back_from_create = False
        self.resuming = True
        try:
            gdb.execute("continue")
            while self.back_from_create and self.state == "in step" and self.alive():
                self.back_from_create = False
                self.prepare()
                gdb.execute("continue")
        finally:
            self.resuming = False

    def finish(self):
        """Run the operation of the step about to run and stop in the
        user's code right after the call (then next, step, print...)."""
        self.check_running()
        if self.state != "at step":
            raise gdb.GdbError("stdbg-finish works at the stop before a step (stdbg-next goes on)")
        self.prepare()
        frames = _frames()
        i = _caller_index(frames)
        if i <= 0:
            raise gdb.GdbError("thread %d is not in a thread operation" % self.step(self.counter)["thread"])
        frames[i - 1].select()
        gdb.execute("finish")

    def start(self):
        """(Re)start the program and stop before step 1."""
        self.clear_create_bps()
        if self.alive():
            self.state = "restarting"
            gdb.execute("with confirm off -- kill", to_string=True)
        self.state = "starting"
        self.detail = ""
        self.failed_thread = 0
        self.create_done = False
        self.set_counter(1)
        gdb.execute("run")

    def goto(self, k):
        """Run to the stop before step k (k = total + 1: to the end of the
        log), restarting first when k is behind."""
        if k < 1 or k > self.total + 1:
            raise gdb.GdbError("no step %d: the schedule has %d steps" % (k, self.total))
        if self.state not in ("at step", "in step") or k < self.counter or (k == self.counter and self.state == "in step"):
            self.quiet = True
            try:
                self.start()
            finally:
                self.quiet = False
        self.quiet = True
        try:
            while self.state in ("at step", "in step") and self.counter < k:
                self.resume()
                if self.state == "in step":
                    break  # a breakpoint of yours
        finally:
            self.quiet = False
        if self.state == "at step":
            self.show_step()

    # ---- stops ---------------------------------------------------------

    def _on_stop(self, ev):
        if self.reaping:
            return
        try:
            if isinstance(ev, gdb.BreakpointEvent):
                bps = ev.breakpoints
                if any(bp in self.create_bps for bp in bps):
                    self.at_create_return()
                    return
                if self.step_bp in bps:
                    self.at_step()
                    return
                if self.end_bp in bps:
                    self.at_end()
                    return
                if self.div_bp in bps:
                    self.at_diverged()
                    return
            if isinstance(ev, gdb.SignalEvent) and ev.stop_signal in _FATAL_SIGNALS:
                self.at_fatal_signal(ev.stop_signal)
                return
            if self.state == "at step":
                self.state = "in step"
        except gdb.error as e:
            _say("cannot follow this stop: %s" % e)

    def _on_exit(self, ev):
        self.clear_create_bps()
        was = self.state
        if was == "restarting":
            return
        self.state = "exited"
        code = getattr(ev, "exit_code", None)
        self.detail = "exit status %s" % code if code is not None else "killed"
        if code is None or was == "ended":
            return
        if was in ("starting", "not started"):
            _say("the program exited (%s) before its first thread operation: was the stdbg library preloaded?" % self.detail)
            return
        _say("the program exited (%s) during step %d of %d" % (self.detail, min(self.counter, self.total), self.total))

    def at_create_return(self):
        self.clear_create_bps()
        self.create_done = True
        self.back_from_create = True
        self.state = "in step"
        gdb.execute("set scheduler-locking on", to_string=True)
        if not self.resuming:
            _say("step %d: thread %d is back from creating a thread; stdbg-next (or continue) runs the rest of the step"
                 % (self.counter, self.step(self.counter)["thread"]))

    def at_step(self):
        k = self.read_long("stdbg_replay_step")
        self.set_counter(k)
        self.state = "at step"
        self.create_done = False
        st = self.step(k)
        if st is None:
            _say("the library is at step %d, the log has %d steps" % (k, self.total))
            return
        try:
            to = int(gdb.newest_frame().read_var("to"))
            if to != st["thread"]:
                _say("warning: step %d goes to thread %d, the log says thread %d" % (k, to, st["thread"]))
        except (gdb.error, ValueError):
            pass
        th = self.prepare()
        if th is None:
            _say("step %d: no GDB thread runs stdbg thread %d" % (k, st["thread"]))
            return
        if not self.quiet:
            _say(self.step_line(k) + "  [GDB thread %d, LWP %d]" % (th.num, th.ptid[1]))
        self.select(th, not self.quiet)

    def show_step(self):
        st = self.step(self.counter)
        th = self.gdb_thread(st["thread"]) if st else None
        if th is not None:
            _say(self.step_line(self.counter) + "  [GDB thread %d, LWP %d]" % (th.num, th.ptid[1]))
            self.select(th, True)

    def at_end(self):
        self.clear_create_bps()
        self.state = "ended"
        self.set_counter(self.total + 1)
        _say("the decision log ends after step %d: every thread is parked where it is" % self.total)
        self.print_outcome()
        self.print_threads()
        th = gdb.selected_thread()
        if th is not None:
            self.select(th, True)

    def at_diverged(self):
        self.clear_create_bps()
        k = self.read_long("stdbg_replay_step")
        self.set_counter(k)
        self.state = "diverged"
        _say("the replay diverged at step %d: the program no longer fits the decision log (the library said why above)" % k)
        st = self.step(k)
        if st:
            _say("the log expected: " + self.step_line(k))
        self.print_threads()
        th = (self.gdb_thread(st["thread"]) if st else None) or gdb.selected_thread()
        if th is not None:
            self.select(th, True)

    def at_fatal_signal(self, sig):
        self.clear_create_bps()
        th = gdb.selected_thread()
        tid = self.stdbg_tid(th)
        self.state = "failed"
        self.detail = sig
        self.failed_thread = tid
        _say("thread %d [GDB thread %d] received %s during step %d of %d" % (tid, th.num, sig, self.counter, self.total))
        self.print_outcome()
        self.select(th, True, from_caller=False)

    # ---- printing ------------------------------------------------------

    def step_line(self, k):
        st = self.step(k)
        return "step %d of %d: thread %d  %s  %s" % (k, self.total, st["thread"], st["call"], _short(st))

    def ending(self):
        """How the run under stdbg ended."""
        out = self.outcome
        if out.get("kind") == "max-depth":
            return "the run under stdbg stopped here (--max-depth)"
        if out.get("bug"):
            return ("%s %s" % (out.get("banner", ""), out.get("message", ""))).strip()
        return "no failure: the program ran on to its end under the default policy"

    def print_outcome(self):
        _say("under stdbg the run ended with: " + self.ending())
        for w in self.outcome.get("waits") or []:
            _say("  thread %d %s  %s" % (w["thread"], w["text"], _short(w)))
        f = self.outcome.get("failure")
        if f:
            _say("  thread %d fails  %s  %s" % (f["thread"], _short(f), f.get("source", "")))

    def print_threads(self):
        """Every stdbg thread: GDB thread, LWP and place in the user's code."""
        if not self.alive():
            raise gdb.GdbError("the program is not running")
        cur = gdb.selected_thread()
        st = self.step(self.counter) if self.state in ("at step", "in step") else None
        try:
            for tid, lwp, th in self.thread_table():
                if th is None:
                    gdb.write("  stdbg thread %d  LWP %d  (gone)\n" % (tid, lwp))
                    continue
                th.switch()
                frames = _frames()
                where = "?"
                if frames:
                    i = _user_index(frames)
                    where = "#%d %s at %s" % (i, frames[i].name() or "??", _where(frames[i]))
                mark = "  (runs next)" if st and st["thread"] == tid else ""
                gdb.write("  stdbg thread %d  GDB thread %d  LWP %d  %s%s\n" % (tid, th.num, lwp, where, mark))
        finally:
            if cur is not None and cur.is_valid():
                cur.switch()

    def where(self):
        if self.state in ("at step", "in step"):
            st = self.step(self.counter)
            th = self.gdb_thread(st["thread"])
            verb = "runs" if self.state == "at step" else "is running"
            gdb.write("Step %d of %d: thread %d %s %s at %s\n" % (self.counter, self.total, st["thread"], verb, st["call"], _short(st)))
            if st.get("source"):
                gdb.write("  %d\t%s\n" % (st.get("line", 0), st["source"]))
            if th is not None:
                gdb.write("  stdbg thread %d is GDB thread %d (LWP %d)\n" % (st["thread"], th.num, th.ptid[1]))
            nxt = self.step(self.counter + 1)
            if nxt:
                gdb.write("Next: step %d, thread %d: %s at %s\n" % (self.counter + 1, nxt["thread"], nxt["call"], _short(nxt)))
            else:
                gdb.write("Next: the end of the log; %s\n" % self.ending())
        elif self.state == "not started":
            gdb.write("The program is not running: stdbg-start runs it and stops before step 1.\n")
        elif self.state == "ended":
            gdb.write("The decision log ended after step %d of %d; %s\n" % (self.total, self.total, self.ending()))
        elif self.state == "diverged":
            gdb.write("The replay diverged at step %d of %d: the program no longer fits the log.\n" % (self.counter, self.total))
        elif self.state == "failed":
            gdb.write("Thread %d received %s during step %d of %d; %s\n" % (self.failed_thread, self.detail, self.counter, self.total, self.ending()))
        elif self.state == "exited":
            gdb.write("The program exited (%s) during step %d of %d.\n" % (self.detail, min(self.counter, self.total), self.total))
        else:
            gdb.write("The program is %s.\n" % self.state)

    def trace(self):
        cur = self.counter if self.state in ("at step", "in step", "failed", "diverged") else 0
        for k, st in enumerate(self.steps, 1):
            mark = "=>" if k == cur else "  "
            gdb.write("%s step %-4d thread %-3d %-44s %s\n" % (mark, k, st["thread"], st["call"], _short(st)))
        mark = "=>" if self.state in ("ended", "exited") else "  "
        gdb.write("%s end: %s\n" % (mark, self.ending()))


def _argv_quote(s):
    """Quote s as one word for GDB's argument splitting (file, ...)."""
    return "".join("\\" + c if c in " \t'\"\\" else c for c in s)


def _load(data):
    """Load the program, unless GDB was started on it."""
    binary = data["binary"]
    cur = gdb.current_progspace().filename
    if cur is None or os.path.realpath(cur) != os.path.realpath(binary):
        gdb.execute("with confirm off -- file " + _argv_quote(binary))
    if data.get("shell"):
        # The program starts through a shell (see the header): a POSIX one,
        # whatever $SHELL says. Only GDB sees the change: the program's
        # environment was copied from GDB's when GDB started.
        os.environ["SHELL"] = "/bin/sh"


class _Command(gdb.Command):
    def __init__(self, name, fn, doc):
        self.__doc__ = doc
        super().__init__(name, gdb.COMMAND_RUNNING)
        self.fn = fn

    def invoke(self, arg, from_tty):
        self.fn(arg.strip())


def _goto(arg):
    if arg == "end":
        k = _stdbg.total + 1
    else:
        try:
            k = int(arg)
        except ValueError:
            raise gdb.GdbError("usage: stdbg-goto K (a step, 1..%d) or stdbg-goto end" % _stdbg.total)
    _stdbg.goto(k)


if "_stdbg" in globals():
    _stdbg.dispose()
_data = json.loads(base64.b64decode(_stdbg_data).decode("utf-8"))
_load(_data)
_stdbg = Stdbg(_data)

_Command("stdbg-start", lambda arg: _stdbg.start(), """Start the program under the decision log again; stop before step 1.""")
_Command("stdbg-next", lambda arg: _stdbg.resume(), """Run the step about to run; stop before the next one and show it.
Only the thread of the step runs. The stop selects the GDB thread that runs
next and its frame in your code, so list, bt and print work there. After the
last step the program runs to the end of the log, or to its failure.""")
_Command("stdbg-finish", lambda arg: _stdbg.finish(), """Run the operation of the step about to run, alone, and stop in your code right after the call.
From there next, step, until and print work as usual; stdbg-next runs the rest of the step.""")
_Command("stdbg-goto", _goto, """stdbg-goto K: run to the stop before step K (restarting when K is behind).
stdbg-goto end: run to the end of the decision log (or the failure).""")
_Command("stdbg-where", lambda arg: _stdbg.where(), """Show the step about to run: its number, thread, operation and source line, and what runs next.""")
_Command("stdbg-trace", lambda arg: _stdbg.trace(), """Show the whole schedule, one line per step (thread, call, file:line); => marks the step about to run.""")
_Command("stdbg-threads", lambda arg: _stdbg.print_threads(), """Show every stdbg thread: its GDB thread, LWP and where it is in your code.""")
