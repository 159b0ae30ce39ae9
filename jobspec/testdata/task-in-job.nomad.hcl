# Nomad accepts a task directly in a job: it becomes a group of its name.
job "bare" {
  task "web" {
    driver = "raw_exec"
    config {
      command = "/bin/sleep"
      args    = ["60"]
    }
  }
}
