public import ReactorHubLogging

/// Takes, renews, releases and reads instance leases (`…:lease` = `NODE:GEN` with PX
/// lease, `…:gen` the fencing counter).
///
/// The first node that needs an instance and finds no lease takes it; the owner renews
/// every `renewInterval` (a third of the lease), here one by one or all at once with
/// `renew(_:)` on a list; on SIGTERM it releases, so that another node takes over at once.
/// A node whose renewal fails has lost the instance and must stop applying actions to it;
/// even if it does not notice, its commits are refused (`CommitOutcome.lostLease`).
public struct InstanceLeases: Sendable {
    private let client: RedisClient
    private let options: ClusterOptions
    private let logger: Logger

    /// Leases of node `options.nodeID`, through `client`.
    public init(client: RedisClient, options: ClusterOptions, logger: Logger) {
        self.client = client
        self.options = options
        self.logger = logger
    }

    /// Takes the lease of `address` when it is free, with a generation higher than every
    /// earlier one; otherwise says who holds it.
    public func acquire(_ address: String) async throws(RedisError) -> LeaseAcquisition {
        let keys = options.keys.instance(address)
        let reply = try await client.run(
            LeaseScripts.acquire,
            keys: [RedisArgument(keys.lease), RedisArgument(keys.generation)],
            arguments: [RedisArgument(options.nodeID), .milliseconds(options.lease)]
        ).expectArray("lease acquire")
        guard reply.count == 2, let holder = LeaseHolder(token: try reply[1].expectText("lease token"), remaining: nil) else {
            throw RedisError(.unexpectedReply, "lease acquire: \(reply)")
        }
        if try reply[0].expectInteger("lease acquire") == 1 {
            logger.debug("lease acquired", metadata: ["reactor": address, "generation": String(holder.generation)])
            return .acquired(Lease(address: address, node: holder.node, generation: holder.generation, line: holder.line))
        }
        return .held(by: holder)
    }

    /// Extends `lease` by the lease length when it is still held under its token; false
    /// when it lapsed or another node took it (the instance is lost).
    public func renew(_ lease: Lease) async throws(RedisError) -> Bool {
        try await client.run(
            LeaseScripts.renew,
            keys: [RedisArgument(options.keys.instance(lease.address).lease)],
            arguments: [RedisArgument(lease.token), .milliseconds(options.lease)]
        ).expectInteger("lease renew") == 1
    }

    /// Renews many leases in one round trip; returns the ones that are lost.
    public func renew(_ leases: [Lease]) async throws(RedisError) -> [Lease] {
        let replies = try await client.run(LeaseScripts.renew, batch: leases.map { lease in
            RedisClient.ScriptCall(
                keys: [RedisArgument(options.keys.instance(lease.address).lease)],
                arguments: [RedisArgument(lease.token), .milliseconds(options.lease)]
            )
        })
        var lost: [Lease] = []
        for (lease, reply) in zip(leases, replies) where try reply.throwingError().expectInteger("lease renew") != 1 {
            lost.append(lease)
        }
        return lost
    }

    /// Gives `lease` up (compare-and-delete): another node may take the instance at once.
    /// False when it was no longer held under this token.
    @discardableResult
    public func release(_ lease: Lease) async throws(RedisError) -> Bool {
        let released = try await client.run(
            LeaseScripts.release,
            keys: [RedisArgument(options.keys.instance(lease.address).lease)],
            arguments: [RedisArgument(lease.token)]
        ).expectInteger("lease release") == 1
        logger.debug("lease released", metadata: ["reactor": lease.address, "released": String(released)])
        return released
    }

    /// Who holds the lease of `address` now, and for how long; nil when nobody does.
    public func holder(of address: String) async throws(RedisError) -> LeaseHolder? {
        let key = RedisArgument(options.keys.instance(address).lease)
        let replies = try await client.pipeline([["GET", key], ["PTTL", key]])
        guard replies.count == 2, case .string = replies[0] else { return nil }
        let token = try replies[0].expectText("lease holder")
        let milliseconds = try replies[1].throwingError().expectInteger("lease ttl")
        return LeaseHolder(token: token, remaining: milliseconds >= 0 ? .milliseconds(milliseconds) : nil)
    }
}
