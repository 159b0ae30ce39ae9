# Nomad's jobspec2/test-fixtures/parameterized_job.hcl, typed batch as
# Nomad's validation requires.
job "parameterized_job" {
  type = "batch"
  parameterized {
    payload       = "required"
    meta_required = ["foo", "bar"]
    meta_optional = ["baz", "bam"]
  }

  group "foo" {
    task "bar" {
      driver = "docker"
      config {
        image = "busybox"
      }

      dispatch_payload {
        file = "foo/bar"
      }
    }
  }
}
