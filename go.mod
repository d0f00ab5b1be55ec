module github.com/nomad-client-fork/nomad-client-fork

go 1.24
