package allocrunner

// Resend reports the allocation's current client state again (through
// Config.OnUpdate), e.g. after the node was disconnected from the servers,
// which may have marked the allocation unknown meanwhile. Callable from any
// goroutine; a detached runner sends nothing.
func (ar *AllocRunner) Resend() { ar.sendUpdate() }
