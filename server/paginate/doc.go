// Package paginate pages and filters the server's list answers as Nomad's
// list endpoints do: a go-bexpr filter over each row, per_page rows from
// next_token on, in forward or reverse order, and the token of the next
// page. It is pure (no state store, no RPC): a list endpoint builds its
// rows, and Page picks the page out of them. Every list endpoint uses it,
// so tokens and filters mean the same everywhere.
package paginate
