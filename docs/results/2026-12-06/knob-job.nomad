job "knob" {
  datacenters = ["dc1"]
  type        = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "sleep 3"]
      }
    }
  }
}
