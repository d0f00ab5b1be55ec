disable_update_check = true

client {
  options = {
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
  alloc_update {
    sync_interval    = "1s"
    typical_interval = "5s"
    mode             = "traffic"
  }
}

telemetry {
  collection_interval = "1s"
}
