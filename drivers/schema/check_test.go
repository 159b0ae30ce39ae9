package schema

import (
	"reflect"
	"testing"
)

var testSchema = &Schema{
	Fields: []Field{
		{Name: "command", Kind: String, Required: true},
		{Name: "args", Kind: List, Elem: String},
		{Name: "debug", Kind: Bool},
		{Name: "size", Kind: Number},
		{Name: "wait", Kind: Duration},
		{Name: "labels", Kind: Map, Elem: Scalar},
		{Name: "auth", Kind: Block, Block: &Schema{Fields: []Field{{Name: "username", Kind: String}}}},
		{Name: "mount", Kind: Blocks, Block: &Schema{Fields: []Field{
			{Name: "target", Kind: String, Required: true},
			{Name: "opts", Kind: Any},
		}}},
	},
	AnyOf: [][]string{{"image", "kernel"}},
}

func init() {
	testSchema.Fields = append(testSchema.Fields, Field{Name: "image", Kind: String}, Field{Name: "kernel", Kind: String})
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name   string
		config map[string]any
		want   []string
	}{
		{"ok", map[string]any{"command": "x", "image": "i", "args": []string{"a"}, "debug": true, "size": uint64(3),
			"wait": "5s", "labels": []any{map[string]any{"a": 1.5}}, "auth": []any{map[string]any{"username": "u"}},
			"mount": map[string]any{"target": "/t", "opts": []any{1}}}, nil},
		{"msgpack and json numbers", map[string]any{"command": "x", "kernel": "k", "size": 2.5, "wait": int64(10)}, nil},
		{"null is unset", map[string]any{"command": nil, "image": "i"}, []string{`missing required key "command"`}},
		{"typo", map[string]any{"comand": "x", "image": "i"}, []string{`unknown key "comand"; Did you mean "command"?`}},
		{"far", map[string]any{"command": "x", "image": "i", "zzz": 1},
			[]string{`unknown key "zzz"; known keys: args, auth, command, debug, image, kernel, labels, mount, size, wait`}},
		{"types", map[string]any{"command": 1, "image": "i", "debug": "yes", "args": []any{"a", 2}, "labels": "x", "wait": "soon"}, []string{
			`key "args" must be a list of strings; got a list whose element 1 is a number`,
			`key "command" must be a string; got a number`,
			`key "debug" must be a bool; got a string`,
			`key "labels" must be a map of strings; got a string`,
			`key "wait" must be a duration ("10s"); got "soon" (time: invalid duration "soon")`,
		}},
		{"one block only", map[string]any{"command": "x", "image": "i", "auth": []any{map[string]any{}, map[string]any{}}},
			[]string{`key "auth" must be a block; got 2 blocks`}},
		{"nested", map[string]any{"command": "x", "image": "i", "mount": []any{map[string]any{"target": "/a"}, map[string]any{"targt": "/b"}},
			"auth": map[string]any{"user": "u"}}, []string{
			`auth: unknown key "user"; known keys: username`,
			`mount[1]: unknown key "targt"; Did you mean "target"?`,
		}},
		{"nested missing", map[string]any{"command": "x", "image": "i", "mount": []any{map[string]any{}}}, []string{`mount[0]: missing required key "target"`}},
		{"any of", map[string]any{"command": "x"}, []string{`missing required key: one of "image", "kernel" must be set`}},
		{"block not a map", map[string]any{"command": "x", "image": "i", "mount": []any{"a"}}, []string{`key "mount" must be a block or a list of blocks; got a list whose element 0 is a string`}},
	} {
		var got []string
		for _, p := range testSchema.Check(c.config) {
			got = append(got, p.Error())
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestProblemPathAndValidate(t *testing.T) {
	probs := testSchema.Check(map[string]any{"command": "x", "image": "i", "mount": []any{map[string]any{"target": 1}}})
	if len(probs) != 1 || !reflect.DeepEqual(probs[0].Path, []Step{{Key: "mount", Index: 0}}) || probs[0].Key != "target" ||
		probs[0].Kind != WrongType || probs[0].Where() != "mount[0]" {
		t.Fatalf("problem = %+v", probs)
	}
	if err := testSchema.Validate(map[string]any{"command": "x", "image": "i"}); err != nil {
		t.Fatal(err)
	}
	err := testSchema.Validate(map[string]any{"image": "i", "debug": 1})
	if err == nil || err.Error() != `key "debug" must be a bool; got a number; missing required key "command"` {
		t.Fatalf("Validate = %v", err)
	}
}
