package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// regInput is one operation on the register of job Key: register (put the
// value Value in the job's Meta), read, or deregister (purge: absent).
type regInput struct {
	Op    string // "put", "get", "del"
	Key   string
	Value string
}

// regOutput is a read's result ("" with Absent: no such job).
type regOutput struct {
	Value  string
	Absent bool
}

// registerModel is a map of independent registers (job ID -> Meta value or
// absent), partitioned by key. Puts and deletes are blind writes; a read
// must return the current value.
var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range history {
			k := op.Input.(regInput).Key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		sort.Strings(keys)
		out := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() any { return "" }, // "" is absent (values are never "")
	Step: func(state, input, output any) (bool, any) {
		in := input.(regInput)
		switch in.Op {
		case "put":
			return true, in.Value
		case "del":
			return true, ""
		}
		out := output.(regOutput)
		if out.Absent {
			return state.(string) == "", state
		}
		return out.Value == state.(string), state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(regInput)
		if in.Op == "get" {
			return fmt.Sprintf("get(%s) -> %+v", in.Key, output)
		}
		return fmt.Sprintf("%s(%s, %q)", in.Op, in.Key, in.Value)
	},
}

// The model refuses a read of an overwritten value: the check is not
// vacuous.
func TestRegisterModelRejectsStaleRead(t *testing.T) {
	h := []porcupine.Operation{
		{ClientId: 0, Input: regInput{Op: "put", Key: "k", Value: "1"}, Call: 0, Return: 10},
		{ClientId: 0, Input: regInput{Op: "put", Key: "k", Value: "2"}, Call: 20, Return: 30},
		{ClientId: 1, Input: regInput{Op: "get", Key: "k"}, Output: regOutput{Value: "1"}, Call: 40, Return: 50},
	}
	if porcupine.CheckOperations(registerModel, h) {
		t.Fatal("a stale read passed the check")
	}
	h[2].Output = regOutput{Value: "2"}
	h[1].Return = math.MaxInt64 // an unknown outcome may have happened
	if !porcupine.CheckOperations(registerModel, h) {
		t.Fatal("a read of a write with an unknown outcome failed the check")
	}
}

// history records operations from several goroutines.
type history struct {
	start            time.Time
	mu               sync.Mutex
	ops              []porcupine.Operation
	unknown, dropped int
}

func (h *history) now() int64 { return int64(time.Since(h.start)) }

func (h *history) add(op porcupine.Operation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if op.Return == math.MaxInt64 {
		h.unknown++
	}
	h.ops = append(h.ops, op)
}

func (h *history) drop() {
	h.mu.Lock()
	h.dropped++
	h.mu.Unlock()
}

// notSent reports whether err says the request never reached a server (a
// refused dial): such an operation had no effect and is left out.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// runClient issues random operations on keys against random servers until
// stop is closed, recording each in h.
func runClient(id int, servers []*serverProc, keys []string, h *history, stop <-chan struct{}) {
	hc := &http.Client{Timeout: 10 * time.Second}
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		addr := servers[rng.IntN(len(servers))].addr
		in := regInput{Key: keys[rng.IntN(len(keys))]}
		switch r := rng.IntN(10); {
		case r < 4:
			in.Op, in.Value = "put", fmt.Sprintf("c%d-%d", id, n)
		case r < 8:
			in.Op = "get"
		default:
			in.Op = "del"
		}
		op := porcupine.Operation{ClientId: id, Input: in, Call: h.now()}
		out, ok, err := doRegisterOp(hc, addr, in)
		op.Return = h.now()
		switch {
		case err != nil && notSent(err):
			h.drop()
		case in.Op == "get" && !ok:
			h.drop() // a failed read changes nothing
		case !ok:
			op.Return = math.MaxInt64 // a write that may or may not have happened
			h.add(op)
		default:
			op.Output = out
			h.add(op)
		}
	}
}

// doRegisterOp runs one operation through the HTTP API; ok is false when
// the outcome is unknown (error, timeout, non-200 other than a read's or
// delete's 404).
func doRegisterOp(hc *http.Client, addr string, in regInput) (regOutput, bool, error) {
	switch in.Op {
	case "put":
		code, err := putJob(hc, addr, in.Key, in.Value)
		return regOutput{}, err == nil && code == http.StatusOK, err
	case "del":
		req, _ := http.NewRequest(http.MethodDelete, addr+"/v1/job/"+in.Key+"?purge=true", nil)
		resp, err := hc.Do(req)
		if err != nil {
			return regOutput{}, false, err
		}
		resp.Body.Close()
		return regOutput{}, resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusNotFound, nil
	}
	resp, err := hc.Get(addr + "/v1/job/" + in.Key)
	if err != nil {
		return regOutput{}, false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotFound:
		return regOutput{Absent: true}, true, nil
	case http.StatusOK:
		var job struct{ Meta map[string]string }
		if err := json.NewDecoder(resp.Body).Decode(&job); err != nil {
			return regOutput{}, false, err
		}
		return regOutput{Value: job.Meta["v"]}, true, nil
	}
	return regOutput{}, false, nil
}

// Three real server agents; clients register, read and deregister a small
// key space through every server's HTTP API while the leader is SIGKILLed
// and restarted twice; porcupine must find the history linearizable.
func TestLinearizableAcrossLeaderKills(t *testing.T) {
	servers := startRaftCluster(t, 3)
	keys := []string{"lin-a", "lin-b", "lin-c", "lin-d"}
	h := &history{start: time.Now()}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for id := range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); runClient(id, servers, keys, h, stop) }()
	}
	stopClients := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopClients()

	time.Sleep(2 * time.Second) // e2e: let a history build up before the first kill
	var failovers []time.Duration
	for range 2 {
		d := killAndRestartLeader(t, servers)
		failovers = append(failovers, d)
		time.Sleep(2 * time.Second)
	}
	stopClients()

	h.mu.Lock()
	ops := append([]porcupine.Operation(nil), h.ops...)
	unknown, dropped := h.unknown, h.dropped
	h.mu.Unlock()
	res, info := porcupine.CheckOperationsVerbose(registerModel, ops, 2*time.Minute)
	t.Logf("porcupine: %s on %d operations (%d with an unknown outcome, %d not sent or failed reads left out); leader failovers %v",
		res, len(ops), unknown, dropped, failovers)
	if res != porcupine.Ok {
		path := filepath.Join(t.TempDir(), "linearizability.html")
		if err := porcupine.VisualizePath(registerModel, info, path); err == nil {
			t.Logf("visualization: %s", path)
		}
		t.Fatalf("history not linearizable: %s", res)
	}
	if len(ops) < 100 {
		t.Fatalf("only %d operations recorded", len(ops))
	}
}
