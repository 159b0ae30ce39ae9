package structs

import (
	"fmt"
	"regexp"
	"sort"
)

// Namespace and node pool raft message types (this range: 70..79).
const (
	NamespaceUpsertRequestType MessageType = 70
	NamespaceDeleteRequestType MessageType = 71
	NodePoolUpsertRequestType  MessageType = 72
	NodePoolDeleteRequestType  MessageType = 73
)

// Namespace RPC methods.
const (
	NamespaceUpsertRPC = "Namespace.UpsertNamespaces"
	NamespaceDeleteRPC = "Namespace.DeleteNamespaces"
	NamespaceListRPC   = "Namespace.ListNamespaces"
	NamespaceGetRPC    = "Namespace.GetNamespace"
)

// DefaultNamespaceName is the namespace that always exists: jobs without
// one land there, and it cannot be deleted.
const DefaultNamespaceName = "default"

// AllNamespaces as a list request's namespace lists across every one.
const AllNamespaces = "*"

var validNamespaceName = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)

// Namespace scopes jobs, allocations, evaluations and deployments (Nomad's
// JSON shape).
type Namespace struct {
	Name         string
	Description  string
	Quota        string
	Capabilities *NamespaceCapabilities `json:",omitempty"`
	Meta         map[string]string
	CreateIndex  uint64
	ModifyIndex  uint64
}

// NamespaceCapabilities restricts the task drivers a namespace's jobs use
// (stored; enforced at job register when set).
type NamespaceCapabilities struct {
	EnabledTaskDrivers  []string
	DisabledTaskDrivers []string
}

// DefaultNamespaceObject returns the built-in namespace as reads show it before
// anyone wrote it.
func DefaultNamespaceObject() *Namespace {
	return &Namespace{Name: DefaultNamespaceName, Description: "Default shared namespace"}
}

// Validate checks a namespace submitted for upsert.
func (n *Namespace) Validate() error {
	if n == nil {
		return fmt.Errorf("namespace is missing")
	}
	if !validNamespaceName.MatchString(n.Name) {
		return fmt.Errorf("invalid namespace name %q: must match %s", n.Name, validNamespaceName)
	}
	if len(n.Description) > 256 {
		return fmt.Errorf("namespace %q: description longer than 256 characters", n.Name)
	}
	return nil
}

// Copy returns a deep copy.
func (n *Namespace) Copy() *Namespace {
	if n == nil {
		return nil
	}
	c := *n
	if n.Meta != nil {
		c.Meta = make(map[string]string, len(n.Meta))
		for k, v := range n.Meta {
			c.Meta[k] = v
		}
	}
	if n.Capabilities != nil {
		caps := *n.Capabilities
		caps.EnabledTaskDrivers = append([]string(nil), caps.EnabledTaskDrivers...)
		caps.DisabledTaskDrivers = append([]string(nil), caps.DisabledTaskDrivers...)
		c.Capabilities = &caps
	}
	return &c
}

// DriverAllowed reports whether the namespace's capabilities let a task use
// driver.
func (n *Namespace) DriverAllowed(driver string) bool {
	if n == nil || n.Capabilities == nil {
		return true
	}
	for _, d := range n.Capabilities.DisabledTaskDrivers {
		if d == driver {
			return false
		}
	}
	if len(n.Capabilities.EnabledTaskDrivers) == 0 {
		return true
	}
	for _, d := range n.Capabilities.EnabledTaskDrivers {
		if d == driver {
			return true
		}
	}
	return false
}

// NamespaceUpsertRequest creates or updates namespaces
// (Namespace.UpsertNamespaces; also the raft entry).
type NamespaceUpsertRequest struct {
	Namespaces []*Namespace
	WriteRequest
}

// NamespaceDeleteRequest deletes namespaces (Namespace.DeleteNamespaces;
// also the raft entry).
type NamespaceDeleteRequest struct {
	Namespaces []string
	WriteRequest
}

// NamespaceListRequest lists namespaces (Prefix filters by name).
type NamespaceListRequest struct {
	QueryOptions
}

// NamespaceListResponse answers Namespace.ListNamespaces, sorted by name.
type NamespaceListResponse struct {
	Namespaces []*Namespace
	QueryMeta
}

// NamespaceSpecificRequest names one namespace.
type NamespaceSpecificRequest struct {
	Name string
	QueryOptions
}

// SingleNamespaceResponse answers Namespace.GetNamespace (nil: absent).
type SingleNamespaceResponse struct {
	Namespace *Namespace
	QueryMeta
}

// SortNamespaces sorts by name.
func SortNamespaces(ns []*Namespace) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
}
