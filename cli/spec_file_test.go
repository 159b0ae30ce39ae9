package cli

import (
	"strings"
	"testing"
)

func TestParseNamespaceSpec(t *testing.T) {
	ns, err := parseNamespaceSpec("ns.hcl", []byte(`
name        = "api-prod"
description = "Production API"
meta {
  owner = "ops"
}
capabilities {
  enabled_task_drivers  = ["docker", "exec"]
  disabled_task_drivers = ["raw_exec"]
}
`), false)
	if err != nil {
		t.Fatal(err)
	}
	if ns.Name != "api-prod" || ns.Meta["owner"] != "ops" || len(ns.Capabilities.EnabledTaskDrivers) != 2 || ns.Capabilities.DisabledTaskDrivers[0] != "raw_exec" {
		t.Fatalf("%+v", ns)
	}
	js, err := parseNamespaceSpec("ns.json", []byte(`{"Name": "a", "Description": "b"}`), false)
	if err != nil || js.Name != "a" || js.Description != "b" {
		t.Fatalf("json: %+v %v", js, err)
	}
	for src, want := range map[string]string{
		"name = \"a\"\ncolour = \"red\"\n":     `ns.hcl:2:1: Unsupported argument`,
		"description = \"x\"\n":                `Missing required argument`,
		"name = \"a\"\nmeta {\n  k = 1\n}\n":   `ns.hcl:3:7: meta "k": a string is required`,
		"name = \"a\"\ncapabilities { x = 1 }": `ns.hcl:2:16: Unsupported argument`,
		"name = \"a\"\nmeta {}\nmeta {}\n":     `ns.hcl:3:1: only one "meta" block is allowed`,
		"name = ":                              `ns.hcl:1:`,
	} {
		if _, err := parseNamespaceSpec("ns.hcl", []byte(src), false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
	if _, err := parseNamespaceSpec("ns.json", []byte("{\n \"Nmae\": \"a\"}"), false); err == nil || !strings.Contains(err.Error(), `ns.json:2:`) {
		t.Errorf("json unknown field: %v", err)
	}
}

func TestParseNodePoolSpec(t *testing.T) {
	p, err := parseNodePoolSpec("pool.hcl", []byte(`
node_pool "gpu" {
  description = "GPU nodes"
  meta {
    team = "ml"
  }
  scheduler_config {
    scheduler_algorithm             = "spread"
    memory_oversubscription_enabled = true
  }
}
`), false)
	if err != nil {
		t.Fatal(err)
	}
	sc := p.SchedulerConfiguration
	if p.Name != "gpu" || p.Meta["team"] != "ml" || sc.SchedulerAlgorithm != "spread" || sc.MemoryOversubscriptionEnabled == nil || !*sc.MemoryOversubscriptionEnabled {
		t.Fatalf("%+v", p)
	}
	for src, want := range map[string]string{
		"":                               `a node_pool "name" { ... } block is required`,
		"node_pool {}":                   `pool.hcl:1:11: Missing name for node_pool`,
		"node_pool \"a\" { colour = 1 }": `pool.hcl:1:17: Unsupported argument`,
		"node_pool \"a\" {\n  scheduler_config {\n    memory_oversubscription_enabled = \"x\"\n  }\n}\n": `pool.hcl:3:39: memory_oversubscription_enabled: true or false is required`,
	} {
		if _, err := parseNodePoolSpec("pool.hcl", []byte(src), false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
