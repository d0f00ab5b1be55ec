#!/bin/bash
# Mutation checks of the series' tests: each mutation removes one behaviour a
# patch adds from nomad/ and the tests that claim it must then fail. Run it
# in the sandbox after `make` (bin/nomad of the same tree on PATH):
#
#	bin/nomadfork sandbox -- scripts/mutate.sh
#
# It refuses to run on a nomad/ with uncommitted changes, since it restores
# every mutated file with git checkout. Exit status 1 if a mutation survives.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top/nomad" || exit 2
export PATH=$top/bin:$PATH
if [ -n "$(git status --porcelain)" ]; then
  echo "mutate.sh: nomad/ has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
survived=0
run() { # name file python-old python-new pkg testregex
  name=$1 file=$2 pkg=$5 re=$6
  python3 - "$file" "$3" "$4" <<'PY'
import sys
p,old,new=sys.argv[1:4]
s=open(p).read()
assert s.count(old)==1, (p, old)
open(p,'w').write(s.replace(old,new))
PY
  out=$(go test -count=1 -run "$re" $pkg 2>&1)
  if echo "$out" | grep -q '^ok'; then echo "MUTATION $name: tests PASS (not caught!)"; survived=1; else echo "MUTATION $name: tests FAIL (caught)"; echo "$out" | grep -E -- '--- FAIL|Error|expected|panic' | head -8; fi
  git checkout -q -- "$file"
}
run no-urgency client/alloc_update_priority.go 'func allocUpdateUrgent(update, server *structs.Allocation) bool {' 'func allocUpdateUrgent(update, server *structs.Allocation) bool {
	return false' ./client/ 'TestAllocUpdateUrgent$|TestClient_AllocSync_Cadence$'
run health-typical client/alloc_update_priority.go '	return !pointer.Eq(allocHealthy(update), allocHealthy(server))' '	return false' ./client/ 'TestAllocUpdateUrgent$'
run typical-not-held client/alloc_updates.go 'c.syncAllocUpdates(ticks >= allocSyncTypicalTicks, ' 'c.syncAllocUpdates(true, ' ./client/ 'TestClient_AllocSync_Cadence$'
run no-urgent-window client/alloc_updates.go 'sendUrgent := urgentTicks >= allocSyncUrgentTicks ||' 'sendUrgent := true ||' ./client/ 'TestClient_AllocSync_Cadence$'
run no-prompt-when-complete client/alloc_updates.go 'urgentTicks > 0 && c.allocUpdates.urgentComplete(' 'false && c.allocUpdates.urgentComplete(' ./client/ 'TestClient_AllocSync_DeploymentHealth$'
run complete-ignores-health client/alloc_updates.go 'latest == nil || !latest.ClientTerminalStatus() && !latest.DeploymentStatus.HasHealth()' 'latest == nil' ./client/ 'TestAllocUpdateBuffer_UrgentComplete$'
run no-dedupe client/alloc_updates.go 'server.acked && allocUpdateAcknowledged(alloc, server.alloc)' 'false' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$|TestClient_AllocSync_Cadence$'
run dedupe-while-sending client/alloc_updates.go 'if _, sending := b.sending[alloc.ID]; !sending' 'if sending := false; !sending' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run dedupe-after-contradicting-pull client/alloc_updates.go 'prev.acked && !allocServerStateChanged(prev.alloc, alloc)' 'prev.acked' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run stale-ack-recorded client/alloc_updates.go '} else if b.sendingSince == b.forgotten {' '} else {' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run no-forget-on-failed-heartbeat client/client.go '		// send the next update of each
		c.allocUpdates.forgetServerState()
		c.triggerDiscovery()' '		// send the next update of each
		c.triggerDiscovery()' ./client/ 'TestClient_ForgetsAllocServerState$'
run no-forget-on-status-change client/client.go '		// status: send the next update of each
		c.allocUpdates.forgetServerState()' '		// status: send the next update of each' ./client/ 'TestClient_ForgetsAllocServerState$'
run no-forget-on-failed-send client/alloc_updates.go '	if err != nil {
		b.forgetLocked()
	}' '' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run failed-batch-dropped client/alloc_updates.go '			b.putLocked(update, false)' '			continue' ./client/ 'TestClient_AllocSync_Cadence$'
run producers-wait-for-rpc client/alloc_updates.go '	b.lock.Lock()
	defer b.lock.Unlock()

	b.latest[alloc.ID] = alloc' '	b.sendLock.Lock()
	defer b.sendLock.Unlock()
	b.lock.Lock()
	defer b.lock.Unlock()

	b.latest[alloc.ID] = alloc' ./client/ 'TestClient_AllocSync_StalledRPC$'
run no-shutdown-flush client/client.go '	c.flushAllocUpdates()
' '' ./client/ 'TestClient_Shutdown_FlushesAllocUpdates$'
run no-factory client/alloc_runner_factory.go '	if factory := c.GetConfig().AllocRunnerFactory; factory != nil {' '	if factory := c.GetConfig().AllocRunnerFactory; false && factory != nil {' ./client/ 'TestClient_AllocRunnerFactory'
run metrics-trigger client/alloc_update_metrics.go '	if retry {' '	if false {' ./client/ 'TestClient_AllocSync_Metrics$'
run csi-not-shared client/allocrunner/alloc_runner.go '			AllocHookResources:  ar.hookResources,
' '' ./client/allocrunner/ 'TestAllocRunner_CSIMounts_SharedWithTaskRunners$'
# The #16623 fix is both: the shared resources and the nil default. Revert both.
python3 - <<'PY'
p='client/allocrunner/alloc_runner.go'
s=open(p).read()
old='			AllocHookResources:  ar.hookResources,\n'
assert s.count(old)==1
open(p,'w').write(s.replace(old,''))
PY
run csi-16623-unfixed client/allocrunner/taskrunner/task_runner.go '	if tr.allocHookResources == nil {
		tr.allocHookResources = &cstructs.AllocHookResources{}
	}' '' ./client/allocrunner/ 'TestAllocRunner_Restore_Terminal_CSIMounts$'
run migrate-dotdot-allowed client/allocwatcher/migrate_paths.go 'if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {' 'if rel == "." {' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_PathEscape$'
run migrate-through-symlink client/allocwatcher/migrate_paths.go '		if fi.Mode()&os.ModeSymlink != 0 {' '		if false && fi.Mode()&os.ModeSymlink != 0 {' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_SamePathTwice$'
run migrate-symlink-outside client/allocwatcher/migrate_paths.go '	if filepath.IsAbs(target) {
		return true
	}' '' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_SymlinkOutside$'
git checkout -q -- client/allocrunner/alloc_runner.go
git status --short
exit $survived
