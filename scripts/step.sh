#!/bin/sh
# Runs a step of a make recipe and prints when it started and how long it
# took, so a run's log (CI's included) says where the time goes.
start=$(date +%s)
echo "==> [$(date -u +%H:%M:%S)] $*"
"$@"
rc=$?
echo "<== [$(date -u +%H:%M:%S)] $(( $(date +%s) - start )) s, exit $rc: $*"
exit $rc
