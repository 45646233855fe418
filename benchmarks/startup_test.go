package benchmarks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stdbg/stdbg/engine/executor"
	"github.com/stdbg/stdbg/engine/search"
	"github.com/stdbg/stdbg/model/wire"
	"github.com/stdbg/stdbg/target/ctarget"
	"github.com/stdbg/stdbg/target/targetproc"
)

// BenchmarkStartup shows where the milliseconds of a search of
// int main(void){return 0;} go, phase by phase, as stdbg find runs them:
// locating the interposition library in the cache ("library"), finding
// the program already compiled ("build"), starting it as a fork server up
// to its greeting ("launch"), placing it on its CPU ("pin"), the search
// itself, which is a probe execution that counts the threads to keep and
// the one execution of the program ("search"), and ending the fork server
// and its last child ("close"). "native" is the program run on its own
// (fork, exec, wait), the cost no checker can avoid; "cli" is the whole
// command, stdbg find --no-save, built from this tree, which adds stdbg's
// own start (the Go runtime, flags, configuration) and its report, and
// "version" that start alone; both report their CPU time too (cpu-ms/op,
// stdbg's and its processes'):
//
//	go test -run '^$' -bench Startup -benchtime 50x ./benchmarks
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "empty.c")
	if err := os.WriteFile(src, []byte("int main(void){return 0;}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	exe, err := ctarget.Build(src)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ctarget.Library(); err != nil {
		b.Fatal(err)
	}
	b.Run("phases", func(b *testing.B) {
		var lib, build, launch, pin, srch, cls time.Duration
		for b.Loop() {
			t0 := time.Now()
			l, err := ctarget.Library()
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := ctarget.Build(src); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			p, err := ctarget.Start(targetproc.Config{Binary: exe, Library: l, Flags: wire.FlagFastExit, KeepThreads: true})
			if err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			release, err := targetproc.PinAlone(p)
			if err != nil {
				b.Fatal(err)
			}
			t4 := time.Now()
			c := executor.New(p, executor.Options{FastExit: true})
			res, err := search.Explore(context.Background(), c, search.NewDPOR(), search.Options{All: true})
			if err != nil || !res.Complete || len(res.Bugs) != 0 {
				b.Fatalf("%v, complete %v, bugs %v", err, res.Complete, res.Bugs)
			}
			t5 := time.Now()
			release()
			if err := p.Close(); err != nil {
				b.Fatal(err)
			}
			t6 := time.Now()
			lib += t1.Sub(t0)
			build += t2.Sub(t1)
			launch += t3.Sub(t2)
			pin += t4.Sub(t3)
			srch += t5.Sub(t4)
			cls += t6.Sub(t5)
		}
		ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) }
		b.ReportMetric(ms(lib), "library-ms")
		b.ReportMetric(ms(build), "build-ms")
		b.ReportMetric(ms(launch), "launch-ms")
		b.ReportMetric(ms(pin), "pin-ms")
		b.ReportMetric(ms(srch), "search-ms")
		b.ReportMetric(ms(cls), "close-ms")
		b.ReportMetric(ms(lib+build+launch+pin+srch+cls), "total-ms")
	})
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(exe).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	bin := filepath.Join(dir, "stdbg")
	built := false
	// The commands of stdbg, with their CPU time (stdbg's and its
	// processes', user and system: what a loaded machine does not
	// stretch as it stretches the wall time): "version" is stdbg's own
	// start (the Go runtime and the initialisation of every package
	// linked in), "cli" a whole find.
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"cli", []string{"find", "--no-save", src}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if !built {
				if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stdbg").CombinedOutput(); err != nil {
					b.Fatalf("building stdbg: %v\n%s", err, out)
				}
				built = true
			}
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, bc.args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("stdbg %s: %v\n%s", bc.name, err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/op")
		})
	}
}
