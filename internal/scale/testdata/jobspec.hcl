# 2 nodesim instances × 10 simulated nodes, registering with the
# servers under test (which need limits { rpc_max_conns_per_client = 0 }).
# Written by the scale simulation (-place job).
job "nodesim" {
  datacenters = ["dc1"]
  type        = "service"

  group "nodesim" {
    count = 2

    # Instances on distinct clients where there are enough.
    spread {
      attribute = "${node.unique.id}"
    }

    # A simulator that dies is a failed run, not one to hide.
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }

    # Each instance serves its nodes' own view at /v1/state here.
    network {
      port "http" {}
    }

    task "nodesim" {
      driver = "raw_exec"

      config {
        command = "/usr/local/bin/nodesim"
        args = [
          "-servers", "10.0.0.1:4647,10.0.0.2:4647,10.0.0.3:4647",
          "-nodes", "10",
          "-name-prefix", "nodesim-${NOMAD_ALLOC_INDEX}",
          "-data-dir", "${NOMAD_TASK_DIR}/nodesim",
          "-realistic",
          "-setup-delay", "10ms",
          "-start-delay", "250ms",
          "-kill-delay", "50ms",
          "-http", "${NOMAD_ADDR_http}",
          "-log-level", "warn",
        ]
      }

      resources {
        cpu    = 150
        memory = 104
      }
    }
  }
}
