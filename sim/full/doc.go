// Package full is the simulator's full mode (`nomadish sim cluster`): real
// nomadish servers, run as subprocesses of the binary with raft on disk
// (the real broker, workers and plan applier), and N simulated clients that
// speak the real client protocol over the real RPC without running
// anything: they register, heartbeat at the TTL the server returns, watch
// their allocations with the Node.GetClientAllocs blocking query, fetch
// the new ones with Alloc.GetAllocs, report them running (Node.UpdateAlloc,
// batched like the real client) and, for batch jobs, complete them.
//
// Many simulated nodes share a few RPC connections (Fleet), so ten
// thousand of them fit on one small machine. Run measures the servers
// (placements/s over time, RSS, raft log and snapshot sizes, heartbeats/s,
// a CPU profile's top functions) into a report.Report of mode "full".
package full
