import Foundation
public import ReactorHubMetrics
import ReactorHubProtocol

/// `GET /metrics` (Prometheus text format 0.0.4) and `GET /readyz`: the counters the hub
/// keeps where each policy lives, and the gauges read from state at the scrape.
extension Hub {
    /// Why the hub cannot serve right now, or nil when it is ready.
    public var unavailableReason: String? {
        if state.withLock({ $0.draining }) { return "shutting down" }
        if let reason = store.unavailableReason { return reason }
        return readinessChecks.withLock { $0 }.lazy.compactMap { $0() }.first
    }

    /// Adds a readiness condition (the cluster link): it returns a reason while not ready.
    public func addReadinessCheck(_ check: @escaping @Sendable () -> String?) {
        readinessChecks.withLock { $0.append(check) }
    }

    /// Adds families to the scrape (the cluster's, the transport's).
    public func addMetricsSource(_ render: @escaping @Sendable (inout Exposition) -> Void) {
        metricsSources.withLock { $0.append(render) }
    }

    func readyz() -> HTTPResponse {
        if let reason = unavailableReason { return .text(503, reason) }
        return .text(200, "ready")
    }

    /// The whole scrape.
    public func renderMetrics() -> String {
        var out = Exposition()
        let (sessions, byKind, subscriptions) = state.withLock { state -> (Int, [String: Int], [String: Int]) in
            var byKind: [String: Int] = [:]
            for address in state.slots.keys { byKind[address.kind, default: 0] += 1 }
            var subscriptions: [String: Int] = [:]
            for (address, count) in state.joinedCount { subscriptions[address.kind, default: 0] += count }
            return (state.sessions.count, byKind, subscriptions)
        }
        out.gauge("reactorhub_connections", help: "Open WebSocket connections.", Double(sessions))
        out.counter("reactorhub_connections_opened_total", help: "WebSocket connections opened.", metrics.connectionsOpened)
        out.counter("reactorhub_connections_closed_total", help: "WebSocket connections closed, by close code.", metrics.connectionsClosed)
        let kinds = registry.names
        out.family("reactorhub_instances", type: "gauge", help: "Reactor instances in memory, by kind.")
        for kind in kinds { out.sample("reactorhub_instances", byKind[kind] ?? 0, labels: [("kind", kind)]) }
        out.family("reactorhub_subscriptions", type: "gauge", help: "Joins held by connections, by kind.")
        for kind in kinds { out.sample("reactorhub_subscriptions", subscriptions[kind] ?? 0, labels: [("kind", kind)]) }
        out.family("reactorhub_actions_total", type: "counter", help: "Actions, by kind and result (accepted, refused, duplicate).")
        for kind in kinds {
            for (result, count) in metrics.actions[kind]?.counts ?? [] where result != "other" {
                out.sample("reactorhub_actions_total", count, labels: [("kind", kind), ("result", result)])
            }
        }
        out.histogram("reactorhub_action_seconds", help: "From an action's frame received to its ack posted.", metrics.actionSeconds)
        let written = delivery.written
        out.family("reactorhub_patch_frames_total", type: "counter", help: "Patch frames written to connections.")
        out.sample("reactorhub_patch_frames_total", written.patchFrames)
        out.family("reactorhub_updates_total", type: "counter", help: "Versions delivered to connections (a merged frame carries several).")
        out.sample("reactorhub_updates_total", written.updates)
        out.family("reactorhub_pulses_total", type: "counter", help: "Pulse frames written to connections.")
        out.sample("reactorhub_pulses_total", written.pulses)
        out.counter("reactorhub_snapshots_total", help: "Snapshots sent, by reason (join, resync, reset).", metrics.snapshots)
        out.counter("reactorhub_resumes_total", help: "Joins with since, by result (resumed, snapshot).", metrics.resumes)
        out.gauge("reactorhub_outbound_queued_bytes", help: "Bytes waiting in connections' outboxes.", Double(delivery.queuedBytes))
        out.counter("reactorhub_slow_consumer_total", help: "Slow readers shed (dropped) or closed with 1013.", metrics.slowConsumers)
        out.counter("reactorhub_errors_total", help: "Error replies, by code.", metrics.errors)
        out.gauge("reactorhub_persistence_pending_changes", help: "State changes recorded and not committed yet.", Double(store.pendingChanges))
        if let flushes = store.flushDurations {
            out.histogram("reactorhub_persistence_flush_seconds", help: "How long state store commits took.", flushes)
        }
        if configuration.auth != nil {
            out.counter("reactorhub_auth_failures_total", help: "Tokens refused, by reason.", metrics.authFailures)
        }
        out.gauge("reactorhub_ready", help: "1 while GET /readyz answers 200 ready, else 0.", unavailableReason == nil ? 1 : 0)
        for source in metricsSources.withLock({ $0 }) {
            source(&out)
        }
        out.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.", Double(ProcessMetrics.residentMemoryBytes))
        out.family("process_cpu_seconds_total", type: "counter", help: "Total user and system CPU time spent in seconds.")
        out.sample("process_cpu_seconds_total", ProcessMetrics.cpuSeconds)
        out.gauge("process_open_fds", help: "Number of open file descriptors.", Double(ProcessMetrics.openFileDescriptors))
        out.gauge("process_max_fds", help: "Maximum number of open file descriptors.", Double(ProcessMetrics.maxFileDescriptors))
        out.gauge("process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.", ProcessMetrics.startTime)
        out.family("reactorhub_build_info", type: "gauge", help: "The running version.")
        out.sample("reactorhub_build_info", 1, labels: [("version", ReactorHubVersion.current)])
        return out.text
    }
}
