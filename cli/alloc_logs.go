package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// defaultTailLines is what -tail shows without -n or -c.
const defaultTailLines = 10

// logOptions are the flags of `alloc logs`.
type logOptions struct {
	stderr, follow, tail bool
	lines                int
	bytes                int64
}

// allocLogsCommand is `alloc logs [-stderr] [-f] [-tail] [-n N] [-c B] ALLOC
// [TASK]`: the task's stdout (or stderr) through GET /v1/client/fs/logs.
// TASK may be left out when the allocation's group has one task.
func allocLogsCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc logs", "[options] ALLOC [TASK]")
	var o logOptions
	f.BoolVar(&o.stderr, "stderr", false, "show stderr instead of stdout")
	f.BoolVar(&o.follow, "f", false, "follow the log as it grows")
	f.BoolVar(&o.tail, "tail", false, "show the end of the log (last 10 lines unless -n or -c)")
	f.IntVar(&o.lines, "n", -1, "with -tail: number of lines")
	f.Int64Var(&o.bytes, "c", -1, "with -tail: number of bytes")
	task := f.String("task", "", "task name (instead of the TASK argument)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) < 1 || len(pos) > 2 || (len(pos) == 2 && *task != "") {
		return m.wrongArgs(f, "the allocation ID and optionally the task name")
	}
	if len(pos) == 2 {
		*task = pos[1]
	}
	if o.lines >= 0 || o.bytes >= 0 {
		o.tail = true
	}
	c := m.client(f)
	id, ok := resolveID(m, allocMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	a, err := c.allocation(id)
	if err != nil {
		return m.errorf("querying allocation: %v", err)
	}
	name, err := pickTask(a, *task)
	if err != nil {
		return m.errorf("choosing task: %v", err)
	}
	if err := streamLogs(m, c, a.ID, name, o); err != nil {
		return m.errorf("reading logs: %v", err)
	}
	return exitOK
}

// pickTask returns task if the allocation has it, or the group's only task
// when task is empty.
func pickTask(a *structs.Allocation, task string) (string, error) {
	names := allocTaskNames(a)
	if task == "" {
		if len(names) == 1 {
			return names[0], nil
		}
		return "", fmt.Errorf("allocation %q has %d tasks (%s): name one", shortID(a.ID, false), len(names), strings.Join(names, ", "))
	}
	for _, n := range names {
		if n == task {
			return task, nil
		}
	}
	return "", fmt.Errorf("task %q not found in allocation %q (tasks: %s)", task, shortID(a.ID, false), strings.Join(names, ", "))
}

// streamLogs copies the log to m.Out. With -tail it first reads the whole
// log and prints its end; with -f it then follows from where it stopped.
func streamLogs(m *Meta, c *apiClient, allocID, task string, o logOptions) error {
	typ := "stdout"
	if o.stderr {
		typ = "stderr"
	}
	var offset int64
	if o.tail {
		body, err := c.logs(allocID, task, typ, "start", 0, false)
		if err != nil {
			return err
		}
		buf, err := io.ReadAll(body)
		body.Close()
		if err != nil {
			return err
		}
		if _, err := m.Out.Write(tailOf(buf, o.lines, o.bytes)); err != nil {
			return err
		}
		if !o.follow {
			return nil
		}
		offset = int64(len(buf))
	}
	body, err := c.logs(allocID, task, typ, "start", offset, o.follow)
	if err != nil {
		return err
	}
	defer body.Close()
	_, err = io.Copy(m.Out, body)
	return err
}

// tailOf returns the last lines lines of buf (or the last n bytes when
// n >= 0); the default is the last 10 lines.
func tailOf(buf []byte, lines int, n int64) []byte {
	if n >= 0 {
		if int64(len(buf)) > n {
			return buf[int64(len(buf))-n:]
		}
		return buf
	}
	if lines < 0 {
		lines = defaultTailLines
	}
	if lines == 0 {
		return nil
	}
	end := len(buf)
	if end > 0 && buf[end-1] == '\n' {
		end-- // a trailing newline ends the last line, it does not start one
	}
	start := end
	for k := 0; k < lines; k++ {
		j := bytes.LastIndexByte(buf[:start], '\n')
		if j < 0 {
			return buf
		}
		start = j
	}
	return buf[start+1:]
}
