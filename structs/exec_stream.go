package structs

// The frames of an `alloc exec` session on the WebSocket of
// GET /v1/client/allocation/:id/exec, as Nomad's API defines them (JSON
// field names included): the client sends ExecStreamingInput, the agent
// ExecStreamingOutput. []byte fields are base64 in JSON.

// ExecStreamingIOOperation is a chunk of a stream, or its end (Close).
type ExecStreamingIOOperation struct {
	Data  []byte `json:"data,omitempty"`
	Close bool   `json:"close,omitempty"`
}

// TerminalSize is a terminal's size in character cells.
type TerminalSize struct {
	Height int `json:"height,omitempty"`
	Width  int `json:"width,omitempty"`
}

// ExecStreamingInput is one frame from the client: stdin data, the end of
// stdin, or a terminal resize. A frame with no field set is a heartbeat.
type ExecStreamingInput struct {
	Stdin   *ExecStreamingIOOperation `json:"stdin,omitempty"`
	TTYSize *TerminalSize             `json:"tty_size,omitempty"`
}

// ExecStreamingExitResult is the exit code of the finished command.
type ExecStreamingExitResult struct {
	ExitCode int `json:"exit_code"`
}

// ExecStreamingOutput is one frame from the agent: stdout or stderr data,
// or, last, Exited with the Result.
type ExecStreamingOutput struct {
	Stdout *ExecStreamingIOOperation `json:"stdout,omitempty"`
	Stderr *ExecStreamingIOOperation `json:"stderr,omitempty"`
	Exited bool                      `json:"exited,omitempty"`
	Result *ExecStreamingExitResult  `json:"result,omitempty"`
}
