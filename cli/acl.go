package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// aclCommands are the acl command family (cli.go lists them).
func aclCommands() []command {
	return []command{
		{name: "acl bootstrap", synopsis: "Create the initial ACL management token", run: aclBootstrapCommand},
		{name: "acl policy apply", synopsis: "Create or update an ACL policy", run: aclPolicyApplyCommand},
		{name: "acl policy delete", synopsis: "Delete an ACL policy", run: aclPolicyDeleteCommand},
		{name: "acl policy info", synopsis: "Display an ACL policy", run: aclPolicyInfoCommand},
		{name: "acl policy list", synopsis: "List ACL policies", run: aclPolicyListCommand},
		{name: "acl policy self", synopsis: "List the ACL policies of the current token", run: aclPolicySelfCommand},
		{name: "acl token create", synopsis: "Create an ACL token", run: aclTokenCreateCommand},
		{name: "acl token update", synopsis: "Update an ACL token", run: aclTokenUpdateCommand},
		{name: "acl token delete", synopsis: "Delete an ACL token", run: aclTokenDeleteCommand},
		{name: "acl token info", synopsis: "Display an ACL token", run: aclTokenInfoCommand},
		{name: "acl token list", synopsis: "List ACL tokens", run: aclTokenListCommand},
		{name: "acl token self", synopsis: "Display the current ACL token", run: aclTokenSelfCommand},
		{name: "acl role create", synopsis: "Create an ACL role", run: aclRoleCreateCommand},
		{name: "acl role update", synopsis: "Update an ACL role", run: aclRoleUpdateCommand},
		{name: "acl role delete", synopsis: "Delete an ACL role", run: aclRoleDeleteCommand},
		{name: "acl role info", synopsis: "Display an ACL role", run: aclRoleInfoCommand},
		{name: "acl role list", synopsis: "List ACL roles", run: aclRoleListCommand},
	}
}

// printJSONOut writes v as indented JSON (the -json option).
func (m *Meta) printJSONOut(v any) int {
	b, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return m.errorf("encoding JSON: %v", err)
	}
	fmt.Fprintln(m.Out, string(b))
	return exitOK
}

// aclBootstrapCommand is `acl bootstrap [-json] [SECRET_FILE]`: SECRET_FILE
// ("-" for stdin) holds the secret to give the management token.
func aclBootstrapCommand(m *Meta, args []string) int {
	f := m.newFlags("acl bootstrap", "[options] [SECRET_FILE]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return m.wrongArgs(f, "at most one argument, a file holding the secret")
	}
	secret := ""
	if len(pos) == 1 {
		var raw []byte
		var err error
		if pos[0] == "-" {
			raw, err = io.ReadAll(os.Stdin)
		} else {
			raw, err = os.ReadFile(pos[0])
		}
		if err != nil {
			return m.errorf("reading the bootstrap secret: %v", err)
		}
		secret = strings.TrimSpace(string(raw))
	}
	tok, err := m.client(f).aclBootstrap(secret)
	if err != nil {
		return m.errorf("bootstrapping: %v", err)
	}
	if code, done := ff.print(m, tok); done {
		return code
	}
	printToken(m, tok)
	return exitOK
}

// printToken prints a token as Nomad's CLI does.
func printToken(m *Meta, t *structs.ACLToken) {
	expiry := "<none>"
	if t.ExpirationTime != nil {
		expiry = formatTime(*t.ExpirationTime)
	}
	policies, roles := "n/a", "n/a"
	if t.Type == structs.ACLClientToken {
		policies = strings.Join(t.Policies, ", ")
		var rs []string
		for _, r := range t.Roles {
			rs = append(rs, r.Name)
		}
		roles = strings.Join(rs, ", ")
		if roles == "" {
			roles = "<none>"
		}
	}
	kv(m.Out,
		"Accessor ID", t.AccessorID,
		"Secret ID", t.SecretID,
		"Name", t.Name,
		"Type", t.Type,
		"Global", strconv.FormatBool(t.Global),
		"Create Time", formatTime(t.CreateTime),
		"Expiry Time", expiry,
		"Create Index", strconv.FormatUint(t.CreateIndex, 10),
		"Modify Index", strconv.FormatUint(t.ModifyIndex, 10),
		"Policies", policies,
		"Roles", roles,
	)
}

// aclPolicyApplyCommand is `acl policy apply [-description D] NAME FILE`
// ("-" reads stdin). The rules are checked locally first: a bad policy
// is refused with its file:line:col and nothing is sent.
func aclPolicyApplyCommand(m *Meta, args []string) int {
	f := m.newFlags("acl policy apply", "[options] NAME FILE")
	desc := f.String("description", "", "description of the policy")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		return m.wrongArgs(f, "two arguments, the policy name and the rules file")
	}
	var raw []byte
	var err error
	if pos[1] == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(pos[1])
	}
	if err != nil {
		return m.errorf("reading policy file: %v", err)
	}
	if _, err := acl.Parse(pos[1], string(raw)); err != nil {
		return m.errorf("in policy file:\n%v", err)
	}
	p := &structs.ACLPolicy{Name: pos[0], Description: *desc, Rules: string(raw)}
	if err := m.client(f).aclPolicyUpsert(p); err != nil {
		return m.errorf("writing ACL policy: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully wrote %q ACL policy!\n", pos[0])
	return exitOK
}

func aclPolicyDeleteCommand(m *Meta, args []string) int {
	f := m.newFlags("acl policy delete", "[options] NAME")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the policy name")
	}
	if err := m.client(f).aclPolicyDelete(pos[0]); err != nil {
		return m.errorf("deleting ACL policy: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully deleted %q ACL policy!\n", pos[0])
	return exitOK
}

func aclPolicyInfoCommand(m *Meta, args []string) int {
	f := m.newFlags("acl policy info", "[options] NAME")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument, the policy name")
	}
	p, err := m.client(f).aclPolicy(pos[0])
	if err != nil {
		return m.errorf("reading ACL policy: %v", err)
	}
	if code, done := ff.print(m, p); done {
		return code
	}
	kv(m.Out, "Name", p.Name, "Description", p.Description,
		"CreateIndex", strconv.FormatUint(p.CreateIndex, 10), "ModifyIndex", strconv.FormatUint(p.ModifyIndex, 10))
	fmt.Fprintf(m.Out, "\nRules\n\n%s\n", strings.TrimRight(p.Rules, "\n"))
	return exitOK
}

func aclPolicyListCommand(m *Meta, args []string) int {
	return aclPolicyListAt(m, args, "acl policy list", "/v1/acl/policies")
}

func aclPolicySelfCommand(m *Meta, args []string) int {
	return aclPolicyListAt(m, args, "acl policy self", "/v1/acl/policy/self")
}

func aclPolicyListAt(m *Meta, args []string, name, path string) int {
	f := m.newFlags(name, "[options]")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	ps, err := m.client(f).aclPolicies(path)
	if err != nil {
		return m.errorf("listing ACL policies: %v", err)
	}
	if code, done := ff.print(m, ps); done {
		return code
	}
	if len(ps) == 0 {
		fmt.Fprintln(m.Out, "No policies found")
		return exitOK
	}
	rows := [][]string{{"Name", "Description"}}
	for _, p := range ps {
		rows = append(rows, []string{p.Name, p.Description})
	}
	table(m.Out, rows)
	return exitOK
}
