/// The committed log of one instance, as its owner writes it: the seam between the one
/// instance engine and where instances live (DESIGN.md "one engine").
///
/// A single daemon is a cluster of one: its log is in-process (`LocalLog`, on the
/// `StateStore`), committed as soon as the store has the change (or, with durable acks,
/// once it is on disk). A cluster's log is in Redis, committed by a fenced script
/// (`RedisLog`). Either way, subscribers on every node see only what the log committed,
/// through their `InstanceView`.
package protocol InstanceLog: AnyObject, Sendable {
    /// Appends a burst, in order after every earlier one; called from the owner's serial
    /// context only.
    func append(_ burst: LogBurst)
    /// Appends a reply outside any burst (the repeat of a remembered answer), from any
    /// thread, after what was appended before.
    func appendReply(_ reply: LoggedReply)
}
