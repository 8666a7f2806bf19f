// Command maps is the Go peer of the slate-rs map benchmark: Go's built-in
// map (a Swiss table with extendible hashing since Go 1.24, the design
// slate-rs follows), map[uint64]uint64 and map[string]uint64 (string and
// path keys), created with make and no size hint.
//
// The workload, the modes and the output are those of ../common.h: same
// keys (splitmix64 from 42; "key:" + decimal; path keys as ../keys.h makes
// them), same shuffles (state 7 for hits, 8 for deletes), same checksums,
// and the same lines:
//
//	go <u64|str|path> <phase> <N> <ns_per_op> <checksum>
//
// Go's map keeps the string header only: inserting a string key shares its
// bytes with the caller (no copy), where the C, C++ and Rust maps copy them.
// The delete checksum is the length before minus the length after (Go's
// delete returns nothing). The upsert phase counts with m[k]++, which the
// compiler turns into one map access (mapassign) per op.
//
// Usage: maps [--impl NAME] [--keys u64|str|path] [--mode bench|tail|mem]
//
//	[--clock cpu|wall] [--phases P,P,...] [--ops K] [N ...]
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// The phase clock of common.h: the process's CPU time (all threads, so the
// garbage collector's background work counts), or wall time with
// --clock wall; cost is one reading, subtracted from every phase.
type phaseClock struct {
	id   uintptr
	cost int64
}

const (
	clockMonotonic      = 1
	clockProcessCputime = 2
)

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

func shuffle(n int, seed uint64) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	s := seed
	for i := n; i > 1; i-- {
		j := int(splitmix64(&s) % uint64(i))
		perm[i-1], perm[j] = perm[j], perm[i-1]
	}
	return perm
}

func die(what string, n int) {
	fmt.Fprintf(os.Stderr, "maps(go): N=%d: %s\n", n, what)
	os.Exit(1)
}

type workload struct {
	n                              int
	keys, hit, del, miss, ups      []uint64
	sKeys, sHit, sDel, sMiss, sUps []string
	wantHit, wantSum, wantUps      uint64
}

// The path key of k (the recipe of ../keys.h): a prefix, words and '/'
// while shorter than a target of 44-74 bytes, then k's 16 hex digits.
var (
	pathPrefixes = []string{
		"/tmp/", "/home/alice/", "/usr/share/doc/", "/var/log/nginx/", "s3://assets-eu-west-1/",
		"file:///opt/app/releases/", "https://example.org/api/v2/", "https://cdn.example.net/media/",
	}
	pathWords = []string{
		"src", "lib", "include", "docs", "images", "assets", "config", "users",
		"2024", "reports", "build", "cache", "thumbnails", "v1", "data", "archive",
	}
)

func formatPath(k uint64) string {
	s := k
	b := make([]byte, 0, 100)
	b = append(b, pathPrefixes[splitmix64(&s)%8]...)
	target := 44 + int(splitmix64(&s)%31)
	for len(b) < target {
		b = append(b, pathWords[splitmix64(&s)%16]...)
		b = append(b, '/')
	}
	b = fmt.Appendf(b, "%016x", k)
	return string(b)
}

func formatKey(k uint64) string { return "key:" + strconv.FormatUint(k, 10) }

// keys: "u64" (no string forms), "str" or "path".
func makeWorkload(n int, keys string, lookups bool) *workload {
	w := &workload{n: n}
	s := uint64(42)
	w.keys = make([]uint64, n)
	for i := range w.keys {
		w.keys[i] = splitmix64(&s)
	}
	w.wantSum = uint64(n) * uint64(n+1) / 2
	if lookups {
		w.miss = make([]uint64, n)
		for i := range w.miss {
			w.miss[i] = splitmix64(&s)
		}
		perm := shuffle(n, 7)
		w.hit = make([]uint64, n)
		for i, p := range perm {
			w.hit[i] = w.keys[p]
			w.wantHit += w.keys[p] ^ uint64(p+1)
		}
		perm = shuffle(n, 8)
		w.del = make([]uint64, n)
		for i, p := range perm {
			w.del[i] = w.keys[p]
		}
		// upserts: op j counts key p[j] mod N, p a permutation of 0..2N-1
		perm = shuffle(2*n, 9)
		w.ups = make([]uint64, 2*n)
		for j, p := range perm {
			w.ups[j] = w.keys[p%n]
		}
		for _, k := range w.keys {
			w.wantUps += k ^ 2
		}
	}
	if keys != "u64" {
		format := formatKey
		if keys == "path" {
			format = formatPath
		}
		f := func(v []uint64) []string {
			if v == nil {
				return nil
			}
			out := make([]string, len(v))
			for i, k := range v {
				out[i] = format(k)
			}
			return out
		}
		w.sKeys, w.sHit, w.sDel, w.sMiss, w.sUps = f(w.keys), f(w.hit), f(w.del), f(w.miss), f(w.ups)
	}
	return w
}

var phaseNames = []string{"insert", "hit", "miss", "iterate", "delete", "upsert"}

const phaseUpsert = 5

type options struct {
	impl   string
	keys   string // u64, str or path
	mode   int
	wall   bool
	phases [6]bool // phaseNames asked for (--phases; default all)
	ops    uint64
	sizes  []int
}

func parse() options {
	o := options{impl: "go", keys: "u64", ops: 1000000, phases: [6]bool{true, true, true, true, true, true}}
	args := os.Args[1:]
	bad := func(a string) {
		fmt.Fprintf(os.Stderr, "maps(go): bad argument %s\n", a)
		os.Exit(2)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			i++
			if i >= len(args) {
				bad(a)
			}
			return args[i]
		}
		switch a {
		case "--impl":
			o.impl = next()
		case "--keys":
			switch k := next(); k {
			case "u64", "str", "path":
				o.keys = k
			default:
				bad(a)
			}
		case "--mode":
			switch next() {
			case "bench":
				o.mode = 0
			case "tail":
				o.mode = 1
			case "mem":
				o.mode = 2
			default:
				bad(a)
			}
		case "--clock":
			switch next() {
			case "cpu":
				o.wall = false
			case "wall":
				o.wall = true
			default:
				bad(a)
			}
		case "--phases":
			o.phases = [6]bool{}
			any := false
			for _, name := range strings.Split(next(), ",") {
				ok := false
				for p, pn := range phaseNames {
					if name == pn {
						o.phases[p], ok, any = true, true, true
					}
				}
				if !ok && name != "" {
					bad(a)
				}
			}
			if !any {
				bad(a)
			}
		case "--ops":
			v, err := strconv.ParseUint(next(), 10, 64)
			if err != nil {
				bad(a)
			}
			if v == 0 {
				v = 1
			}
			o.ops = v
		default:
			v, err := strconv.Atoi(a)
			if err != nil || v <= 0 {
				bad(a)
			}
			o.sizes = append(o.sizes, v)
		}
	}
	if len(o.sizes) == 0 {
		if o.mode == 0 {
			o.sizes = []int{1000, 100000, 10000000}
		} else {
			o.sizes = []int{10000000}
		}
	}
	return o
}

// The phase loops, one set per key type.

type bench interface {
	create()
	length() int
	insert(w *workload) uint64
	tail(w *workload, lat []uint32)
	hit(w *workload) uint64
	miss(w *workload) uint64
	iterate(w *workload) uint64
	del(w *workload) uint64
	upsert(w *workload) uint64
}

type u64Map struct{ m map[uint64]uint64 }

func (b *u64Map) create()     { b.m = make(map[uint64]uint64) }
func (b *u64Map) length() int { return len(b.m) }

//go:noinline
func (b *u64Map) insert(w *workload) uint64 {
	m := b.m
	for i, k := range w.keys {
		m[k] = uint64(i + 1)
	}
	return uint64(len(m))
}

//go:noinline
func (b *u64Map) tail(w *workload, lat []uint32) {
	m := b.m
	for i, k := range w.keys {
		t0 := time.Now()
		m[k] = uint64(i + 1)
		lat[i] = uint32(time.Since(t0))
	}
}

//go:noinline
func (b *u64Map) hit(w *workload) uint64 {
	m := b.m
	var sum uint64
	found := 0
	for _, k := range w.hit {
		if v, ok := m[k]; ok {
			sum += k ^ v
			found++
		}
	}
	if found != w.n {
		die("hit: key not found", w.n)
	}
	return sum
}

//go:noinline
func (b *u64Map) miss(w *workload) uint64 {
	m := b.m
	var missing uint64
	for _, k := range w.miss {
		if _, ok := m[k]; !ok {
			missing++
		}
	}
	return missing
}

//go:noinline
func (b *u64Map) iterate(w *workload) uint64 {
	var sum uint64
	count := 0
	for _, v := range b.m {
		sum += v
		count++
	}
	if count != w.n {
		die("iterate: wrong count", w.n)
	}
	return sum
}

//go:noinline
func (b *u64Map) del(w *workload) uint64 {
	m := b.m
	before := len(m)
	for _, k := range w.del {
		delete(m, k)
	}
	return uint64(before - len(m))
}

//go:noinline
func (b *u64Map) upsert(w *workload) uint64 {
	m := b.m
	for _, k := range w.ups {
		m[k]++
	}
	return uint64(len(m))
}

type strMap struct{ m map[string]uint64 }

func (b *strMap) create()     { b.m = make(map[string]uint64) }
func (b *strMap) length() int { return len(b.m) }

//go:noinline
func (b *strMap) insert(w *workload) uint64 {
	m := b.m
	for i, k := range w.sKeys {
		m[k] = uint64(i + 1)
	}
	return uint64(len(m))
}

//go:noinline
func (b *strMap) tail(w *workload, lat []uint32) {
	m := b.m
	for i, k := range w.sKeys {
		t0 := time.Now()
		m[k] = uint64(i + 1)
		lat[i] = uint32(time.Since(t0))
	}
}

//go:noinline
func (b *strMap) hit(w *workload) uint64 {
	m := b.m
	var sum uint64
	found := 0
	for i, k := range w.sHit {
		if v, ok := m[k]; ok {
			sum += w.hit[i] ^ v
			found++
		}
	}
	if found != w.n {
		die("hit: key not found", w.n)
	}
	return sum
}

//go:noinline
func (b *strMap) miss(w *workload) uint64 {
	m := b.m
	var missing uint64
	for _, k := range w.sMiss {
		if _, ok := m[k]; !ok {
			missing++
		}
	}
	return missing
}

//go:noinline
func (b *strMap) iterate(w *workload) uint64 {
	var sum uint64
	count := 0
	for _, v := range b.m {
		sum += v
		count++
	}
	if count != w.n {
		die("iterate: wrong count", w.n)
	}
	return sum
}

//go:noinline
func (b *strMap) del(w *workload) uint64 {
	m := b.m
	before := len(m)
	for _, k := range w.sDel {
		delete(m, k)
	}
	return uint64(before - len(m))
}

//go:noinline
func (b *strMap) upsert(w *workload) uint64 {
	m := b.m
	for _, k := range w.sUps {
		m[k]++
	}
	return uint64(len(m))
}

func rusage() syscall.Rusage {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}

func median(v []int64) float64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	n := len(v)
	if n%2 == 1 {
		return float64(v[n/2])
	}
	return (float64(v[n/2-1]) + float64(v[n/2])) / 2
}

func main() {
	o := parse()
	kt := o.keys
	var b bench = &u64Map{}
	if kt != "u64" {
		b = &strMap{} // str and path keys
	}
	line := func(phase string, n int, ns float64, ck uint64) {
		fmt.Printf("%s %s %s %d %.3f %d\n", o.impl, kt, phase, n, ns, ck)
	}
	switch o.mode {
	case 1:
		n := o.sizes[0]
		w := makeWorkload(n, o.keys, false)
		lat := make([]uint32, n)
		runtime.GC()
		b.create()
		csw := rusage().Nivcsw
		t0 := time.Now()
		b.tail(w, lat)
		total := time.Since(t0)
		csw = rusage().Nivcsw - csw
		l := uint64(b.length())
		if l != uint64(n) {
			die("tail: wrong length", n)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		line("tail_mean", n, float64(total.Nanoseconds())/float64(n), l)
		for _, q := range []struct {
			name string
			q    float64
		}{{"tail_p50", 0.5}, {"tail_p99", 0.99}, {"tail_p999", 0.999}, {"tail_p9999", 0.9999}} {
			idx := int(q.q * float64(n))
			if idx >= n {
				idx = n - 1
			}
			line(q.name, n, float64(lat[idx]), l)
		}
		line("tail_max", n, float64(lat[n-1]), l)
		line("tail_nivcsw", n, float64(csw), l)
	case 2:
		n := o.sizes[0]
		w := makeWorkload(n, o.keys, false)
		runtime.GC()
		base := uint64(rusage().Maxrss) * 1024
		b.create()
		l := b.insert(w)
		peak := uint64(rusage().Maxrss) * 1024
		if l != uint64(n) || b.length() != n {
			die("mem: wrong length", n)
		}
		line("mem_bytes_per_entry", n, float64(peak-base)/float64(n), l)
		line("mem_peak_mib", n, float64(peak)/(1024*1024), l)
		runtime.KeepAlive(w)
	default:
		for _, n := range o.sizes {
			w := makeWorkload(n, o.keys, true)
			runtime.GC()
			reps := int(o.ops / uint64(n))
			if reps < 1 {
				reps = 1
			}
			if reps > 1000 {
				reps = 1000
			}
			core := false
			for p := 0; p < phaseUpsert; p++ {
				core = core || o.phases[p]
			}
			t := make([][]int64, len(phaseNames))
			for p := range t {
				t[p] = make([]int64, reps)
			}
			var ck [6]uint64
			clock := newPhaseClock(o.wall)
			for r := 0; r < reps; r++ {
				var c [6]uint64
				timed := func(p int, phase func(*workload) uint64) {
					t0 := clock.now()
					c[p] = phase(w)
					t[p][r] = clock.since(t0)
				}
				if core {
					b.create()
					timed(0, b.insert)
					timed(1, b.hit)
					timed(2, b.miss)
					timed(3, b.iterate)
					timed(4, b.del)
					if c[0] != uint64(n) {
						die("insert: wrong length", n)
					}
					if c[1] != w.wantHit {
						die("hit: wrong checksum", n)
					}
					if c[2] != uint64(n) {
						die("miss: a miss key was found", n)
					}
					if c[3] != w.wantSum {
						die("iterate: wrong sum", n)
					}
					if c[4] != uint64(n) || b.length() != 0 {
						die("delete: map not emptied", n)
					}
				}
				if o.phases[phaseUpsert] {
					b.create()
					timed(phaseUpsert, b.upsert)
					if c[5] != uint64(n) || b.length() != n {
						die("upsert: wrong length", n)
					}
					// the checksum: hit's sum(k ^ value) over the counts, untimed
					c[5] = b.hit(w)
					if c[5] != w.wantUps {
						die("upsert: wrong counts", n)
					}
				}
				ck = c
			}
			for p, name := range phaseNames {
				if !o.phases[p] {
					continue
				}
				ops := float64(n)
				if p == phaseUpsert {
					ops = float64(2 * n) // upsert: 2N ops
				}
				line(name, n, median(t[p])/ops, ck[p])
			}
			b.create() // drop the last map
			runtime.KeepAlive(w)
		}
	}
}
