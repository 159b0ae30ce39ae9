package virt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
)

// ErrNoGuestAgent is wrapped by ExecTaskStreaming when the guest runs no
// QEMU guest agent (or it does not answer).
var ErrNoGuestAgent = errors.New("virt: alloc exec needs the QEMU guest agent (qemu-guest-agent) running in the guest")

// agentTimeout bounds one guest agent command, in seconds.
const agentTimeout = 5

// execPoll is how often guest-exec-status is asked while a command runs.
const execPoll = 100 * time.Millisecond

var _ base.ExecStreamer = (*Driver)(nil)

// ExecTaskStreaming runs opts.Command in the guest through the QEMU guest
// agent (guest-exec, then guest-exec-status until it exited). The agent
// takes the command's input up front: Stdin is read to EOF first. It has no
// terminal: Tty is an error. Output arrives when the command has exited.
func (d *Driver) ExecTaskStreaming(ctx context.Context, taskID string, opts *base.ExecOptions) (*base.ExitResult, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.exit.Done():
		return nil, fmt.Errorf("task %q has exited", taskID)
	default:
	}
	if len(opts.Command) == 0 {
		return nil, errors.New("virt: exec: no command")
	}
	if opts.Tty {
		return nil, errors.New("virt: exec: the guest agent runs commands without a terminal (use -t=false)")
	}
	l, err := d.conn.get()
	if err != nil {
		return nil, err
	}
	args := map[string]any{"path": opts.Command[0], "arg": opts.Command[1:], "capture-output": true}
	if opts.Stdin != nil {
		in, err := readAll(ctx, opts.Stdin)
		if err != nil {
			return nil, err
		}
		args["input-data"] = base64.StdEncoding.EncodeToString(in)
	}
	var started struct {
		Return struct {
			PID int `json:"pid"`
		} `json:"return"`
	}
	if err := agent(l, t.dom, "guest-exec", args, &started); err != nil {
		return nil, err
	}
	return waitExec(ctx, l, t.dom, started.Return.PID, opts)
}

// waitExec polls guest-exec-status until pid exited, then writes its output.
func waitExec(ctx context.Context, l *libvirt.Libvirt, dom libvirt.Domain, pid int, opts *base.ExecOptions) (*base.ExitResult, error) {
	var st struct {
		Return struct {
			Exited   bool   `json:"exited"`
			ExitCode int    `json:"exitcode"`
			Signal   int    `json:"signal"`
			OutData  string `json:"out-data"`
			ErrData  string `json:"err-data"`
		} `json:"return"`
	}
	for {
		if err := agent(l, dom, "guest-exec-status", map[string]any{"pid": pid}, &st); err != nil {
			return nil, err
		}
		if st.Return.Exited {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(execPoll):
		}
	}
	for _, o := range []struct {
		data string
		w    io.Writer
	}{{st.Return.OutData, opts.Stdout}, {st.Return.ErrData, opts.Stderr}} {
		b, err := base64.StdEncoding.DecodeString(o.data)
		if err != nil {
			return nil, fmt.Errorf("virt: exec: decoding the guest agent's output: %w", err)
		}
		if o.w != nil && len(b) > 0 {
			if _, err := o.w.Write(b); err != nil {
				return nil, err
			}
		}
	}
	res := &base.ExitResult{ExitCode: st.Return.ExitCode, Signal: st.Return.Signal}
	if res.Signal != 0 {
		res.ExitCode = 128 + res.Signal
	}
	return res, nil
}

// agent runs one guest agent command and decodes its reply into out.
func agent(l *libvirt.Libvirt, dom libvirt.Domain, cmd string, args any, out any) error {
	req, err := json.Marshal(map[string]any{"execute": cmd, "arguments": args})
	if err != nil {
		return err
	}
	reply, err := l.QEMUDomainAgentCommand(dom, string(req), agentTimeout, 0)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrNoGuestAgent, cmd, err)
	}
	if len(reply) == 0 {
		return fmt.Errorf("%w: %s: empty reply", ErrNoGuestAgent, cmd)
	}
	if err := json.Unmarshal([]byte(reply[0]), out); err != nil {
		return fmt.Errorf("virt: exec: decoding %s reply: %w", cmd, err)
	}
	return nil
}

// readAll reads r to EOF, or until ctx ends.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		return res.b, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
