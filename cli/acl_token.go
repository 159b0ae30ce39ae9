package cli

import (
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// tokenFlags are the options of `acl token create` and `update`.
type tokenFlags struct {
	name, typ         *string
	global            *bool
	policies, roleIDs stringList
	roleNames         stringList
	ttl               *time.Duration
	asJSON            *bool
}

func newTokenFlags(f *flags, create bool) *tokenFlags {
	t := &tokenFlags{}
	t.name = f.String("name", "", "name of the token")
	defType := ""
	if create {
		defType = structs.ACLClientToken
	}
	t.typ = f.String("type", defType, `"client" or "management"`)
	t.global = f.Bool("global", false, "replicate the token to every region")
	f.Var(&t.policies, "policy", "policy to attach (repeatable)")
	f.Var(&t.roleIDs, "role-id", "ID of a role to attach (repeatable)")
	f.Var(&t.roleNames, "role-name", "name of a role to attach (repeatable)")
	if create {
		t.ttl = f.Duration("ttl", 0, "expire the token after this long (e.g. 8h)")
	}
	t.asJSON = f.Bool("json", false, "print the token as JSON")
	return t
}

func (t *tokenFlags) roles() []*structs.ACLTokenRoleLink {
	var out []*structs.ACLTokenRoleLink
	for _, id := range t.roleIDs {
		out = append(out, &structs.ACLTokenRoleLink{ID: id})
	}
	for _, n := range t.roleNames {
		out = append(out, &structs.ACLTokenRoleLink{Name: n})
	}
	return out
}

func (m *Meta) printTokenOut(t *structs.ACLToken, asJSON bool) int {
	if asJSON {
		return m.printJSONOut(t)
	}
	printToken(m, t)
	return exitOK
}

// aclTokenCreateCommand is `acl token create [options]`.
func aclTokenCreateCommand(m *Meta, args []string) int {
	f := m.newFlags("acl token create", "[options]")
	tf := newTokenFlags(f, true)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	tok := &structs.ACLToken{Name: *tf.name, Type: *tf.typ, Policies: tf.policies, Roles: tf.roles(),
		Global: *tf.global, ExpirationTTL: *tf.ttl}
	out, err := m.client(f).aclTokenUpsert(tok)
	if err != nil {
		return m.errorf("creating token: %v", err)
	}
	return m.printTokenOut(out, *tf.asJSON)
}

// aclTokenUpdateCommand is `acl token update [options] ACCESSOR`: the
// options given replace the token's values, the others keep them.
func aclTokenUpdateCommand(m *Meta, args []string) int {
	f := m.newFlags("acl token update", "[options] ACCESSOR")
	tf := newTokenFlags(f, false)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the token's accessor ID")
	}
	c := m.client(f)
	tok, err := c.aclToken(pos[0])
	if err != nil {
		return m.errorf("reading token: %v", err)
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["name"] {
		tok.Name = *tf.name
	}
	if set["type"] {
		tok.Type = *tf.typ
	}
	if set["global"] {
		tok.Global = *tf.global
	}
	if set["policy"] {
		tok.Policies = tf.policies
	}
	if set["role-id"] || set["role-name"] {
		tok.Roles = tf.roles()
	}
	out, err := c.aclTokenUpsert(tok)
	if err != nil {
		return m.errorf("updating token: %v", err)
	}
	return m.printTokenOut(out, *tf.asJSON)
}

func aclTokenDeleteCommand(m *Meta, args []string) int {
	f := m.newFlags("acl token delete", "[options] ACCESSOR")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the token's accessor ID")
	}
	if err := m.client(f).aclTokenDelete(pos[0]); err != nil {
		return m.errorf("deleting token: %v", err)
	}
	fmt.Fprintf(m.Out, "Token %s successfully deleted\n", pos[0])
	return exitOK
}

func aclTokenInfoCommand(m *Meta, args []string) int {
	return aclTokenShow(m, args, "acl token info", "[options] ACCESSOR", 1)
}

func aclTokenSelfCommand(m *Meta, args []string) int {
	return aclTokenShow(m, args, "acl token self", "[options]", 0)
}

func aclTokenShow(m *Meta, args []string, name, usage string, nargs int) int {
	f := m.newFlags(name, usage)
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != nargs {
		if nargs == 0 {
			return m.wrongArgs(f, "no arguments")
		}
		return m.wrongArgs(f, "one argument, the token's accessor ID")
	}
	key := "self"
	if nargs == 1 {
		key = pos[0]
	}
	tok, err := m.client(f).aclToken(key)
	if err != nil {
		return m.errorf("fetching token: %v", err)
	}
	if code, done := ff.print(m, tok); done {
		return code
	}
	return m.printTokenOut(tok, false)
}

func aclTokenListCommand(m *Meta, args []string) int {
	f := m.newFlags("acl token list", "[options]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	ts, err := m.client(f).aclTokens()
	if err != nil {
		return m.errorf("listing tokens: %v", err)
	}
	if code, done := ff.print(m, ts); done {
		return code
	}
	if len(ts) == 0 {
		fmt.Fprintln(m.Out, "No tokens found")
		return exitOK
	}
	rows := [][]string{{"Name", "Type", "Global", "Accessor ID", "Expired"}}
	now := m.Now()
	for _, t := range ts {
		expired := t.ExpirationTime != nil && !t.ExpirationTime.After(now)
		rows = append(rows, []string{t.Name, t.Type, strconv.FormatBool(t.Global), t.AccessorID, strconv.FormatBool(expired)})
	}
	table(m.Out, rows)
	return exitOK
}
