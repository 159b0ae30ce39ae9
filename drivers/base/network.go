package base

// Group networks (bridge, none and CNI modes): the client gives every task
// of an allocation the same network namespace. The client creates it
// itself (a named namespace under /var/run/netns), unless a driver of the
// group manages networks (NetworkManager: docker, whose containers can
// only share a namespace another container holds); then the driver creates
// it and the client sets up its interfaces with CNI either way.

// NetworkIsolation is the namespace a task joins.
type NetworkIsolation struct {
	// Path is the namespace's file (/var/run/netns/<name> or
	// /proc/<pid>/ns/net): exec, raw_exec and qemu start their process in
	// it (setns).
	Path string
	// Labels are the managing driver's own notes (docker:
	// "docker_sandbox_container_id", the container the others join).
	Labels map[string]string `json:",omitempty"`
	// HostsPath and ResolvConfPath are files the client wrote for the
	// group (hostname, dns block) that drivers bind into the task as
	// /etc/hosts and /etc/resolv.conf; empty: leave the task's own.
	HostsPath      string `json:",omitempty"`
	ResolvConfPath string `json:",omitempty"`
}

// NetworkCreateRequest asks a NetworkManager for an allocation's namespace.
type NetworkCreateRequest struct {
	Hostname string
}

// NetworkManager is the optional interface of a driver that creates the
// group's namespace itself (Capabilities.MustInitiateNetwork).
type NetworkManager interface {
	// CreateNetwork creates (or, after a client restart, finds) the
	// allocation's namespace; created is false when it already existed.
	CreateNetwork(allocID string, req *NetworkCreateRequest) (spec *NetworkIsolation, created bool, err error)
	// DestroyNetwork removes it; an absent namespace is not an error.
	DestroyNetwork(allocID string, spec *NetworkIsolation) error
}
