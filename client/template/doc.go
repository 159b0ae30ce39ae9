// Package template renders a task's template blocks on the client: the
// text/template engine with a consul-template-style function map (env,
// file, nomadVar, nomadVarList, nomadVarExists, string and JSON helpers,
// sprig_ basics), destinations confined to the task and allocation
// directories, env files, and a Manager that renders before the task
// starts (blocking while a nomadVar it reads does not exist) and watches
// the variables it read, re-rendering and applying the change mode.
//
// Render, the function map, Resolve and ParseEnvFile are pure or touch
// only the task's directories; Manager is the goroutine shell around them.
package template
