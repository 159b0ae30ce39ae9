package template

import (
	"context"
	"errors"
	"time"
)

// Errors of this package, for callers that need to tell them apart.
var (
	// ErrEscapes: a destination or source leaves the task's directories.
	ErrEscapes = errors.New("template: path escapes the task directory")
	// ErrNoVars: the client has no variable reader (nomadVar* unavailable).
	ErrNoVars = errors.New("template: nomad variables are not available on this client")
	// ErrNoServices: the client has no service reader (nomadService*).
	ErrNoServices = errors.New("template: nomad services are not available on this client")
)

// Var is one Nomad variable as a template sees it. Items is owned by the
// reader's caller once returned; Render does not modify it.
type Var struct {
	Path        string
	Namespace   string
	Items       map[string]string
	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  time.Time
	ModifyTime  time.Time
}

// VarReader reads the variables a task may read (its workload identity's
// paths). Both methods block while waitIndex > 0 and the reader's index is
// not above it, until ctx ends; they return the reader's index with the
// result. Var returns a nil Var when the path does not exist; List returns
// the variables whose path starts with prefix. The client wires its real
// reader (an adapter over its workload variable RPCs).
type VarReader interface {
	Var(ctx context.Context, path string, waitIndex uint64) (*Var, uint64, error)
	List(ctx context.Context, prefix string, waitIndex uint64) ([]*Var, uint64, error)
}

// Service is one registration of a Nomad service (nomadService).
type Service struct {
	ID, Name, Address, Datacenter, NodeID, AllocID, JobID string
	Port                                                  int
	Tags                                                  []string
	// Namespace is the registration's; Node is NodeID again, under the
	// name consul-template's NomadService gives it (.Node).
	Namespace, Node string
}

// ServiceReader is the seam for nomadService/nomadServices (services.go):
// Config.Services, or the VarReader when it implements it too (the
// client's does); nil makes both functions fail with ErrNoServices.
// Service returns a service's registrations in the task's namespace,
// ordered by ID, blocking as VarReader's methods.
type ServiceReader interface {
	Service(ctx context.Context, name string, waitIndex uint64) ([]*Service, uint64, error)
}
