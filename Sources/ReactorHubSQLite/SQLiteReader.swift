import ReactorHubProtocol
import ReactorHubStore
import ReactorHubJSON

/// Reads instances back, on its own connection (WAL lets it read while the writer commits).
final class SQLiteReader {
    private let connection: SQLiteConnection
    private let selectInstance: SQLiteStatement
    private let selectPatches: SQLiteStatement
    private let selectSetAside: SQLiteStatement

    /// Rows written by runs before this one are unproven (see `StoreRuns`).
    private let trustedFromRun: Int

    init(path: String, trustedFromRun: Int) throws(PersistenceError) {
        connection = try SQLiteConnection(path: path)
        self.trustedFromRun = trustedFromRun
        selectInstance = try connection.prepare("SELECT epoch, version, state, run FROM instances WHERE kind = ?1 AND id = ?2")
        selectPatches = try connection.prepare(
            "SELECT version, frame FROM patches WHERE kind = ?1 AND id = ?2 AND epoch = ?3 ORDER BY version"
        )
        selectSetAside = try connection.prepare(
            "SELECT epoch, version, reason FROM set_aside WHERE kind = ?1 AND id = ?2 ORDER BY set_aside_at, rowid"
        )
    }

    /// The rows set aside of `address`, oldest first.
    func setAsides(_ address: ReactorAddress) throws(PersistenceError) -> [SetAsideRecord] {
        selectSetAside.reset()
        defer { selectSetAside.reset() }
        selectSetAside.bind(1, address.kind)
        selectSetAside.bind(2, address.id)
        var records: [SetAsideRecord] = []
        while try selectSetAside.step() {
            records.append(SetAsideRecord(
                epoch: selectSetAside.text(0) ?? "", version: selectSetAside.int(1), reason: selectSetAside.text(2) ?? ""
            ))
        }
        return records
    }

    func load(_ address: ReactorAddress) throws(PersistenceError) -> StoredInstance? {
        selectInstance.reset()
        selectInstance.bind(1, address.kind)
        selectInstance.bind(2, address.id)
        guard try selectInstance.step() else { return nil }
        let epoch = selectInstance.text(0) ?? ""
        let version = selectInstance.int(1)
        let text = selectInstance.bytes(2)
        let continuity: StoredInstance.Continuity = selectInstance.int(3) >= trustedFromRun ? .proven : .unproven
        selectInstance.reset()
        // A row whose text no longer parses is handed over as a string: it will not
        // decode as the kind's state, and the hub sets it aside rather than losing it.
        let state = (try? JSONParser().parse(text)) ?? .string(String(decoding: text, as: UTF8.self))

        selectPatches.reset()
        selectPatches.bind(1, address.kind)
        selectPatches.bind(2, address.id)
        selectPatches.bind(3, epoch)
        var patches: [StoredPatch] = []
        while try selectPatches.step() {
            patches.append(StoredPatch(version: selectPatches.int(0), frame: selectPatches.bytes(1)))
        }
        selectPatches.reset()
        // Only a run of consecutive versions ending at `version` can serve a resume.
        var consecutive: [StoredPatch] = []
        for patch in patches.reversed() {
            guard patch.version == version - consecutive.count else { break }
            consecutive.insert(patch, at: 0)
        }
        return StoredInstance(epoch: epoch, version: version, state: state, patches: consecutive, continuity: continuity)
    }
}
