package cli

// The example jobs `job init` writes (job_init.go). Each must parse and
// validate with our jobspec (job_init_test.go).

// exampleJob is the commented example: one service group running Redis.
const exampleJob = `# This is an example job file: a Redis cache run by the docker driver.
# Run it with "nomadish job run example.nomad.hcl"; "nomadish job plan"
# shows what a change would do first.

# The job block is the top of a specification; its label is the job's ID,
# unique in its namespace.
job "example" {
  # The datacenters the job may be placed in ("*" and globs are allowed).
  datacenters = ["*"]

  # The type is "service" (long-lived), "batch" (runs to completion),
  # "system" (one per node) or "sysbatch".
  type = "service"

  # The update block is how a new version of the job is rolled out: how many
  # allocations at a time, how long one must be healthy, whether a failed
  # deployment reverts to the last stable version.
  update {
    max_parallel      = 1
    min_healthy_time  = "10s"
    healthy_deadline  = "3m"
    progress_deadline = "10m"
    auto_revert       = false
    canary            = 0
  }

  # The migrate block is how allocations leave a draining node.
  migrate {
    max_parallel     = 1
    health_check     = "checks"
    min_healthy_time = "10s"
    healthy_deadline = "5m"
  }

  # A group is a set of tasks placed together on one node; count is how
  # many instances of the group run.
  group "cache" {
    count = 1

    # The ports the group needs: "db" is given a dynamic host port mapped to
    # the container's 6379.
    network {
      port "db" {
        to = 6379
      }
    }

    # A service registered with Nomad's own service discovery, with a TCP
    # check on the port.
    service {
      name     = "redis-svc"
      port     = "db"
      provider = "nomad"

      check {
        type     = "tcp"
        interval = "10s"
        timeout  = "2s"
      }
    }

    # How a failed task is restarted in place before the allocation fails.
    restart {
      attempts = 2
      interval = "30m"
      delay    = "15s"
      mode     = "fail"
    }

    # The allocation directory's disk (MB).
    ephemeral_disk {
      size = 300
    }

    # A task is one process (here a container) run by a driver.
    task "redis" {
      driver = "docker"

      config {
        image          = "redis:7"
        ports          = ["db"]
        auth_soft_fail = true
      }

      # What the task needs: CPU in MHz and memory in MB.
      resources {
        cpu    = 500
        memory = 256
      }
    }
  }
}
`

// exampleJobShort is exampleJob without the comments.
const exampleJobShort = `job "example" {
  datacenters = ["*"]

  group "cache" {
    network {
      port "db" {
        to = 6379
      }
    }

    task "redis" {
      driver = "docker"

      config {
        image          = "redis:7"
        ports          = ["db"]
        auth_soft_fail = true
      }

      resources {
        cpu    = 500
        memory = 256
      }
    }
  }
}
`

// exampleConnectJob is Nomad's two-service example (an API and a
// dashboard calling it). nomadish has no Consul service mesh: the groups
// share bridge networks and the dashboard finds the API through Nomad's
// service discovery (a template reading the service).
const exampleConnectJob = `# An example of two services talking to each other: a counting API and a
# dashboard reading it. Each group has its own bridge network namespace; the
# dashboard finds the API through Nomad's service discovery.
job "countdash" {
  datacenters = ["*"]

  # The API: one instance listening on port 9001 inside its namespace.
  group "api" {
    network {
      mode = "bridge"

      port "api" {
        to = 9001
      }
    }

    service {
      name     = "count-api"
      port     = "api"
      provider = "nomad"
    }

    task "web" {
      driver = "docker"

      config {
        image          = "hashicorpdev/counter-api:v3"
        ports          = ["api"]
        auth_soft_fail = true
      }
    }
  }

  # The dashboard, on a static host port 9002, calling the API at the
  # address the template renders from the service's registrations.
  group "dashboard" {
    network {
      mode = "bridge"

      port "http" {
        static = 9002
        to     = 9002
      }
    }

    service {
      name     = "count-dashboard"
      port     = "http"
      provider = "nomad"
    }

    task "dashboard" {
      driver = "docker"

      config {
        image          = "hashicorpdev/counter-dashboard:v3"
        ports          = ["http"]
        auth_soft_fail = true
      }

      template {
        data        = <<EOT
{{ range nomadService "count-api" }}COUNTING_SERVICE_URL="http://{{ .Address }}:{{ .Port }}"{{ end }}
EOT
        destination = "local/env.txt"
        env         = true
      }
    }
  }
}
`

// exampleConnectJobShort is exampleConnectJob without the comments.
const exampleConnectJobShort = `job "countdash" {
  datacenters = ["*"]

  group "api" {
    network {
      mode = "bridge"

      port "api" {
        to = 9001
      }
    }

    service {
      name     = "count-api"
      port     = "api"
      provider = "nomad"
    }

    task "web" {
      driver = "docker"

      config {
        image          = "hashicorpdev/counter-api:v3"
        ports          = ["api"]
        auth_soft_fail = true
      }
    }
  }

  group "dashboard" {
    network {
      mode = "bridge"

      port "http" {
        static = 9002
        to     = 9002
      }
    }

    service {
      name     = "count-dashboard"
      port     = "http"
      provider = "nomad"
    }

    task "dashboard" {
      driver = "docker"

      config {
        image          = "hashicorpdev/counter-dashboard:v3"
        ports          = ["http"]
        auth_soft_fail = true
      }

      template {
        data        = <<EOT
{{ range nomadService "count-api" }}COUNTING_SERVICE_URL="http://{{ .Address }}:{{ .Port }}"{{ end }}
EOT
        destination = "local/env.txt"
        env         = true
      }
    }
  }
}
`
