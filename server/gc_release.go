package server

// releaseAfter is how many objects a periodic collection must delete for
// the leader to hand the freed heap back to the OS at once
// (debug.FreeOSMemory, after the pass, once its snapshot is dropped). A
// forced collection (System.GarbageCollect, `system gc`) always does.
//
// Why: the Go runtime returns freed heap pages to the OS only gradually (the
// scavenger) and keeps the heap goal the peak set; after a collection that
// deleted 100,000 jobs' worth of objects the server's RSS would otherwise
// stay near the peak for minutes. FreeOSMemory runs a full GC and releases
// what it can; it costs one stop-the-world mark of the (now small) heap,
// which is why small periodic passes skip it.
const releaseAfter = 1000
