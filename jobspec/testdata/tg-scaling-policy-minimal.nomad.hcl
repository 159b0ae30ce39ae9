# Nomad's jobspec/test-fixtures/tg-scaling-policy-minimal.hcl, with a task.
job "elastic" {
  group "group" {
    scaling {
      max = 10
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
