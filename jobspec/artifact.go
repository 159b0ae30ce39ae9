package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// decodeArtifact decodes a task's artifact block:
//
//	artifact { source destination mode insecure chown options {...} headers {...} }
//
// and checks each value where it is written: a missing source at the block,
// an unknown mode, a destination leaving the allocation directory and a
// malformed checksum option at their values. ${...} references stay for
// the client to interpolate. It returns nil for a block with labels.
func (p *parser) decodeArtifact(b *hclsyntax.Block) *structs.TaskArtifact {
	if !p.labels(b) {
		return nil
	}
	a := &structs.TaskArtifact{}
	p.decodeBody(b.Body, bodySpec{
		where: "artifact",
		attrs: map[string]any{
			"source": &a.GetterSource, "destination": &a.RelativeDest, "mode": &a.GetterMode,
			"insecure": &a.GetterInsecure, "chown": &a.Chown,
			"options": &a.GetterOptions, "headers": &a.GetterHeaders,
		},
		blocks: blockFuncs{
			"options": func(ob *hclsyntax.Block) { p.stringMapBlock(ob, &a.GetterOptions) },
			"headers": func(hb *hclsyntax.Block) { p.stringMapBlock(hb, &a.GetterHeaders) },
		},
	})
	attrs := b.Body.Attributes
	if _, ok := attrs["source"]; !ok {
		p.errorf(b.TypeRange, "Missing source", "An artifact block requires a source, the URL to download (e.g. source = \"https://example.com/app.tar.gz\").")
	}
	if at, ok := attrs["mode"]; ok {
		switch a.GetterMode {
		case structs.GetterModeAny, structs.GetterModeFile, structs.GetterModeDir:
		default:
			p.errorf(at.Expr.Range(), "Invalid artifact mode", "The mode %q is not one of %q, %q or %q.",
				a.GetterMode, structs.GetterModeAny, structs.GetterModeFile, structs.GetterModeDir)
		}
	}
	if at, ok := attrs["destination"]; ok {
		if err := structs.CheckArtifactDest(a.RelativeDest); err != nil {
			p.errorf(at.Expr.Range(), "Invalid artifact destination", "The %s; a destination is relative to the task's directory and must stay in the allocation directory (e.g. \"local/\" or \"../alloc/data\").", err)
		}
	}
	if err := structs.CheckArtifactChecksum(a.GetterOptions["checksum"]); err != nil {
		p.errorf(checksumRange(b), "Invalid artifact checksum", "The checksum option is wrong: %s.", err)
	}
	return a
}

// checksumRange returns where an artifact's checksum option is written:
// the checksum value of its options block or attribute, else the block.
func checksumRange(b *hclsyntax.Block) hcl.Range {
	for _, ob := range b.Body.Blocks {
		if ob.Type == "options" {
			if at, ok := ob.Body.Attributes["checksum"]; ok {
				return at.Expr.Range()
			}
		}
	}
	if at, ok := b.Body.Attributes["options"]; ok {
		return at.Expr.Range()
	}
	return b.TypeRange
}
