// Package sim is `nomadish sim`: the production scheduler against
// simulated clusters and traces. Its parts, one package per stage:
//
//   - sim/trace: the workload, read from JSON or CSV or generated from
//     published trace statistics (trace.Job, trace.Read, trace.Generate);
//   - sim/cluster: cluster shapes (node count, datacenters, racks, classes
//     with their CPU/NUMA topology) built into structs.Node values;
//   - sim/fast: fast mode (`sim run`), the real scheduler/ and the plan
//     applier's fit check on an in-memory state store under a simulated
//     clock, deterministic for a seed;
//   - sim/full: full mode (`sim cluster`), a real server and simulated
//     clients over the real RPC (the C1M harness);
//   - sim/report: what a run measured (report.Report), as JSON and as a
//     self-contained HTML report with SVG plots, and the comparison of two.
package sim
