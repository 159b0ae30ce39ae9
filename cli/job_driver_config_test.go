package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestJobDriverConfigRefusedLocally: job validate, run and plan refuse an
// unknown driver and a misspelled config key at file:line:col, and send
// nothing.
func TestJobDriverConfigRefusedLocally(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"driver": {strings.Replace(goodJob, `"raw_exec"`, `"raw_exce"`, 1), `:5:16: unknown driver "raw_exce"; Did you mean "raw_exec"\?`},
		"key":    {strings.Replace(goodJob, "command =", "comand =", 1), `:7:9: unknown key "comand" in config of driver "raw_exec"; Did you mean "command"\?`},
	} {
		f := newFakeAPI(t)
		path := writeJob(t, c.body)
		for _, cmd := range []struct {
			args []string
			code int
		}{{[]string{"job", "validate"}, 1}, {[]string{"job", "run"}, 1}, {[]string{"job", "plan"}, 255}} {
			code, _, errOut := f.run(append(cmd.args, path)...)
			if code != cmd.code || !regexp.MustCompile(regexp.QuoteMeta(path)+c.want).MatchString(errOut) {
				t.Errorf("%s: %v: exit %d, stderr %q", name, cmd.args, code, errOut)
			}
		}
		if len(f.requests) != 0 {
			t.Errorf("%s: requests were sent: %q", name, f.requests)
		}
	}
}
