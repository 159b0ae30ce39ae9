package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

func policyLinks(names []string) []*structs.ACLRolePolicyLink {
	var out []*structs.ACLRolePolicyLink
	for _, n := range names {
		out = append(out, &structs.ACLRolePolicyLink{Name: n})
	}
	return out
}

func printRole(m *Meta, r *structs.ACLRole, asJSON bool) int {
	if asJSON {
		return m.printJSONOut(r)
	}
	var ps []string
	for _, p := range r.Policies {
		ps = append(ps, p.Name)
	}
	kv(m.Out, "ID", r.ID, "Name", r.Name, "Description", r.Description, "Policies", strings.Join(ps, ","),
		"Create Index", strconv.FormatUint(r.CreateIndex, 10), "Modify Index", strconv.FormatUint(r.ModifyIndex, 10))
	return exitOK
}

// aclRoleCreateCommand is `acl role create -name N [-description D] -policy P...`.
func aclRoleCreateCommand(m *Meta, args []string) int {
	f := m.newFlags("acl role create", "[options]")
	name := f.String("name", "", "name of the role (required)")
	desc := f.String("description", "", "description of the role")
	var policies stringList
	f.Var(&policies, "policy", "policy the role holds (repeatable, at least one)")
	asJSON := f.Bool("json", false, "print the role as JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	if *name == "" {
		return m.errorf("creating ACL role: -name is required")
	}
	r, err := m.client(f).aclRoleUpsert(&structs.ACLRole{Name: *name, Description: *desc, Policies: policyLinks(policies)})
	if err != nil {
		return m.errorf("creating ACL role: %v", err)
	}
	return printRole(m, r, *asJSON)
}

// aclRoleUpdateCommand is `acl role update [options] ID`: -policy adds to
// the role's policies, or replaces them with -no-merge.
func aclRoleUpdateCommand(m *Meta, args []string) int {
	f := m.newFlags("acl role update", "[options] ID")
	name := f.String("name", "", "new name of the role")
	desc := f.String("description", "", "new description of the role")
	var policies stringList
	f.Var(&policies, "policy", "policy the role holds (repeatable)")
	noMerge := f.Bool("no-merge", false, "replace the role's policies instead of adding to them")
	asJSON := f.Bool("json", false, "print the role as JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the role ID")
	}
	c := m.client(f)
	r, err := c.aclRole(pos[0], false)
	if err != nil {
		return m.errorf("reading ACL role: %v", err)
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["name"] {
		r.Name = *name
	}
	if set["description"] {
		r.Description = *desc
	}
	if *noMerge {
		r.Policies = policyLinks(policies)
	} else {
		have := map[string]bool{}
		for _, p := range r.Policies {
			have[p.Name] = true
		}
		for _, p := range policies {
			if !have[p] {
				r.Policies = append(r.Policies, &structs.ACLRolePolicyLink{Name: p})
			}
		}
	}
	out, err := c.aclRoleUpsert(r)
	if err != nil {
		return m.errorf("updating ACL role: %v", err)
	}
	return printRole(m, out, *asJSON)
}

func aclRoleDeleteCommand(m *Meta, args []string) int {
	f := m.newFlags("acl role delete", "[options] ID")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the role ID")
	}
	if err := m.client(f).aclRoleDelete(pos[0]); err != nil {
		return m.errorf("deleting ACL role: %v", err)
	}
	fmt.Fprintf(m.Out, "ACL role %s successfully deleted\n", pos[0])
	return exitOK
}

func aclRoleInfoCommand(m *Meta, args []string) int {
	f := m.newFlags("acl role info", "[options] ID")
	byName := f.Bool("by-name", false, "look the role up by name instead of ID")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the role ID (or name with -by-name)")
	}
	r, err := m.client(f).aclRole(pos[0], *byName)
	if err != nil {
		return m.errorf("reading ACL role: %v", err)
	}
	if code, done := ff.print(m, r); done {
		return code
	}
	return printRole(m, r, false)
}

func aclRoleListCommand(m *Meta, args []string) int {
	f := m.newFlags("acl role list", "[options]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	rs, err := m.client(f).aclRoles()
	if err != nil {
		return m.errorf("listing ACL roles: %v", err)
	}
	if code, done := ff.print(m, rs); done {
		return code
	}
	if len(rs) == 0 {
		fmt.Fprintln(m.Out, "No ACL roles found")
		return exitOK
	}
	rows := [][]string{{"ID", "Name", "Description", "Policies"}}
	for _, r := range rs {
		var ps []string
		for _, p := range r.Policies {
			ps = append(ps, p.Name)
		}
		rows = append(rows, []string{r.ID, r.Name, r.Description, strings.Join(ps, ",")})
	}
	table(m.Out, rows)
	return exitOK
}
