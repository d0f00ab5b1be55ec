#!/bin/bash
# Mutation checks of the series' tests: each mutation removes one behaviour a
# patch adds from nomad/ and the tests that claim it must then fail. Run it
# in the sandbox after `make` (bin/nomad of the same tree on PATH):
#
#	bin/nomadfork sandbox -- scripts/mutate.sh
#
# LINE=v1.5.6 (or -line v1.5.6) runs it on that line's work tree
# (lines/v1.5.6/nomad/, after `make LINE=v1.5.6`, whose bin/nomad it runs);
# unset, on the default line's nomad/. The v1.6.1 line has its own block of
# mutations (its series differs, see below). ONLY=name,name... runs only
# the mutations named.
#
# Each verdict names the first failing test and how long the run took. A
# timeout (MUTATE_TIMEOUT, default 600s per entry), a compile error, no test
# matching the entry's pattern, or a failure outside a named test (a panic
# in a goroutine) is reported as such: not a verdict.
#
# It refuses to run on a work tree with uncommitted changes, since it restores
# every mutated file with git checkout. Exit status 1 if a mutation survives,
# no longer applies or got no verdict.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
line=${LINE:-$(cat "$top/patches/default-line")}
if [ "${1:-}" = -line ] && [ -n "${2:-}" ]; then
  line=$2
fi
tree=$top/nomad
if [ "$line" != "$(cat "$top/patches/default-line")" ]; then
  tree=$top/lines/$line/nomad
fi
cd "$tree" || exit 2
echo "mutate.sh: line $line, $tree at $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
export PATH=$top/bin:$PATH
if [ -n "$(git status --porcelain)" ]; then
  echo "mutate.sh: $tree has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
survived=0
run() { # name file python-old python-new pkg testregex
  name=$1 file=$2 pkg=$5 re=$6
  case ",${ONLY:-$name}," in *",$name,"*) ;; *) return ;; esac
  if ! python3 - "$file" "$3" "$4" <<'PY'
import sys
p,old,new=sys.argv[1:4]
s=open(p).read()
if s.count(old)!=1:
    sys.exit("text to mutate found %d times in %s" % (s.count(old), p))
open(p,'w').write(s.replace(old,new))
PY
  then
    echo "MUTATION $name: does not apply (fix the entry)"; survived=1; return
  fi
  # -vet=off: on the v1.5.3 line (go 1.26.0) go test's vet refuses upstream's
  # nomad/ package (non-constant format strings), which would count as caught.
  # The timeout is far above any of these tests' run time, so that a slow
  # machine is not mistaken for a catch; a timeout, a build failure, no test
  # matching or a failure outside a named test is no verdict.
  start=$(date +%s)
  # -ldflags=-w: no DWARF, a quicker link of each mutated test binary.
  out=$(go test -vet=off -ldflags=-w -count=1 -timeout "${MUTATE_TIMEOUT:-600s}" -run "$re" $pkg 2>&1)
  took="$(( $(date +%s) - start ))s"
  first=$(echo "$out" | grep -m1 -o -E -- '--- FAIL: [^ ]+' | sed 's/--- FAIL: //')
  if echo "$out" | grep -q -E '^FAIL.*\[(build|setup) failed\]|^# '; then
    echo "MUTATION $name: build failed (not a verdict, $took)"; survived=1
    echo "$out" | head -8
  elif echo "$out" | grep -q '^panic: test timed out'; then
    echo "MUTATION $name: timed out (not a verdict, $took)"; survived=1
    echo "$out" | grep -A3 -E '^panic: test timed out|^running tests:' | head -6
  elif echo "$out" | grep -q 'no tests to run'; then
    echo "MUTATION $name: no test matched $re (not a verdict, $took)"; survived=1
  elif echo "$out" | grep -q '^ok'; then
    echo "MUTATION $name: tests PASS (not caught!, $took)"; survived=1
  elif [ -n "$first" ]; then
    echo "MUTATION $name: tests FAIL (caught, $took): first failing test $first"
    echo "$out" | grep -E -- '^ *--- FAIL|^ +[A-Za-z0-9_]+_test\.go:[0-9]+:|^ +↪|^panic:' | head -8
  else
    # A panic in a goroutine of its own names no test: show where it
    # happened, for the reader to judge.
    echo "MUTATION $name: failed outside a named test (not a verdict, $took)"; survived=1
    echo "$out" | grep -E -- '^panic:|^fatal error:' | head -2
    echo "$out" | grep -A12 -m1 -E '^goroutine [0-9]+ \[running\]:'
    echo "$out" | grep -E '^(FAIL|ok)[[:space:]]' | head -2
  fi
  git checkout -q -- "$file"
}
# ---- the v1.6.1 line (its series 0003-0007 is v1.6's prioritized sync plus
# the rule; files and tests differ from v1.5.x's). Everything after this
# block is the v1.5.x lines' (v1.5.3, v1.5.6: the same code).
if [ "$line" = v1.6.1 ]; then
# 0003: the rule (issue 31: a task handle change is urgent)
run v161-task-handle-typical client/allocrunner/alloc_update_priority.go '		taskHandlesChanged(acked.TaskStates, update.TaskStates):' '		false:' ./client/allocrunner/ 'TestAllocUpdatePriority$'
run v161-health-typical client/allocrunner/alloc_update_priority.go '		!pointer.Eq(allocHealthy(acked.DeploymentStatus), allocHealthy(update.DeploymentStatus)),' '		false && !pointer.Eq(allocHealthy(acked.DeploymentStatus), allocHealthy(update.DeploymentStatus)),' ./client/allocrunner/ 'TestAllocUpdatePriority$'
# 0005: #18541's re-queue and forget, and (issue 31) gone only on evidence,
# terminal never dropped, the servers going back
run v161-no-forget-on-registration client/client.go '	c.pendingUpdates.forgetServerState()

	// Signal that we' '
	// Signal that we' ./client/ 'TestClient_ForgetsAllocServerState$'
run v161-no-forget-on-failed-heartbeat client/client.go '		// send the newest update of each
		c.pendingUpdates.forgetServerState()
		c.triggerDiscovery()' '		// send the newest update of each
		c.triggerDiscovery()' ./client/ 'TestClient_ForgetsAllocServerState$'
run v161-no-forget-on-status-change client/client.go '		// status: send the newest update of each
		c.pendingUpdates.forgetServerState()' '		// status: send the newest update of each' ./client/ 'TestClient_ForgetsAllocServerState$'
run v161-no-requeue-on-forget client/alloc_server_state.go '	for id := range p.latest {
		p.requeueLocked(id)
	}' '' ./client/ 'TestClient_ForgetsAllocServerState$|TestPendingClientUpdates_ServerState$'
run v161-stale-answer-forgets client/alloc_server_state.go 'if _, ok := listed[id]; ok || index < p.seen[id] {' 'if _, ok := listed[id]; ok {' ./client/ 'TestPendingClientUpdates_GoneOnEvidence$'
run v161-terminal-dropped client/alloc_server_state.go 'if priority == cstructs.AllocUpdatePriorityNone && update.ClientTerminalStatus() {' 'if false {' ./client/ 'TestPendingClientUpdates_GoneOnEvidence$'
run v161-backwards-answer-ignored client/alloc_server_state.go '	wentBack := index < p.index' '	wentBack := false' ./client/ 'TestPendingClientUpdates_ServersGoBackwards$'
run v161-backwards-alloc-ignored client/alloc_server_state.go 'if prev, ok := p.listed[id]; ok && modifyIndex < prev {' 'if false {' ./client/ 'TestPendingClientUpdates_ServersGoBackwards$'
run v161-backwards-alloc-requeues-one client/alloc_server_state.go '			p.known[id] = -1
			wentBack = true' '			p.known[id] = -1
			p.requeueLocked(id)' ./client/ 'TestPendingClientUpdates_ServersGoBackwards$'
run v161-missing-running-ignored client/alloc_server_state.go 'if _, ok := listed[id]; !ok && index >= p.seen[id] && !update.TerminalStatus() {' 'if _, _ = id, update; false {' ./client/ 'TestPendingClientUpdates_ServersGoBackwards$'
run v161-stale-ack-recorded client/alloc_server_state.go '	if p.takenSince != p.forgotten {
		return' '	if false {
		return' ./client/ 'TestPendingClientUpdates_ServerState$'
# 0028: the cadence from the client's alloc_update block (issue 33)
run v161-knob-typical-ignored client/alloc_updates.go '		!woken && updateTicks%typicalTicks == 0' '		!woken && updateTicks%allocSyncTypicalTicks == 0' ./client/ 'TestPendingClientUpdates_ConfiguredCadence$'
run v161-knob-traffic-mode-ignored client/alloc_updates.go '	if !c.allocUpdateConfig().SendTerminalAtOnce {' '	if false {' ./client/ 'TestPendingClientUpdates_ConfiguredCadence$'
run v161-knob-not-copied command/agent/agent.go '	conf.AllocUpdate = allocUpdateConfig' '	_ = allocUpdateConfig' ./command/agent/ 'TestConfig_AllocUpdate$'
# 0030: the client backoff (issue 33 part 3)
run v161-backoff-not-held client/client.go '			urgent = urgent || !p.heldLocked(c.allocs[allocID], update)' '			urgent = true' ./client/ 'TestPendingClientUpdates_Backoff$'
run v161-backoff-always-held client/alloc_update_backoff.go '	p.holdTick = p.slow && updateTicks%progressTicks != 0' '	p.holdTick = updateTicks%progressTicks != 0' ./client/ 'TestPendingClientUpdates_Backoff$'
run v161-backoff-unknown-held client/alloc_update_backoff.go '	if !p.holdTick || ar == nil || p.known[update.ID] < p.forgotten {' '	if !p.holdTick || ar == nil {' ./client/ 'TestPendingClientUpdates_Backoff$'
run v161-backoff-not-timed client/alloc_update_metrics.go '		c.pendingUpdates.timed(now().Sub(sentAt) > c.allocUpdateConfig().SyncInterval)' '		_ = sentAt' ./client/ 'TestClient_UpdateAllocRPC_Backoff$'
run v161-backoff-failure-timed client/alloc_update_metrics.go '	if err == nil {
		c.pendingUpdates.timed(' '	if true {
		c.pendingUpdates.timed(' ./client/ 'TestClient_UpdateAllocRPC_Backoff$'
run v161-first-running-not-progress client/allocrunner/alloc_update_progress.go '	return held == structs.AllocClientStatusPending &&' '	return false && held == structs.AllocClientStatusPending &&' ./client/allocrunner/ 'TestAllocUpdateIsProgress$'
run v161-status-change-progress client/allocrunner/alloc_update_progress.go '	return held == structs.AllocClientStatusPending &&' '	return true || held == structs.AllocClientStatusPending &&' ./client/allocrunner/ 'TestAllocUpdateIsProgress$'
# 0006: the shutdown flush (issue 31: only confirmed sends count, the unsent
# logged, the flush ends within Shutdown)
run v161-unconfirmed-counted-sent client/alloc_flush.go '	if err == nil && resp.Index == 0 {' '	if false {' ./client/ 'TestClient_SendAllocUpdates_Unconfirmed$|TestClient_FlushAllocUpdates_Unconfirmed$'
run v161-unsent-not-logged client/alloc_flush.go 'if ids := c.pendingUpdates.pendingIDs(); len(ids) > 0 {' 'if ids := c.pendingUpdates.pendingIDs(); len(ids) > 1000 {' ./client/ 'TestClient_FlushAllocUpdates_Unconfirmed$'
run v161-flush-outlives-shutdown client/alloc_flush.go '	c.shutdownGroup.Go(func() {' '	var outside group
	outside.Go(func() {' ./client/ 'TestClient_FlushAllocUpdates$|TestClient_FlushAllocUpdates_Unconfirmed$'
run v161-flush-beside-send-in-flight client/alloc_flush.go '		if !p.sending {
			break
		}' '		if true {
			break
		}' ./client/ 'TestClient_FlushAllocUpdates$'
run v161-no-shutdown-flush client/client.go '	c.flushAllocUpdates()
' '' ./client/ 'TestClient_Shutdown_FlushesAllocUpdates$'
else
# 0003: the buffer
run producers-wait-for-rpc client/alloc_updates.go '	b.lock.Lock()
	defer b.lock.Unlock()

	if !b.server[alloc.ID].gone {' '	b.sendLock.Lock()
	defer b.sendLock.Unlock()
	b.lock.Lock()
	defer b.lock.Unlock()

	if !b.server[alloc.ID].gone {' ./client/ 'TestClient_AllocSync_StalledRPC$'
run failed-batch-dropped client/alloc_updates.go '			b.putLocked(update, false)' '			continue' ./client/ 'TestClient_AllocSync_Retry$'
run failed-batch-overwrites-newer client/alloc_updates.go '		if !newer {
			update.alloc = prev.alloc
		}' '' ./client/ 'TestAllocUpdateBuffer_FailedBatch$'
# 0004: the dedupe and its forget paths
run no-dedupe client/alloc_update_dedupe.go '	return server.gone || server.acked && allocUpdateAcknowledged(alloc, server.alloc)' '	return server.gone' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run gone-sent client/alloc_update_dedupe.go '	return server.gone || server.acked && allocUpdateAcknowledged(alloc, server.alloc)' '	return server.acked && allocUpdateAcknowledged(alloc, server.alloc)' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run gone-never-forgotten client/alloc_update_dedupe.go '		if server.gone {
			delete(b.server, id)' '		if false {
			delete(b.server, id)' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run dedupe-ignores-task-states client/alloc_update_dedupe.go '		reflect.DeepEqual(update.NetworkStatus, acked.NetworkStatus) &&
		reflect.DeepEqual(update.TaskStates, acked.TaskStates)' '		reflect.DeepEqual(update.NetworkStatus, acked.NetworkStatus)' ./client/ 'TestAllocUpdateAcknowledged$'
run dedupe-while-sending client/alloc_update_dedupe.go 'if _, sending := b.sending[alloc.ID]; sending || failedToStart || alloc.ClientTerminalStatus() {' 'if failedToStart || alloc.ClientTerminalStatus() {' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run dedupe-failed-to-start client/alloc_update_dedupe.go 'if _, sending := b.sending[alloc.ID]; sending || failedToStart || alloc.ClientTerminalStatus() {' 'if _, sending := b.sending[alloc.ID]; sending || alloc.ClientTerminalStatus() {' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run dedupe-after-contradicting-pull client/alloc_update_dedupe.go 'prev.acked && !allocServerStateChanged(prev.alloc, alloc)' 'prev.acked' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run stale-ack-recorded client/alloc_updates.go '} else if b.sendingSince == b.forgotten {' '} else {' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
run no-forget-on-failed-heartbeat client/client.go '		// send the newest update of each
		c.allocUpdates.forgetServerState()
		c.triggerDiscovery()' '		// send the newest update of each
		c.triggerDiscovery()' ./client/ 'TestClient_ForgetsAllocServerState$'
run no-forget-on-status-change client/client.go '		// status: send the newest update of each
		c.allocUpdates.forgetServerState()' '		// status: send the newest update of each' ./client/ 'TestClient_ForgetsAllocServerState$'
run no-forget-on-failed-send client/alloc_updates.go '	if err != nil {
		b.forgetLocked()
	}' '' ./client/ 'TestAllocUpdateBuffer_DropsAcknowledged$'
# 0004 (issue 31): gone only on evidence, terminal never dropped, #18541's
# re-queue, the servers going back
run stale-answer-marks-gone client/alloc_update_dedupe.go 'if _, ok := listed[id]; ok || index < server.index {' 'if _, ok := listed[id]; ok {' ./client/ 'TestAllocUpdateBuffer_GoneOnEvidence$'
run terminal-dropped client/alloc_update_dedupe.go 'sending || failedToStart || alloc.ClientTerminalStatus() {' 'sending || failedToStart {' ./client/ 'TestAllocUpdateBuffer_GoneOnEvidence$'
run no-requeue-on-forget client/alloc_update_dedupe.go '	b.forgetLocked()
	b.requeueAllLocked()
}' '	b.forgetLocked()
}' ./client/ 'TestClient_ForgetsAllocServerState$'
run no-forget-on-registration client/client.go '	c.allocUpdates.forgetServerState()

	c.logger.Info("node registration complete")' '	c.logger.Info("node registration complete")' ./client/ 'TestClient_ForgetsAllocServerState$'
run backwards-answer-ignored client/alloc_update_dedupe.go '	wentBack := index < b.index' '	wentBack := false' ./client/ 'TestAllocUpdateBuffer_ServersGoBackwards$'
run backwards-alloc-ignored client/alloc_update_dedupe.go '		if modifyIndex < prev.modifyIndex {' '		if false {' ./client/ 'TestAllocUpdateBuffer_ServersGoBackwards$'
run backwards-alloc-requeues-one client/alloc_update_dedupe.go '			prev = allocServerState{}
			wentBack = true' '			prev = allocServerState{}
			b.requeueLocked(id)' ./client/ 'TestAllocUpdateBuffer_ServersGoBackwards$'
run missing-running-ignored client/alloc_update_dedupe.go '		if !server.gone && server.alloc != nil && !server.alloc.TerminalStatus() {' '		if false {' ./client/ 'TestAllocUpdateBuffer_ServersGoBackwards$'
run forget-clears-gone client/alloc_update_dedupe.go 'allocServerState{gone: server.gone, modifyIndex: server.modifyIndex' 'allocServerState{modifyIndex: server.modifyIndex' ./client/ 'TestAllocUpdateBuffer_GoneOnEvidence$|TestAllocUpdateBuffer_DropsAcknowledged$'
# 0005: the rule and the cadence
run no-urgency client/alloc_update_priority.go 'func allocUpdatePriorityOf(update, server *structs.Allocation) allocUpdatePriority {' 'func allocUpdatePriorityOf(update, server *structs.Allocation) allocUpdatePriority {
	return allocUpdateTypical' ./client/ 'TestAllocUpdatePriority$|TestClient_AllocSync_Cadence$'
run unknown-server-typical client/alloc_update_priority.go '	statusChanged := server == nil || update.ClientStatus != server.ClientStatus' '	if server == nil {
		return allocUpdateTypical
	}
	statusChanged := update.ClientStatus != server.ClientStatus' ./client/ 'TestAllocUpdatePriority$'
run status-change-typical client/alloc_update_priority.go '	statusChanged := server == nil || update.ClientStatus != server.ClientStatus' '	statusChanged := server == nil' ./client/ 'TestAllocUpdatePriority$'
run health-typical client/alloc_update_priority.go '	case !pointer.Eq(allocHealthy(update), allocHealthy(server)) ||' '	case false && !pointer.Eq(allocHealthy(update), allocHealthy(server)) ||' ./client/ 'TestAllocUpdatePriority$'
run terminal-not-at-once client/alloc_update_priority.go '	case statusChanged && update.ClientTerminalStatus():' '	case false:' ./client/ 'TestAllocUpdatePriority$|TestAllocUpdateBuffer_Urgent$|TestClient_AllocSync_LeadingEdge$'
run every-status-change-at-once client/alloc_update_priority.go '	case statusChanged && update.ClientTerminalStatus():' '	case statusChanged:' ./client/ 'TestAllocUpdatePriority$|TestAllocUpdateBuffer_Urgent$'
run every-urgent-wakes client/alloc_updates.go '	if priority == allocUpdateAtOnce {' '	if priority >= allocUpdateUrgent {' ./client/ 'TestAllocUpdateBuffer_Urgent$'
run failed-to-start-not-at-once client/alloc_updates.go '	priority := allocUpdateAtOnce
	if !failedToStart {' '	priority := allocUpdateTypical
	if !failedToStart {' ./client/ 'TestAllocUpdateBuffer_Urgent$'
run urgency-not-kept client/alloc_updates.go '				update.urgent, update.progress = true, prev.progress' '				update.progress = prev.progress' ./client/ 'TestAllocUpdateBuffer_Urgent$'
run urgency-counted-after-drop client/alloc_updates.go '		if prev, ok := b.pending[alloc.ID]; ok && prev.urgent {
			b.urgent--
			if prev.progress {
				b.progress--
			}
		}' '' ./client/ 'TestAllocUpdateBuffer_Urgent$'
run no-wake-on-at-once-add client/alloc_updates.go '	if priority == allocUpdateAtOnce {
		select {' '	if false {
		select {' ./client/ 'TestClient_AllocSync_LeadingEdge$|TestAllocUpdateBuffer_Urgent$'
run no-leading-edge client/alloc_updates.go '			if ticks == 0 {
				continue // the next tick sends it' '			if true {
				continue // the next tick sends it' ./client/ 'TestClient_AllocSync_Cadence$'
run leading-edge-every-wake client/alloc_updates.go '			if ticks == 0 {
				continue // the next tick sends it' '			if false {
				continue // the next tick sends it' ./client/ 'TestClient_AllocSync_Cadence$'
run at-once-restarts-ticker client/alloc_updates.go '			if !atOnce {
				tickCh = resetTicker(cadence.SyncInterval)
			}' '			tickCh = resetTicker(cadence.SyncInterval)
			_ = atOnce' ./client/ 'TestClient_AllocSync_Cadence$'
run typical-not-held client/alloc_updates.go 'if retry || typical || c.allocUpdates.hasUrgent(!progress) {' 'if _, _, _ = retry, typical, progress; true {' ./client/ 'TestClient_AllocSync_Cadence$'
run typical-after-quiet-spell client/alloc_updates.go '			typical = ticks%cadence.TypicalTicks == 0' '			typical = ticks >= cadence.TypicalTicks' ./client/ 'TestClient_AllocSync_Cadence$'
run urgent-waits-for-typical client/alloc_updates.go 'if retry || typical || c.allocUpdates.hasUrgent(!progress) {' 'if _ = progress; retry || typical {' ./client/ 'TestClient_AllocSync_Cadence$'
run task-handle-typical client/alloc_update_priority.go '		allocTaskHandlesChanged(update, server):' '		false:' ./client/ 'TestAllocUpdatePriority$'
run failed-typical-waits client/alloc_updates.go 'if retry || typical || c.allocUpdates.hasUrgent(!progress) {' 'if typical || c.allocUpdates.hasUrgent(!progress) {' ./client/ 'TestClient_AllocSync_Cadence$'
# 0030: the cadence from the client's alloc_update block (issue 33)
run knob-interval-ignored client/alloc_updates.go '				tickCh = resetTicker(cadence.SyncInterval)' '				tickCh = resetTicker(allocSyncIntv)' ./client/ 'TestClient_AllocSync_ConfiguredCadence$'
run knob-typical-ignored client/alloc_updates.go '			typical = ticks%cadence.TypicalTicks == 0' '			typical = ticks%allocSyncTypicalTicks == 0' ./client/ 'TestClient_AllocSync_ConfiguredCadence$'
run knob-traffic-mode-ignored client/alloc_updates.go '			if !cadence.SendTerminalAtOnce {' '			if false {' ./client/ 'TestClient_AllocSync_ConfiguredCadence$'
run knob-default-changed client/config/alloc_update.go '		SendTerminalAtOnce: true,' '		SendTerminalAtOnce: false,' ./client/ 'TestClient_AllocUpdateConfig$'
run knob-not-copied command/agent/agent.go '	conf.AllocUpdate = allocUpdateConfig' '	_ = allocUpdateConfig' ./command/agent/ 'TestConfig_AllocUpdate$'
run knob-not-merged command/agent/config.go '	result.AllocUpdate = a.AllocUpdate.Merge(b.AllocUpdate)' '' ./command/agent/ 'TestConfig_AllocUpdate$'
run knob-not-validated command/agent/command.go '	if err := config.Client.AllocUpdate.Validate(); err != nil {' '	if err := config.Client.AllocUpdate.Validate(); false && err != nil {' ./command/agent/ 'TestConfig_AllocUpdate$'
run knob-multiple-unchecked nomad/structs/config/alloc_update.go '	if typical%sync != 0 {' '	if false {' ./command/agent/ 'TestConfig_AllocUpdate$'
run knob-unknown-keys-accepted nomad/structs/config/alloc_update.go '	ExtraKeysHCL []string `hcl:",unusedKeys" json:"-"`' '	ExtraKeysHCL []string `json:"-"`' ./command/agent/ 'TestConfig_AllocUpdate$'
# 0032: the client backoff (issue 33 part 3)
run backoff-not-held client/alloc_updates.go '			progress = backoff.progressDue(ticks)' '			progress = true' ./client/ 'TestClient_AllocSync_SlowServersHoldProgress$'
run backoff-not-timed client/alloc_updates.go '				backoff.sent(c.allocUpdates.now().Sub(sentAt))' '				_ = sentAt' ./client/ 'TestClient_AllocSync_SlowServersHoldProgress$'
run backoff-always-slow client/alloc_update_backoff.go '	b.slow = rpcTime > b.interval' '	b.slow = true' ./client/ 'TestClient_AllocSync_SlowServersHoldProgress$|TestAllocSyncBackoff$'
run backoff-every-tick client/alloc_update_backoff.go '	return !b.slow || ticks%b.ticks == 0' '	return !b.slow || ticks%b.ticks == 0 || true' ./client/ 'TestClient_AllocSync_SlowServersHoldProgress$|TestAllocSyncBackoff$'
run first-running-urgent client/alloc_update_priority.go '	case statusChanged && server != nil &&' '	case false && server != nil &&' ./client/ 'TestAllocUpdatePriority$|TestClient_AllocSync_SlowServersHoldProgress$|TestAllocUpdateBuffer_Progress$'
run progress-holds-urgent client/alloc_updates.go '				update.progress = update.progress && prev.progress' '				update.progress = update.progress || prev.progress' ./client/ 'TestAllocUpdateBuffer_Progress$'
run progress-counted-after-drop client/alloc_updates.go '			b.urgent--
			if prev.progress {
				b.progress--
			}
		}
		delete(b.pending, alloc.ID)' '			b.urgent--
		}
		delete(b.pending, alloc.ID)' ./client/ 'TestAllocUpdateBuffer_Progress$'
run held-while-fast client/alloc_updates.go '	if holdProgress {' '	if true {' ./client/ 'TestAllocUpdateBuffer_Progress$|TestClient_AllocSync_SlowServersHoldProgress$'
# 0006: the shutdown flush
run no-shutdown-flush client/client.go '	c.flushAllocUpdates()
' '' ./client/ 'TestClient_Shutdown_FlushesAllocUpdates$'
run flush-beside-send-in-flight client/alloc_updates.go '	c.allocUpdates.sendLock.Lock()
	defer c.allocUpdates.sendLock.Unlock()
' '' ./client/ 'TestClient_FlushAllocUpdates$'
# 0003 and 0006 (issue 31): only confirmed sends count, the unsent logged, the
# flush ends within Shutdown
run unconfirmed-counted-sent client/alloc_updates.go '	if err == nil && resp.Index == 0 {' '	if false {' ./client/ 'TestClient_SyncAllocUpdates_Unconfirmed$|TestClient_FlushAllocUpdates_Unconfirmed$'
run unsent-not-logged client/alloc_update_flush.go 'if ids := c.allocUpdates.pendingIDs(); len(ids) > 0 {' 'if ids := c.allocUpdates.pendingIDs(); len(ids) > 1000 {' ./client/ 'TestClient_FlushAllocUpdates_Unconfirmed$'
run flush-outlives-shutdown client/alloc_update_flush.go '	c.shutdownGroup.Go(func() {' '	var outside group
	outside.Go(func() {' ./client/ 'TestClient_FlushAllocUpdates$|TestClient_FlushAllocUpdates_Unconfirmed$'
fi
# 0001, 0002, 0007 and the rest: every line (v1.6.1's numbers differ, see
# docs/patches.md)
case $line in
v1.5.3)
  run no-factory client/alloc_runner_factory.go '	if factory := c.GetConfig().AllocRunnerFactory; factory != nil {' '	if factory := c.GetConfig().AllocRunnerFactory; false && factory != nil {' ./client/ 'TestClient_AllocRunnerFactory'
  ;;
v1.5.6|v1.6.1) # the factory is upstream's (#17161); 0002 adds its tests
  run no-factory client/client.go '		allocrunnerFactory:   cfg.AllocRunnerFactory,' '		allocrunnerFactory:   nil,' ./client/ 'TestClient_AllocRunnerFactory'
  ;;
esac
run metrics-trigger client/alloc_update_metrics.go '	if retry {' '	if _ = retry; false {' ./client/ 'TestClient_AllocSync_Metrics$'
run metrics-rpc-time-not-emitted client/alloc_update_metrics.go '	metrics.MeasureSinceWithLabels([]string{"client", "allocations", "updates", "rpc_time"}, start, labels)' '	_, _ = start, labels' ./client/ 'TestClient_AllocSync_Metrics$'
run csi-not-shared client/allocrunner/alloc_runner.go '			AllocHookResources:  ar.hookResources,
' '' ./client/allocrunner/ 'TestAllocRunner_CSIMounts_SharedWithTaskRunners$'
# The #16623 fix is both: the shared resources and the nil default. Revert both.
case ",${ONLY:-csi-16623-unfixed}," in *,csi-16623-unfixed,*) python3 - <<'PY' ;; esac
p='client/allocrunner/alloc_runner.go'
s=open(p).read()
old='			AllocHookResources:  ar.hookResources,\n'
assert s.count(old)==1
open(p,'w').write(s.replace(old,''))
PY
newres='&cstructs.AllocHookResources{}'
[ "$line" != v1.5.3 ] && newres='cstructs.NewAllocHookResources()'
run csi-16623-unfixed client/allocrunner/taskrunner/task_runner.go '	if tr.allocHookResources == nil {
		tr.allocHookResources = '"$newres"'
	}' '' ./client/allocrunner/ 'TestAllocRunner_Restore_Terminal_CSIMounts$'
git checkout -q -- client/allocrunner/alloc_runner.go
run migrate-dotdot-allowed client/allocwatcher/migrate_paths.go 'if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {' 'if rel == "." {' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_PathEscape$'
run migrate-through-symlink client/allocwatcher/migrate_paths.go '		if fi.Mode()&os.ModeSymlink != 0 {' '		if false && fi.Mode()&os.ModeSymlink != 0 {' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_SamePathTwice$'
run migrate-symlink-outside client/allocwatcher/migrate_paths.go '	if filepath.IsAbs(target) || links > migrateMaxLinks {' '	if links > migrateMaxLinks {' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_SymlinkOutside$'
# 0010: the log fifos and files opened without following symlinks
run fifo-reader-follows client/lib/fifo/fifo_unix.go '	return escapingfs.OpenInDir(path, unix.O_RDONLY, 0, os.ModeNamedPipe)' '	return os.OpenFile(path, unix.O_RDONLY, os.ModeNamedPipe)' ./client/lib/fifo/ 'TestFIFO_SymlinkToHostFile$'
run fifo-writer-follows client/lib/fifo/fifo_unix.go '	return escapingfs.OpenInDir(path, unix.O_WRONLY, 0, os.ModeNamedPipe)' '	return os.OpenFile(path, unix.O_WRONLY, os.ModeNamedPipe)' ./client/lib/fifo/ 'TestFIFO_SymlinkToHostFile$'
run rotator-create-follows client/logmon/logging/rotator.go 'cFile, err := escapingfs.OpenInDir(logFileName, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0644, 0)' 'cFile, err := os.OpenFile(logFileName, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0644)' ./client/logmon/logging/ 'TestFileRotator_SymlinkToHostFile$'
# 0012-0018: the security patches of issue 34 (client side)
run template-denylist-default client/config/config.go '		"executeTemplate",
		"sprig_env",
		"sprig_expandenv",
		"sprig_getHostByName",
' '' ./client/allocrunner/taskrunner/template/ 'TestTaskTemplateManager_DefaultDenylist$'
run env-denylist-nomad-token command/agent/host/host.go '	"NOMAD_TOKEN",
' '' ./client/taskenv/ 'TestSetHostEnvvars_DefaultDenylist$'
run http-error-sniffed command/agent/http.go '	resp.Header().Set("Content-Type", "text/plain; charset=utf-8")
	resp.Header().Set("X-Content-Type-Options", "nosniff")
' '' ./command/agent/ 'TestHTTP_ErrorContentType$'
run docker-host-namespaces-unchecked drivers/docker/driver.go 'checkHostNamespaceModes(driverConfig, d.config.AllowPrivileged)' 'checkHostNamespaceModes(driverConfig, true)' ./drivers/docker/ 'TestDockerDriver_CreateContainerConfig_HostNamespaceModes$'
run docker-volume-path-text drivers/docker/utils.go '	rel, err := filepath.Rel(rparent, rpath)' '	_, _ = rparent, rpath
	rel, err := filepath.Rel(parent, path)' ./drivers/docker/ 'TestDockerDriver_CreateContainerConfig_VolumesSymlinkEscape$'
run fifo-mkfifo-follows client/lib/fifo/fifo_unix.go 'return escapingfs.MkfifoInDir(path, mode)' 'return unix.Mkfifo(path, mode)' ./client/lib/fifo/ 'TestFIFO_CreateInSymlinkedDir$'
run rotator-purge-follows client/logmon/logging/rotator.go 'dir, err := escapingfs.OpenDirNoFollow(f.path)' 'dir, err := os.Open(f.path)' ./client/logmon/logging/ 'TestFileRotator_PurgeSymlinkedDir$'
run migrate-symlink-chain-text client/allocwatcher/migrate_paths.go '	_, _, ok := migrateResolveInside(filepath.Clean(dest), filepath.Dir(path), target, 0)
	return !ok' '	rel, err := filepath.Rel(dest, filepath.Join(filepath.Dir(path), target))
	return filepath.IsAbs(target) || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))' ./client/allocwatcher/ 'TestPrevAlloc_StreamAllocDir_SymlinkChain$'
# server-side security fixes (issue 34)
run acl-policy-job-prefix nomad/state/state_store.go '	iter, err := txn.Get("acl_policy", "job", ns, jobID)' '	iter, err := txn.Get("acl_policy", "job_prefix", ns, jobID)' ./nomad/ 'TestResolveClaims_JobIDPrefix$'
run task-named-alloc nomad/structs/structs.go '	} else if reservedTaskNames[t.Name] {' '	} else if false && reservedTaskNames[t.Name] {' ./nomad/structs/ 'TestTask_Validate_ReservedName$'
if [ "$line" != v1.6.1 ]; then # upstream v1.6.1 has both fixes
run acl-block-without-label acl/policy.go '			p.Namespaces[i].Name = ""' '' ./acl/ 'TestParse_BlockWithoutLabel$'
run search-plugins-unfiltered nomad/search_endpoint.go '		case structs.Plugins:
			if aclObj.AllowPluginList() {' '		case structs.Plugins:
			if true {' ./nomad/ 'TestSearch_ACL_PluginsAndVariables$'
fi
run csi-register-other-namespace nomad/csi_endpoint.go '		if !allowVolume(aclObj, vol.Namespace) {
			return structs.ErrPermissionDenied
		}
		if err = vol.Validate(); err != nil {
			return err
		}

		ws := memdb.NewWatchSet()' '		if err = vol.Validate(); err != nil {
			return err
		}

		ws := memdb.NewWatchSet()' ./nomad/ 'TestCSIVolumeEndpoint_Register_OtherNamespace$'
run oidc-secret-returned nomad/acl_endpoint.go '			reply.AuthMethod = out.Sanitize()' '			reply.AuthMethod = out' ./nomad/ 'TestACLEndpoint_AuthMethod_ClientSecretRedacted$'
run oidc-secret-in-events nomad/state/events.go '			AuthMethod: after.Sanitize(),' '			AuthMethod: after,' ./nomad/state/ 'Test_eventsFromChanges_ACLAuthMethod$'
run oidc-secret-overwritten-by-redacted nomad/structs/acl.go '			a.Config.OIDCClientSecret = b.Config.OIDCClientSecret' '' ./nomad/ 'TestACLEndpoint_AuthMethod_ClientSecretRedacted$'
run event-stream-all-namespaces nomad/stream/subscription.go '	if len(events) == 0 || s.req.Namespace != "*" || aclObj == nil || aclObj.IsManagement() {' '	if true {' ./nomad/stream/ 'TestEventBroker_SubscribeWithACLCheck_AllNamespaces$'
run secrets-dir-case client/allocdir/alloc_dir.go '		if pathInDir(p, dir.SecretsDir) {' '		if filepath.HasPrefix(p, dir.SecretsDir) {' ./client/allocdir/ 'TestAllocDir_ReadAt_SecretDirCase$'
run signed-identities-to-any-caller nomad/alloc_endpoint.go '	if alloc == nil || !s.config.ACLEnabled {' '	if true {' ./nomad/ 'TestAllocEndpoint_SignedIdentities_ClientOnly$'
# The fix is the suites' removal from supportedTLSCiphers; the check before
# it only says why. Accept them again (not only drop the message).
run tls-cbc-sha256-accepted helper/tlsutil/config.go '		if removedTLSCiphers[cipher] {
			return suites, fmt.Errorf("TLS cipher %q is no longer supported: "+
				"the CBC-SHA256 cipher suites are vulnerable to timing attacks; "+
				"remove it from tls_cipher_suites", cipher)
		}
		c, ok := supportedTLSCiphers[cipher]' '		c, ok := supportedTLSCiphers[cipher]
		if removedTLSCiphers[cipher] {
			c, ok = map[string]uint16{
				"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
				"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
				"TLS_RSA_WITH_AES_128_CBC_SHA256":         tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
			}[cipher], true
		}' ./helper/tlsutil/ 'TestConfig_ParseCiphers_CBCSHA256Refused$'
# CVE-2024-1329: the template sandbox
run template-sandbox-off client/allocrunner/taskrunner/template/template.go '			if err := sandbox.apply(ct); err != nil {' '			if _ = ct; false {' ./client/allocrunner/taskrunner/template/ 'TestTaskTemplateManager_Sandbox_Symlinks$'
run template-dest-dir-by-path client/allocrunner/taskrunner/template/sandbox_linux.go '	p := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))' '	p := "/nonexistent/" + strconv.Itoa(int(f.Fd()))' ./client/allocrunner/taskrunner/template/ 'TestTemplateSandbox_DestinationSwappedForLink$'
run template-chained-link-cleaned client/allocrunner/taskrunner/template/sandbox.go '		rest = append(strings.Split(target, string(filepath.Separator)), rest...)' '		rest = append(strings.Split(filepath.Clean(target), string(filepath.Separator)), rest...)' ./client/allocrunner/taskrunner/template/ 'TestTaskTemplateManager_Sandbox_Symlinks$'
# GH-26608: the artifact inspection without filesystem isolation
run artifact-inspection-off client/allocrunner/taskrunner/getter/sandbox.go '	inspect := !isolated(s.ac)' '	inspect := false && !isolated(s.ac)' ./client/allocrunner/taskrunner/getter/ 'TestSandbox_Get_Symlinks$'
run artifact-destination-unchecked client/allocrunner/taskrunner/getter/sandbox.go '		if err = inspectDestination(allocDir, destination); err != nil {' '		if err = error(nil); err != nil {' ./client/allocrunner/taskrunner/getter/ 'TestSandbox_Get_Symlinks$'
run artifact-destination-link-ignored client/allocrunner/taskrunner/getter/inspect.go '	resolved, err := resolvePath(destination)' '	resolved, err := filepath.Clean(destination), error(nil)' ./client/allocrunner/taskrunner/getter/ 'TestInspectDestination_ThroughLink$'
run artifact-links-unchecked client/allocrunner/taskrunner/getter/inspect.go '		if !within(root, resolved) {
			return fmt.Errorf("artifact symlink' '		if _ = root; false {
			return fmt.Errorf("artifact symlink' ./client/allocrunner/taskrunner/getter/ 'TestInspectArtifact_Symlinks$|TestSandbox_Get_Symlinks$'
run artifact-chained-link-cleaned client/allocrunner/taskrunner/getter/inspect.go '		rest = append(strings.Split(target, string(filepath.Separator)), rest...)' '		rest = append(strings.Split(filepath.Clean(target), string(filepath.Separator)), rest...)' ./client/allocrunner/taskrunner/getter/ 'TestInspectArtifact_Symlinks$|TestSandbox_Get_Symlinks$'
git status --short
exit $survived
