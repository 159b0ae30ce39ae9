// Package periodic is the leader's periodic job launcher: a pure decision
// (Decide: which launch is due, given the last recorded launch and now) and
// a goroutine (Launcher.Run) that applies it to every periodic job on the
// server's one clock and commits each launch, with its child job, through
// raft. The last launch lives in raft state, so a new leader launches a
// launch due during the election once and never one twice (a child's ID is
// derived from its launch time; registering an existing child is a no-op).
package periodic
