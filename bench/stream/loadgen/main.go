// The load generator of bench/stream, a process of its own (started by bench.ts): opens N
// streams, then for each round makes one console change and records, per stream, when the
// change's bytes arrived, measured from just before the change request.
//
// Two clocks per stream:
//   - kernel: the receive timestamp the kernel put on the bytes as they reached the client's
//     socket (SO_TIMESTAMPNS). This is when the stream "has it", whatever this process is doing:
//     it is what 1,000 real clients, each reading its own socket, would see.
//   - read: when this process's read returned them. One process reads every stream, so the
//     last streams of a round also wait for this process to read the ones before them.
//
// Written in Go, not Node, for the kernel timestamps (recvmsg's control messages); every stream
// is read by one epoll loop on one thread, a system call or two per read and no scheduling in
// between, so the generator takes as little of the machine's two cores from the server as it can.
//
// Messages are JSON lines: stdin `{"type":"start",…}`, stdout `{"type":"connected"}`, stdin
// `{"type":"go"}`, stdout `{"type":"done",…}`. BENCH_TRACE=1 prints each round to stderr.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

type start struct {
	APIPort      int      `json:"apiPort"`
	ConsolePort  int      `json:"consolePort"`
	AdminToken   string   `json:"adminToken"`
	StreamPath   string   `json:"streamPath"`
	Keys         []string `json:"keys"`
	ConfigPath   string   `json:"configPath"`
	Streams      int      `json:"streams"`
	Rounds       int      `json:"rounds"`
	WarmupRounds int      `json:"warmupRounds"`
	// Warm-up lasts at least this long after `go`, however many rounds that takes.
	WarmupMs           int `json:"warmupMs"`
	ConnectConcurrency int `json:"connectConcurrency"`
	RoundTimeoutMs     int `json:"roundTimeoutMs"`
	// The loopback address the streams connect from (default 127.0.0.1): generators that share
	// many streams use one each, so each has its own ~28,000 ephemeral ports.
	SourceAddress string `json:"sourceAddress"`
}

type roundResult struct {
	// Arrival in ms after the change request started, per stream that got it: kernel clock.
	LatenciesMs []float64 `json:"latenciesMs"`
	// The same arrivals as this process read them.
	ReadLatenciesMs []float64 `json:"readLatenciesMs"`
	Missing         int       `json:"missing"`
	// The management API's own response time.
	ChangeRequestMs float64 `json:"changeRequestMs"`
}

type cpuMs struct {
	Connect float64 `json:"connect"`
	Rounds  float64 `json:"rounds"`
	Total   float64 `json:"total"`
}

type done struct {
	Type      string        `json:"type"`
	ConnectMs float64       `json:"connectMs"`
	Rounds    []roundResult `json:"rounds"`
	// The warm-up rounds, reported apart: the server's first seconds after start.
	Warmup      []roundResult `json:"warmup"`
	CPUMs       cpuMs         `json:"cpuMs"`
	ClosedEarly int64         `json:"closedEarly"`
}

// round is what every reader looks for: the marker of this round's change.
type round struct {
	id      int
	marker  []byte
	waiting atomic.Int64
	all     chan struct{}
}

type stream struct {
	fd int
	// Unix ns of the arrival in this round, or 0; written by the epoll loop only.
	kernelNs atomic.Int64
	readNs   atomic.Int64
	// The tail of the previous read, so that a marker split across reads is still found.
	tail      []byte
	tailRound int
}

var (
	current     atomic.Pointer[round]
	closedEarly atomic.Int64
	finished    atomic.Bool
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var options start
	if err := json.Unmarshal(readLine(in), &options); err != nil {
		fail("start message: %v", err)
	}
	cpuStart := cpuTime()
	connectStarted := time.Now()
	streams := openAll(&options)
	connectMs := msSince(connectStarted)
	cpuConnected := cpuTime() - cpuStart
	emit(map[string]string{"type": "connected"})
	readLine(in) // go

	cpuRoundsStart := cpuTime()
	client := &http.Client{Timeout: 10 * time.Second}
	var rounds, warmup []roundResult
	warmupEnds := time.Now().Add(time.Duration(options.WarmupMs) * time.Millisecond)
	for r := 0; len(rounds) < options.Rounds; r++ {
		result := runRound(&options, client, streams, r)
		if r < options.WarmupRounds || time.Now().Before(warmupEnds) {
			warmup = append(warmup, result)
		} else {
			rounds = append(rounds, result)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cpuRounds := cpuTime() - cpuRoundsStart
	finished.Store(true)
	for _, s := range streams {
		syscall.Close(s.fd)
	}
	emit(done{
		Type:        "done",
		ConnectMs:   connectMs,
		Rounds:      rounds,
		Warmup:      warmup,
		CPUMs:       cpuMs{Connect: cpuConnected, Rounds: cpuRounds, Total: cpuTime() - cpuStart},
		ClosedEarly: closedEarly.Load(),
	})
}

func runRound(options *start, client *http.Client, streams []*stream, r int) roundResult {
	value := fmt.Sprintf("bench-%d-%d-%x", os.Getpid(), r, rand.Uint64())
	next := &round{id: r, marker: []byte(value), all: make(chan struct{})}
	next.waiting.Store(int64(len(streams)))
	for _, s := range streams {
		s.kernelNs.Store(0)
		s.readNs.Store(0)
	}
	current.Store(next)
	started := time.Now()
	if err := change(options, client, value); err != nil {
		fail("change: %v", err)
	}
	changeRequestMs := msSince(started)
	select {
	case <-next.all:
	case <-time.After(time.Duration(options.RoundTimeoutMs) * time.Millisecond):
	}
	startNs := started.UnixNano()
	result := roundResult{ChangeRequestMs: changeRequestMs}
	for _, s := range streams {
		kernel, read := s.kernelNs.Load(), s.readNs.Load()
		if read == 0 {
			result.Missing++
			continue
		}
		if kernel == 0 { // no timestamp came with the bytes: the read time is all we know
			kernel = read
		}
		result.LatenciesMs = append(result.LatenciesMs, float64(kernel-startNs)/1e6)
		result.ReadLatenciesMs = append(result.ReadLatenciesMs, float64(read-startNs)/1e6)
	}
	if os.Getenv("BENCH_TRACE") != "" && len(result.LatenciesMs) > 0 {
		k := sorted(result.LatenciesMs)
		u := sorted(result.ReadLatenciesMs)
		fmt.Fprintf(os.Stderr, "round start=%.2f kernel first=%.2f p50=%.2f last=%.2f read first=%.2f p50=%.2f last=%.2f put=%.2f\n",
			float64(startNs%100_000_000_000)/1e6, k[0], k[len(k)/2], k[len(k)-1], u[0], u[len(u)/2], u[len(u)-1], changeRequestMs)
	}
	return result
}

// change is the one change of a round: PUT {configPath} on the console.
func change(options *start, client *http.Client, value string) error {
	body, _ := json.Marshal(map[string]any{"value": value, "is_public": true})
	url := fmt.Sprintf("http://127.0.0.1:%d%s", options.ConsolePort, options.ConfigPath)
	req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+options.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}

// openAll opens every stream, a bounded number of connects at a time (the accept backlog is
// finite), then reads them all from one epoll loop.
func openAll(options *start) []*stream {
	streams := make([]*stream, options.Streams)
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(options.ConnectConcurrency, options.Streams)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= options.Streams {
					return
				}
				streams[i] = open(options, i)
			}
		}()
	}
	wg.Wait()
	go readAll(streams)
	return streams
}

// open connects one stream on a plain blocking socket, sends the request and reads until the
// `resync` has arrived; the socket is then made non-blocking for the epoll loop.
func open(options *start, index int) *stream {
	check := func(err error) {
		if err != nil {
			fail("stream %d: %v", index, err)
		}
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	check(err)
	check(syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1))
	check(syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1))
	if options.SourceAddress != "" {
		var source [4]byte
		copy(source[:], net.ParseIP(options.SourceAddress).To4())
		// IP_BIND_ADDRESS_NO_PORT (24): the port is chosen at connect, per destination, rather
		// than one port per bound socket out of the whole range.
		check(syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, 24, 1))
		check(syscall.Bind(fd, &syscall.SockaddrInet4{Addr: source}))
	}
	check(syscall.Connect(fd, &syscall.SockaddrInet4{Port: options.APIPort, Addr: [4]byte{127, 0, 0, 1}}))
	key := options.Keys[index%len(options.Keys)]
	request := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nX-Service-API-Key: %s\r\n\r\n",
		options.StreamPath, key)
	_, err = syscall.Write(fd, []byte(request))
	check(err)
	var head strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(head.String(), "event: resync") {
		n, err := syscall.Read(fd, buf)
		check(err)
		if n == 0 {
			fail("stream %d: closed before its resync", index)
		}
		head.Write(buf[:n])
		if head.Len() >= 12 && !strings.HasPrefix(head.String(), "HTTP/1.1 200") {
			fail("stream %d: %s", index, strings.SplitN(head.String(), "\r\n", 2)[0])
		}
	}
	check(syscall.SetNonblock(fd, true))
	return &stream{fd: fd, tailRound: -1}
}

// readAll reads every stream from one thread: epoll says which sockets have bytes, each is
// read once per wake-up, and the first read holding the round's marker stamps the stream.
func readAll(streams []*stream) {
	runtime.LockOSThread()
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		fail("epoll: %v", err)
	}
	byFd := make(map[int32]*stream, len(streams))
	for _, s := range streams {
		byFd[int32(s.fd)] = s
		event := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(s.fd)}
		if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, s.fd, &event); err != nil {
			fail("epoll_ctl: %v", err)
		}
	}
	events := make([]syscall.EpollEvent, 1024)
	buf := make([]byte, 16*1024)
	oob := make([]byte, 128)
	for !finished.Load() {
		n, err := syscall.EpollWait(epfd, events, 100)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			fail("epoll_wait: %v", err)
		}
		for _, event := range events[:n] {
			s := byFd[event.Fd]
			got, oobn, _, _, err := syscall.Recvmsg(s.fd, buf, oob, 0)
			if err == syscall.EAGAIN {
				continue
			}
			if err != nil || got == 0 {
				if !finished.Load() {
					closedEarly.Add(1)
				}
				syscall.EpollCtl(epfd, syscall.EPOLL_CTL_DEL, s.fd, nil)
				continue
			}
			s.arrive(buf[:got], oob[:oobn])
		}
	}
}

// arrive checks one read for the round's marker.
func (s *stream) arrive(chunk, oob []byte) {
	readNs := time.Now().UnixNano()
	r := current.Load()
	if r == nil || s.readNs.Load() != 0 {
		return
	}
	if s.tailRound == r.id && len(s.tail) > 0 {
		chunk = append(append([]byte{}, s.tail...), chunk...)
	}
	if !bytes.Contains(chunk, r.marker) {
		// An event split across reads: keep enough of this one to find the marker next time.
		s.tail = append(s.tail[:0], chunk[max(0, len(chunk)-len(r.marker)):]...)
		s.tailRound = r.id
		return
	}
	s.kernelNs.Store(kernelTime(oob))
	s.readNs.Store(readNs)
	if r.waiting.Add(-1) == 0 {
		close(r.all)
	}
}

// kernelTime is the SO_TIMESTAMPNS receive time (Unix ns) among the control messages, or 0.
func kernelTime(oob []byte) int64 {
	messages, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range messages {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SO_TIMESTAMPNS && len(m.Data) >= 16 {
			ts := (*syscall.Timespec)(unsafe.Pointer(&m.Data[0]))
			return ts.Nano()
		}
	}
	return 0
}

func readLine(in *bufio.Reader) []byte {
	line, err := in.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		fail("stdin: %v", err)
	}
	return line
}

var stdout = bufio.NewWriter(os.Stdout)

func emit(message any) {
	data, _ := json.Marshal(message)
	stdout.Write(append(data, '\n'))
	stdout.Flush()
}

func cpuTime() float64 {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e6
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

func sorted(xs []float64) []float64 {
	out := append([]float64{}, xs...)
	sort.Float64s(out)
	return out
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "load generator: "+format+"\n", args...)
	os.Exit(1)
}
