package jobspec

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/schema"
)

// testDrivers is a schema.Lookup standing in for drivers/catalog (jobspec
// links no driver): raw_exec's and a part of docker's schemas.
type testDrivers map[string]*schema.Schema

func (d testDrivers) TaskSchema(name string) (*schema.Schema, bool) { s, ok := d[name]; return s, ok }
func (d testDrivers) Names() []string                               { return []string{"docker", "raw_exec"} }

var drivers = testDrivers{
	"raw_exec": {Fields: []schema.Field{
		{Name: "command", Kind: schema.String, Required: true},
		{Name: "args", Kind: schema.List, Elem: schema.Scalar},
	}},
	"docker": {Fields: []schema.Field{
		{Name: "image", Kind: schema.String, Required: true},
		{Name: "privileged", Kind: schema.Bool},
		{Name: "mount", Kind: schema.Blocks, Block: &schema.Schema{Fields: []schema.Field{
			{Name: "target", Kind: schema.String, Required: true},
			{Name: "readonly", Kind: schema.Bool},
		}}},
	}},
}

// taskFile is a job file whose task "t" holds body (from line 4, column 5).
func taskFile(body string) string {
	return "job \"a\" {\n  group \"g\" {\n    task \"t\" {\n" + body + "    }\n  }\n}\n"
}

func parseDrivers(src string) ([]string, error) {
	_, err := Parse(&ParseConfig{Path: "job.hcl", Body: []byte(src), Drivers: drivers})
	var perr *Error
	if err == nil {
		return nil, nil
	}
	if !errors.As(err, &perr) {
		return nil, err
	}
	return strings.Split(err.Error(), "\n"), nil
}

// TestDriverConfigErrors: an unknown driver, and unknown, mistyped and
// missing config keys, each at its file:line:col, all of them at once.
func TestDriverConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"unknown driver", "      driver = \"raw_exce\"\n",
			[]string{`job.hcl:4:16: unknown driver "raw_exce"; Did you mean "raw_exec"?`}},
		{"far from any driver", "      driver = \"nope\"\n",
			[]string{`job.hcl:4:16: unknown driver "nope"; known drivers: docker, raw_exec`}},
		{"unknown key", "      driver = \"raw_exec\"\n      config {\n        comand = \"/bin/true\"\n      }\n",
			[]string{`job.hcl:6:9: unknown key "comand" in config of driver "raw_exec"; Did you mean "command"?`}},
		{"missing config", "      driver = \"raw_exec\"\n",
			[]string{`job.hcl:3:5: missing required key "command" in config of driver "raw_exec"`}},
		{"missing key", "      driver = \"raw_exec\"\n      config {\n        args = [\"x\"]\n      }\n",
			[]string{`job.hcl:5:7: missing required key "command" in config of driver "raw_exec"`}},
		{"wrong type", "      driver = \"docker\"\n      config {\n        image = \"i\"\n        privileged = \"yes\"\n      }\n",
			[]string{`job.hcl:7:22: key "privileged" must be a bool in config of driver "docker"; got a string`}},
		{"all at once, nested", "      driver = \"docker\"\n      config {\n        imgae = \"i\"\n" +
			"        mount {\n          target = \"/a\"\n        }\n        mount {\n          readonly = 1\n          targt = \"/b\"\n        }\n      }\n",
			[]string{
				`job.hcl:6:9: unknown key "imgae" in config of driver "docker"; Did you mean "image"?`,
				`job.hcl:11:22: key "readonly" must be a bool in config of driver "docker" (in mount[1]); got a number`,
				`job.hcl:12:11: unknown key "targt" in config of driver "docker" (in mount[1]); Did you mean "target"?`,
			}},
		{"inside an argument's value", "      driver = \"docker\"\n      config {\n        image = \"i\"\n        mount = [{ targt = \"/b\" }]\n      }\n",
			[]string{`job.hcl:7:17: unknown key "targt" in config of driver "docker" (in mount[0]); Did you mean "target"?`}},
	} {
		got, err := parseDrivers(taskFile(c.body))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q (%v)\nwant %q", c.name, got, err, c.want)
		}
	}
}

// Without ParseConfig.Drivers nothing is checked; a good config passes; a
// config block with errors of its own is not also reported as missing keys.
func TestDriverConfigChecks(t *testing.T) {
	src := taskFile("      driver = \"raw_exce\"\n      config {\n        comand = 1\n      }\n")
	if _, err := Parse(&ParseConfig{Path: "job.hcl", Body: []byte(src)}); err != nil {
		t.Fatalf("checked without Drivers: %v", err)
	}
	good := taskFile("      driver = \"raw_exec\"\n      config {\n        command = \"/bin/sh\"\n        args = [\"-c\", \"echo ${NOMAD_TASK_DIR}\", 2]\n      }\n")
	if got, err := parseDrivers(good); got != nil || err != nil {
		t.Fatalf("good config: %q %v", got, err)
	}
	broken := taskFile("      driver = \"raw_exec\"\n      config {\n        command = nosuchvar\n      }\n")
	got, _ := parseDrivers(broken)
	if len(got) != 1 || !strings.Contains(got[0], "job.hcl:6:19:") || strings.Contains(got[0], "missing required key") {
		t.Fatalf("broken config: %q", got)
	}
}
