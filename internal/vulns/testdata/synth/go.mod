module example.com/synth

go 1.20

require example.com/vulnlib v1.0.0
