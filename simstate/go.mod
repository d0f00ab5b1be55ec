module github.com/nomad-client-fork/nomad-client-fork/simstate

go 1.22
