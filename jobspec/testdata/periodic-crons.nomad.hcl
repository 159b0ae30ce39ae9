# Adapted from Nomad's jobspec/test-fixtures/periodic-crons.hcl (with 5-field
# crons, which Nomad's own validation requires, and a task to run).
job "foo" {
  type = "batch"
  periodic {
    crons = [
      "*/5 * * * *",
      "*/7 * * * *"
    ]
    prohibit_overlap = true
    time_zone        = "Europe/Minsk"
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
