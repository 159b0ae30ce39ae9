package reconcile

import "github.com/nomadish/nomadish/structs"

// shouldMigrate reports whether a is live and marked for migration by the
// drainer: it is stopped and placed again (its node is draining, hence
// ineligible, so the replacement lands elsewhere).
func shouldMigrate(a *structs.Allocation) bool {
	return isLive(a) && a.DesiredTransition.ShouldMigrate()
}

// migrate stops a marked allocation and marks its index for replacement.
// The pair counts once, as Migrate.
func (g *groupReconciler) migrate(a *structs.Allocation, u *structs.DesiredUpdates) {
	g.res.Stop = append(g.res.Stop, Stop{Alloc: a, Description: allocMigrating})
	u.Migrate++
	g.markReplaced(a)
}

// isMigration reports whether a placement replaces a migrated allocation.
func isMigration(p Placement) bool {
	return p.Previous != nil && !p.Destructive && shouldMigrate(p.Previous)
}
