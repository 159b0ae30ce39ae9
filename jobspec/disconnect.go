package jobspec

import (
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// setMaxClientDisconnect stores a group's max_client_disconnect argument
// (Nomad's older form of disconnect.lost_after), decoded into d, when the
// group's body b has one.
func (p *parser) setMaxClientDisconnect(b *hclsyntax.Block, tg *structs.TaskGroup, d time.Duration) {
	a, ok := b.Body.Attributes["max_client_disconnect"]
	if !ok {
		return
	}
	if d < 0 {
		p.errorf(a.Expr.Range(), "Invalid max_client_disconnect", "max_client_disconnect can't be negative.")
		return
	}
	for _, blk := range b.Body.Blocks {
		if _, set := blk.Body.Attributes["lost_after"]; blk.Type == "disconnect" && set {
			p.errorf(a.NameRange, "Conflicting arguments", "Set disconnect.lost_after or max_client_disconnect, not both.")
			return
		}
	}
	tg.MaxClientDisconnect = &d
}

// decodeDisconnect decodes a group's disconnect block (lost_after, replace,
// reconcile), reporting bad values at the value. It returns nil for a
// block with labels.
func (p *parser) decodeDisconnect(b *hclsyntax.Block) *structs.DisconnectStrategy {
	if !p.labels(b) {
		return nil
	}
	d := &structs.DisconnectStrategy{}
	var replace bool
	p.decodeBody(b.Body, bodySpec{
		where: "disconnect",
		attrs: map[string]any{"lost_after": &d.LostAfter, "replace": &replace, "reconcile": &d.Reconcile},
	})
	attrs := b.Body.Attributes
	if _, ok := attrs["replace"]; ok {
		d.Replace = &replace
	}
	if a, ok := attrs["lost_after"]; ok && d.LostAfter < 0 {
		p.errorf(a.Expr.Range(), "Invalid lost_after", "lost_after can't be negative.")
	}
	if a, ok := attrs["reconcile"]; ok {
		switch d.Reconcile {
		case structs.ReconcileBestScore, structs.ReconcileKeepOriginal, structs.ReconcileKeepReplacement, structs.ReconcileLongestRunning:
		default:
			p.errorf(a.Expr.Range(), "Invalid reconcile", "The reconcile strategy %q is not one of %q, %q, %q or %q.", d.Reconcile,
				structs.ReconcileBestScore, structs.ReconcileKeepOriginal, structs.ReconcileKeepReplacement, structs.ReconcileLongestRunning)
		}
	}
	return d
}
