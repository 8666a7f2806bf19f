// Command snapshot is the Go peer of the slate-rs snapshot benchmark:
// Go's built-in map saved with encoding/gob (a new Encoder per save,
// into a bytes.Buffer whose memory was allocated and touched before) and
// loaded with a new Decoder from the bytes into a new map (the map's
// allocation included). Its workloads are ../snapshot_slate.c's maps,
// with the same keys and values:
//
//	map-u64-int      map[uint64]uint64: N u64 keys (splitmix64 from 42), value i + 1
//	map-u64-codec    map[uint64][16]byte: the 16-byte value of entry i
//	                 (i + 1 and its complement, little-endian)
//	map-words-int, map-words-codec, map-paths-int, map-paths-codec
//	                 map[string]uint64 and map[string][16]byte over the
//	                 first N lines of words.txt and paths.txt
//
// The repetitions are ../common.h's: a warm-up run of each operation
// (with the full checks), then as many runs as fit the budget, the
// operations taking turns, each after an untimed runtime.GC() so that no
// run collects another's garbage; the clock is the process's CPU time
// (all threads: the collector's work during a run counts) or wall time.
// Output, one line per operation:
//
//	go-gob <workload> <save|load> <N> <entries> <ns> <bytes>
//
// (bytes: gob's output). Checks: every save's length (gob writes a map
// in its iteration order, which varies, so the bytes do; their number
// does not); on the warm-up run the save decoded again and compared
// with the map; every load's length, and on the warm-up run every key's
// value.
//
// Usage: snapshot [--keys DIR] [--clock cpu|wall] [--budget-ms MS]
//
//	[--min-reps K] [--max-reps K] [--workloads W,W,...] N ...
package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const (
	clockMonotonic      = 1
	clockProcessCputime = 2
)

// The clock of ../common.h, less the cost of one reading.
type phaseClock struct {
	id   uintptr
	cost int64
}

func (c *phaseClock) now() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, c.id, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Sec*1e9 + ts.Nsec
}

func (c *phaseClock) since(t0 int64) int64 {
	d := c.now() - t0 - c.cost
	if d < 0 {
		return 0
	}
	return d
}

func newPhaseClock(wall bool) *phaseClock {
	c := &phaseClock{id: clockProcessCputime}
	if wall {
		c.id = clockMonotonic
	}
	d := make([]int64, 201)
	for i := range d {
		a := c.now()
		d[i] = c.now() - a
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	c.cost = d[100]
	return c
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func value16(i int) [16]byte {
	var v [16]byte
	a := uint64(i) + 1
	b := ^a
	for k := 0; k < 8; k++ {
		v[k] = byte(a >> (8 * k))
		v[8+k] = byte(b >> (8 * k))
	}
	return v
}

type opts struct {
	clock            *phaseClock
	budget           int64
	minReps, maxReps int64
}

func die(what string, n int) {
	fmt.Fprintf(os.Stderr, "snapshot (go): N=%d: %s\n", n, what)
	os.Exit(1)
}

func median(t []int64) int64 {
	sort.Slice(t, func(i, j int) bool { return t[i] < t[j] })
	m := len(t)
	if m%2 == 1 {
		return t[m/2]
	}
	return (t[m/2-1] + t[m/2]) / 2
}

func run[K comparable, V comparable](o *opts, workload string, keys []K, val func(int) V) {
	n := len(keys)
	m := make(map[K]V)
	for i, k := range keys {
		m[k] = val(i)
	}
	if len(m) != n {
		die("duplicate keys", n)
	}
	var first bytes.Buffer
	if err := gob.NewEncoder(&first).Encode(m); err != nil {
		die("gob encode: "+err.Error(), n)
	}
	snap := first.Bytes()
	size := len(snap)
	mem := make([]byte, size)
	for i := range mem {
		mem[i] = 0xEE
	}
	out := bytes.NewBuffer(mem[:0])
	verify := func(l map[K]V) {
		if len(l) != n {
			die("loaded: length", n)
		}
		for i, k := range keys {
			if v, ok := l[k]; !ok || v != val(i) {
				die("loaded: a value differs", n)
			}
		}
	}

	save := func(full bool) int64 {
		out.Reset()
		runtime.GC()
		t0 := o.clock.now()
		err := gob.NewEncoder(out).Encode(m)
		t := o.clock.since(t0)
		if err != nil || out.Len() != size {
			die("save", n)
		}
		if full {
			var l map[K]V
			if err := gob.NewDecoder(bytes.NewReader(out.Bytes())).Decode(&l); err != nil {
				die("save: decoding it: "+err.Error(), n)
			}
			verify(l)
		}
		return t
	}
	load := func(full bool) int64 {
		runtime.GC()
		t0 := o.clock.now()
		var l map[K]V
		err := gob.NewDecoder(bytes.NewReader(snap)).Decode(&l)
		t := o.clock.since(t0)
		if err != nil || len(l) != n {
			die("load", n)
		}
		if full {
			verify(l)
		}
		return t
	}

	warm := save(true) + load(true)
	reps := o.maxReps
	if warm > 0 {
		reps = o.budget / warm
	}
	reps = max(o.minReps, min(o.maxReps, reps))
	ts := [2][]int64{}
	for r := int64(0); r < reps; r++ {
		ts[0] = append(ts[0], save(false))
		ts[1] = append(ts[1], load(false))
	}
	for p, name := range []string{"save", "load"} {
		fmt.Printf("go-gob %s %s %d %d %d %d\n", workload, name, n, n, median(ts[p]), size)
	}
}

func readKeys(path string, n int) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot read %s (run.sh writes it with keygen)\n", path)
		os.Exit(2)
	}
	lines := strings.SplitN(string(b), "\n", n+1)
	if len(lines) < n+1 {
		fmt.Fprintf(os.Stderr, "%s: fewer than %d keys\n", path, n)
		os.Exit(2)
	}
	return lines[:n]
}

var workloads = []string{
	"map-u64-int", "map-u64-codec", "map-words-int", "map-words-codec", "map-paths-int", "map-paths-codec",
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: snapshot [--keys DIR] [--clock cpu|wall] [--budget-ms MS] [--min-reps K] [--max-reps K]\n"+
		"                [--workloads W,W,...] N ...")
	os.Exit(2)
}

func main() {
	dir := "."
	wall := false
	budgetMs, minReps, maxReps := int64(1500), int64(5), int64(101)
	var list []string
	var sizes []int
	args := os.Args[1:]
	val := func(i *int) string {
		if *i+1 >= len(args) {
			usage()
		}
		*i++
		return args[*i]
	}
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			usage()
		}
		return v
	}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--keys":
			dir = val(&i)
		case "--clock":
			switch val(&i) {
			case "cpu":
				wall = false
			case "wall":
				wall = true
			default:
				usage()
			}
		case "--budget-ms":
			budgetMs = num(val(&i))
		case "--min-reps":
			minReps = num(val(&i))
		case "--max-reps":
			maxReps = num(val(&i))
		case "--workloads":
			list = strings.Split(val(&i), ",")
			// Other programs' workloads are skipped; an unknown map one is refused.
			for _, w := range list {
				known := false
				for _, k := range workloads {
					known = known || k == w
				}
				if strings.HasPrefix(w, "map-") && !known {
					usage()
				}
			}
		default:
			v := num(args[i])
			if v < 10 || v > 100000000 {
				usage()
			}
			sizes = append(sizes, int(v))
		}
	}
	if len(sizes) == 0 || minReps < 1 || maxReps < minReps {
		usage()
	}
	o := &opts{clock: newPhaseClock(wall), budget: budgetMs * 1000000, minReps: minReps, maxReps: maxReps}
	wanted := func(w string) bool {
		if list == nil {
			return true
		}
		for _, x := range list {
			if x == w {
				return true
			}
		}
		return false
	}
	intVal := func(i int) uint64 { return uint64(i) + 1 }
	for _, n := range sizes {
		if wanted("map-u64-int") || wanted("map-u64-codec") {
			keys := make([]uint64, n)
			s := uint64(42)
			for i := range keys {
				keys[i] = splitmix64(&s)
			}
			if wanted("map-u64-int") {
				run(o, "map-u64-int", keys, intVal)
			}
			if wanted("map-u64-codec") {
				run(o, "map-u64-codec", keys, value16)
			}
		}
		for _, f := range []string{"words", "paths"} {
			wi, wc := "map-"+f+"-int", "map-"+f+"-codec"
			if !wanted(wi) && !wanted(wc) {
				continue
			}
			keys := readKeys(dir+"/"+f+".txt", n)
			if wanted(wi) {
				run(o, wi, keys, intVal)
			}
			if wanted(wc) {
				run(o, wc, keys, value16)
			}
		}
	}
}
