variable "image" {
  type        = string
  description = "the image to run"
  default     = "redis:7"
}

variable "count" {
  type    = number
  default = 2
}

variable "dcs" {
  type    = list(string)
  default = ["dc1", "dc2"]
}

variable "tier" {
  type = string
  validation {
    condition     = contains(["web", "batch"], var.tier)
    error_message = "tier must be web or batch"
  }
}

variables {
  owner = "team-a"
}

locals {
  name   = format("%s-%s", var.tier, local.suffix)
  suffix = upper("svc")
  labels = merge({ owner = var.owner }, { tier = var.tier })
}

job "full" {
  type        = "batch"
  datacenters = var.dcs
  priority    = 70
  region      = "eu"
  namespace   = "prod"
  node_pool   = "gpu"
  all_at_once = true

  meta {
    owner = var.owner
    n     = 3
  }

  group "main" {
    count = var.count

    meta = local.labels

    restart {
      attempts         = 5
      interval         = "10m"
      delay            = "25s"
      mode             = "delay"
      render_templates = true
    }

    task "app" {
      driver       = "raw_exec"
      user         = "nobody"
      kill_timeout = "30s"
      kill_signal  = "SIGINT"
      leader       = true

      config {
        command = "/bin/sh"
        args    = ["-c", "echo ${NOMAD_ALLOC_ID} on ${attr.kernel.name}", join(",", var.dcs)]
        image   = var.image
        ratio   = 1.5
        retries = 3
        debug   = false
        labels  = local.labels
        json    = jsonencode({ a = 1 })
        decoded = jsondecode("{\"b\": [1, 2]}")

        mount {
          type   = "bind"
          target = "/data"
        }
        mount {
          type = "tmpfs"
        }
        port "http" {
          to = 8080
        }
      }

      env {
        NAME  = local.name
        PORT  = "${NOMAD_PORT_http}"
        PARTS = length(split(",", "a,b,c"))
        FIRST = coalesce("", "x")
        LOWER = lower("ABC")
        ALL   = join(" ", concat(["a"], ["b"]))
      }

      meta {
        version = "1"
      }

      logs {
        max_files     = 3
        max_file_size = 20
      }

      resources {
        cpu        = 250
        memory     = 128
        memory_max = 256
        disk       = 50
      }
    }

    task "side" {
      driver = "exec"
      resources {
        cores  = 2
        memory = 64
      }
    }
  }
}
