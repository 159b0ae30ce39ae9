# The structure of `nomad job init` output (command/assets/example.nomad.hcl
# in Nomad), with its long comments shortened.
job "example" {
  # region = "global"
  datacenters = ["*"]
  type        = "service"

  # constraint {
  #   attribute = "${attr.kernel.name}"
  #   value     = "linux"
  # }

  update {
    max_parallel      = 1
    min_healthy_time  = "10s"
    healthy_deadline  = "3m"
    progress_deadline = "10m"
    auto_revert       = false
    canary            = 0
  }

  migrate {
    max_parallel     = 1
    health_check     = "checks"
    min_healthy_time = "10s"
    healthy_deadline = "5m"
  }

  group "cache" {
    count = 1

    network {
      port "db" {
        to = 6379
      }
    }

    service {
      name     = "redis-cache"
      tags     = ["global", "cache"]
      port     = "db"
      provider = "nomad"

      # check {
      #   name     = "alive"
      #   type     = "tcp"
      #   interval = "10s"
      #   timeout  = "2s"
      # }
    }

    restart {
      attempts = 2
      interval = "30m"
      delay    = "15s"
      mode     = "fail"
    }

    ephemeral_disk {
      # sticky = true
      # migrate = true
      size = 300
    }

    # affinity {
    #   attribute = "${node.datacenter}"
    #   value     = "us-west1"
    #   weight    = 100
    # }

    # spread {
    #   attribute = "${node.datacenter}"
    #   target "us-east1" {
    #     percent = 60
    #   }
    # }

    task "redis" {
      driver = "docker"

      config {
        image          = "redis:7"
        ports          = ["db"]
        auth_soft_fail = true
      }

      # artifact {
      #   source = "http://foo.com/artifact.tar.gz"
      # }

      # logs {
      #   max_files     = 10
      #   max_file_size = 15
      # }

      resources {
        cpu    = 500 # 500 MHz
        memory = 256 # 256MB
      }

      # template {
      #   data        = "KEY={{ key \"service/my-key\" }}"
      #   destination = "local/file.env"
      #   env         = true
      # }

      # vault {
      #   policies = ["cdn", "frontend"]
      # }

      # kill_timeout = "20s"
    }
  }
}
