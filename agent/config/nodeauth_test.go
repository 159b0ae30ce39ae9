package config

import (
	"slices"
	"testing"
)

func TestNodeAuthKeysLoadAndValidate(t *testing.T) {
	src := "data_dir = \"/d\"\nserver {\n  enabled = true\n  snapshot_restore_max_mb = 512\n" +
		"  client_introduction {\n    enforcement = \"strict\"\n    tokens = [\"0123456789abcdef\"]\n  }\n}\n" +
		"client {\n  intro_token = \"0123456789abcdef\"\n}\n"
	file, err := LoadFile(writeConfig(t, "n.hcl", src))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s := c.Server
	if s.ClientIntroEnforcement != "strict" || !slices.Equal(s.ClientIntroTokens, []string{"0123456789abcdef"}) ||
		s.SnapshotRestoreMaxMB != 512 || c.Client.IntroToken != "0123456789abcdef" {
		t.Fatalf("config: %+v %+v", s, c.Client)
	}

	src = "data_dir = \"/d\"\nserver {\n  enabled = true\n  snapshot_restore_max_mb = -1\n" +
		"  client_introduction {\n    enforcement = \"always\"\n    tokens = [\"short\"]\n  }\n}\n"
	bad := writeConfig(t, "b.hcl", src)
	if file, err = LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	want := bad + ":4:3: server.snapshot_restore_max_mb: can't be negative, got -1\n" +
		bad + ":6:5: server.client_introduction.enforcement: must be none, warn or strict; got \"always\"\n" +
		bad + ":7:5: server.client_introduction.tokens: token 0 is shorter than 16 characters"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
}
