/// Prediction (CLIENTS.md "Prediction"): the shown state of a reactor is its confirmed state
/// with this client's pending actions replayed on top, recomputed whenever either changes.
extension ClientEngine {
    /// The confirmed state of `entry`, or its pending actions, changed: the acknowledged
    /// actions the confirmed state now includes stop being pending, and the shown state is
    /// recomputed from what is left and published, in one revision.
    func settle(_ entry: ReactorEntry, cause: Revision.Cause) {
        if let epoch = entry.replica.epoch {
            for confirmed in ledger.confirm(address: entry.address, version: entry.replica.version, epoch: epoch) {
                entry.predictions[confirmed.id] = nil
            }
        }
        entry.publish(cause, pending: ledger.pending(for: entry.address))
    }

    /// An action left the ledger without reaching the confirmed state (refused, given up, or
    /// lost twice): its prediction goes, and the shown state with it, in one change.
    func rollBack(_ action: ActionLedger.Entry) {
        guard let entry = entries[action.address] else { return }
        entry.predictions[action.id] = nil
        settle(entry, cause: .prediction)
    }
}
