name       = "node-1"
region     = "eu"
datacenter = "dc2"
data_dir   = "/var/lib/nomadish"
bind_addr  = "10.0.0.5"
log_level  = "warn"

advertise {
  http = "192.168.1.5"
  rpc  = "192.168.1.5:14647"
}

addresses {
  http = "127.0.0.1"
}

ports {
  http = 14646
  rpc  = 14647
  serf = 14648
}

server {
  enabled          = true
  bootstrap_expect = 1
  num_schedulers   = 2
  heartbeat_grace  = "30s"
}

client {
  enabled    = true
  servers    = ["10.0.0.1:4647", "10.0.0.2"]
  node_class = "gpu"
  state_dir  = "/var/lib/nomadish/cs"
  alloc_dir  = "/var/lib/nomadish/allocs"
  meta {
    rack = "r1"
    slot = 4
  }
}

plugin "raw_exec" {
  config {
    enabled = true
  }
}

plugin "docker" {
  config {
    allow_privileged = false
    gc {
      image_delay = "3m"
    }
    volumes {
      enabled = true
    }
    extra_labels = ["job_name", "task_name"]
    ratio        = 0.5
  }
}
