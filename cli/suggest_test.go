package cli

import (
	"strings"
	"testing"
)

// TestCommandTypos: a typo at any level of the command tree gets the closest
// name at that level, exits 1 and prints nothing on stdout.
func TestCommandTypos(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" = no suggestion, the usage instead
	}{
		{[]string{"job", "stauts"}, `Did you mean "status"?`},
		{[]string{"job", "stauts", "web"}, `Did you mean "status"?`},
		{[]string{"jbo", "status"}, `Did you mean "job"?`},
		{[]string{"stauts"}, `Did you mean "status"?`},
		{[]string{"operator", "raft", "list-peer"}, `Did you mean "list-peers"?`},
		{[]string{"operator", "rfat", "list-peers"}, `Did you mean "raft"?`},
		{[]string{"deployment", "pasue", "d1"}, `Did you mean "pause"?`},
		{[]string{"tls", "cert", "craete"}, `Did you mean "create"?`},
		{[]string{"plugn"}, ""}, // hidden commands are never suggested
		{[]string{"job", "bogus"}, ""},
		{[]string{"bogus"}, ""},
	} {
		code, out, errOut := runCLI(nil, c.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "Unknown command \""+strings.Join(c.args, " ")+"\"") {
			t.Errorf("%q: exit %d, out %q, err %q", c.args, code, out, errOut)
			continue
		}
		if c.want == "" {
			if strings.Contains(errOut, "Did you mean") || !strings.Contains(errOut, "Usage: nomadish") {
				t.Errorf("%q: want the usage and no suggestion, got %q", c.args, errOut)
			}
		} else if !strings.Contains(errOut, c.want) {
			t.Errorf("%q: want %s, got %q", c.args, c.want, errOut)
		}
	}
}

// TestHelpOnStdout: every way of asking for help prints to stdout and exits
// 0; a family without a subcommand prints its list to stderr and exits 1.
func TestHelpOnStdout(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "job status"},
		{[]string{"-h"}, "job status"},
		{[]string{"help"}, "job status"},
		{[]string{"job", "--help"}, "Usage: nomadish job <subcommand>"},
		{[]string{"job", "-h"}, "Usage: nomadish job <subcommand>"},
		{[]string{"job", "help"}, "Usage: nomadish job <subcommand>"},
		{[]string{"help", "job"}, "Usage: nomadish job <subcommand>"},
		{[]string{"operator", "raft", "--help"}, "list-peers"},
		{[]string{"job", "status", "--help"}, "Usage: nomadish job status"},
		{[]string{"help", "job", "status"}, "Usage: nomadish job status"},
		{[]string{"-address=http://x", "job", "-h"}, "Usage: nomadish job <subcommand>"},
	} {
		code, out, errOut := runCLI(nil, c.args...)
		if code != 0 || errOut != "" || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, out %q, err %q", c.args, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI(nil, "job"); code != 1 || out != "" || !strings.Contains(errOut, "job run") {
		t.Errorf("job: exit %d, out %q, err %q", code, out, errOut)
	}
}
