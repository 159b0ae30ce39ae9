package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// allocFile is one entry of GET /v1/client/fs/ls|stat (api.AllocFileInfo).
type allocFile struct {
	Name        string
	IsDir       bool
	Size        int64
	FileMode    string
	ModTime     time.Time
	ContentType string
}

// allocFSCommand is `alloc fs [-stat] [-H] ALLOC [PATH]`: the entries of a
// directory of the allocation (PATH defaults to "/", the allocation
// directory), or a file's content; -stat describes PATH instead. Through
// GET /v1/client/fs/{stat,ls,cat}; any agent reaches any allocation (the
// request is forwarded to the allocation's node).
func allocFSCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc fs", "[options] ALLOC [PATH]")
	stat := f.Bool("stat", false, "describe the file or directory instead of listing or printing it")
	human := f.Bool("H", false, "print sizes in human readable units")
	tf := addTailFlags(f) // alloc_fs_tail.go
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) < 1 || len(pos) > 2 {
		return m.wrongArgs(f, "the allocation ID and optionally a path in its directory")
	}
	p := "/"
	if len(pos) == 2 {
		p = pos[1]
	}
	if err := tf.check(); err != nil {
		return m.errorf("parsing flags: %v", err)
	}
	c := m.client(f)
	id, ok := tf.allocID(m, c, pos[0])
	if !ok {
		return exitError
	}
	q := url.Values{"path": {p}}
	var fi allocFile
	if _, err := c.get("/v1/client/fs/stat/"+esc(id), q, &fi); err != nil {
		return m.errorf("reading %s: %v", p, err)
	}
	switch {
	case *stat:
		printFiles(m.Out, []allocFile{fi}, *human, true)
	case fi.IsDir:
		var list []allocFile
		if _, err := c.get("/v1/client/fs/ls/"+esc(id), q, &list); err != nil {
			return m.errorf("listing %s: %v", p, err)
		}
		if len(list) == 0 {
			fmt.Fprintln(m.Out, "No files found")
			return exitOK
		}
		printFiles(m.Out, list, *human, false)
	case tf.active():
		return tf.run(m, c, id, p, fi.Size)
	default:
		resp, err := c.request(http.MethodGet, "/v1/client/fs/cat/"+esc(id), q, nil)
		if err != nil {
			return m.errorf("reading %s: %v", p, err)
		}
		defer resp.Body.Close()
		if _, err := io.Copy(m.Out, resp.Body); err != nil {
			return m.errorf("reading %s: %v", p, err)
		}
	}
	return exitOK
}

// printFiles prints Nomad's table of files (with the content type for
// -stat); directory names end in "/".
func printFiles(w io.Writer, files []allocFile, human, withType bool) {
	head := []string{"Mode", "Size", "Modified Time", "Name"}
	if withType {
		head = []string{"Mode", "Size", "Modified Time", "Content Type", "Name"}
	}
	rows := [][]string{head}
	for _, fi := range files {
		size := strconv.FormatInt(fi.Size, 10)
		if human {
			size = humanBytes(uint64(max(fi.Size, 0)))
		}
		name := fi.Name
		if fi.IsDir {
			name += "/"
		}
		row := []string{fi.FileMode, size, formatTime(fi.ModTime)}
		if withType {
			row = append(row, fi.ContentType)
		}
		rows = append(rows, append(row, name))
	}
	table(w, rows)
}
